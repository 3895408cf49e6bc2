// What the local server checks of a request before it runs anything, as pure functions of
// header values (tested without sockets): the Host a browser sent (DNS rebinding: a page
// of evil.example that resolves its name to 127.0.0.1 sends Host: evil.example), the
// Origin of a cross-origin page (CORS, for the origins the user listed), the body's
// content type (a page may POST text/plain to any address without asking first: only
// application/json needs the browser's preflight, which the server refuses for other
// origins), and the API key (compared in constant time).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/server/chat_api.h"

namespace ts::server {

// The host name of a Host header value: "127.0.0.1:8080" -> "127.0.0.1", "[::1]:80" ->
// "::1", "localhost" -> "localhost".
std::string hostName(std::string_view host_header);

// 403 when the server listens on loopback only and `host_header` names something else
// (an empty header is let through: HTTP/1.0 tools send none, browsers always do).
std::optional<ApiError> checkHost(const std::string& bound_host, const std::string& host_header);

// 415 unless `content_type` is application/json (parameters such as charset allowed).
std::optional<ApiError> checkJsonBody(const std::string& content_type);

// Whether the two strings are equal, in a time that depends on their lengths only.
bool sameSecret(std::string_view a, std::string_view b);

// Whether `origin` is one of `allowed` (exact, as browsers send it: scheme://host[:port]).
bool originAllowed(const std::vector<std::string>& allowed, const std::string& origin);

}  // namespace ts::server
