#include "app/server/request_guard.h"

#include <algorithm>
#include <cctype>

#include "app/server/local_server.h"

namespace ts::server {

std::string hostName(std::string_view host_header) {
  std::string_view h = host_header;
  while (!h.empty() && h.front() == ' ') h.remove_prefix(1);
  while (!h.empty() && h.back() == ' ') h.remove_suffix(1);
  if (!h.empty() && h.front() == '[') {  // [IPv6]:port
    const size_t close = h.find(']');
    return std::string(h.substr(1, close == std::string_view::npos ? h.npos : close - 1));
  }
  const size_t colon = h.find(':');
  if (colon != std::string_view::npos && h.find(':', colon + 1) == std::string_view::npos)
    h = h.substr(0, colon);  // name:port (a bare IPv6 address has several colons)
  std::string name(h);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return name;
}

std::optional<ApiError> checkHost(const std::string& bound_host, const std::string& host_header) {
  if (host_header.empty() || !isLoopbackHost(bound_host)) return std::nullopt;
  const std::string name = hostName(host_header);
  if (isLoopbackHost(name)) return std::nullopt;
  return ApiError{403,
                  "Host '" + name.substr(0, 80) + "' is not this server: it listens on " +
                      bound_host + " and answers requests for localhost, 127.0.0.1 or ::1 only",
                  "invalid_request_error", "", "host_not_allowed"};
}

std::optional<ApiError> checkJsonBody(const std::string& content_type) {
  std::string type = content_type.substr(0, content_type.find(';'));
  type.erase(std::remove(type.begin(), type.end(), ' '), type.end());
  std::transform(type.begin(), type.end(), type.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (type == "application/json") return std::nullopt;
  return ApiError{
      415,
      "expected Content-Type: application/json, found " +
          (content_type.empty() ? std::string("none") : "'" + content_type.substr(0, 80) + "'"),
      "invalid_request_error", "", "unsupported_media_type"};
}

bool sameSecret(std::string_view a, std::string_view b) {
  const size_t n = std::max(a.size(), b.size());
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff |= x ^ y;
  }
  return diff == 0;
}

bool originAllowed(const std::vector<std::string>& allowed, const std::string& origin) {
  return !origin.empty() && std::find(allowed.begin(), allowed.end(), origin) != allowed.end();
}

}  // namespace ts::server
