#include "app/server/local_server.h"

#include <arpa/inet.h>
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>

#include "app/server/chat_api.h"
#include "app/server/connection_watch.h"
#include "app/server/http_server.h"
#include "app/server/metrics_text.h"
#include "app/server/prompt_fit.h"
#include "app/server/request_guard.h"
#include "inference/engine/serving/serving_limits.h"
#include "inference/engine/tokenizer/chat_template.h"

namespace ts::server {

namespace {

int64_t steadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void sendError(httplib::Response& res, const ApiError& e) {
  res.status = e.status;
  res.set_content(e.body(), "application/json");
}

bool writeEvent(httplib::DataSink& sink, const std::string& data) {
  const std::string event = "data: " + data + "\n\n";
  return sink.write(event.data(), event.size());
}

constexpr const char* kRoutes =
    "this server answers GET /v1/models, POST /v1/chat/completions, GET /health and GET "
    "/metrics";

// The JSON body of an error httplib answered itself (no route, a body over the limit, a
// malformed request).
ApiError httpError(const httplib::Request& req, int status, int max_body_mb) {
  const std::string what = req.method + " " + req.path.substr(0, 200);
  switch (status) {
    case 404:
      return {404, "Invalid URL (" + what + "): " + kRoutes, "invalid_request_error", "",
              "unknown_url"};
    case 413:
      return {413,
              "the request body is larger than the " + std::to_string(max_body_mb) +
                  " MiB this server accepts (serve --max-body-mb)",
              "invalid_request_error", "", "request_too_large"};
    case 414:
      return {414, "the request's URL is too long", "invalid_request_error", "", ""};
    default:
      return {status,
              "the request could not be read as HTTP (status " + std::to_string(status) + ")",
              status >= 500 ? "server_error" : "invalid_request_error", "", ""};
  }
}

}  // namespace

bool isLoopbackHost(const std::string& host) {
  std::string h = host;
  if (h.size() > 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  if (h == "localhost" || h == "::1" || h == "0:0:0:0:0:0:0:1") return true;
  in_addr v4{};
  return inet_pton(AF_INET, h.c_str(), &v4) == 1 && (ntohl(v4.s_addr) >> 24) == 127;
}

std::string exposureWarning(const std::string& host, bool has_key) {
  if (has_key || isLoopbackHost(host)) return {};
  return "WARNING: serving on " + host +
         " without an API key: anyone who can reach this address can use the model. Require a "
         "key (--api-key-env VAR), or serve on 127.0.0.1.";
}

// One admitted request: holds its place in the admission count, and its connection is
// watched, until every copy of it (the handler's and httplib's content provider's) is gone.
struct LocalServer::Job {
  LocalServer* server = nullptr;  // null: not admitted
  ChatCompletionRequest request;
  std::vector<int> prompt;
  int max_tokens = 0;
  CompletionIds ids;
  int64_t start_ns = 0;             // steady_clock, when admitted
  std::vector<ServedToken> tokens;  // for the observer (on_request)
  std::atomic<bool> cancel{false};  // the client went away, or the server stops
  uint64_t watch = 0;
  ~Job() {
    if (!server) return;
    server->watch_->forget(watch);
    std::lock_guard lock(server->mutex_);
    --server->admitted_;
  }
};

LocalServer::LocalServer(std::shared_ptr<const engine::Model> model,
                         std::shared_ptr<engine::Scheduler> scheduler, ServerOptions options)
    : model_(std::move(model)),
      scheduler_(std::move(scheduler)),
      options_(std::move(options)),
      http_(std::make_unique<HttpServer>()),
      watch_(std::make_unique<ConnectionWatch>()) {
  for (const std::string& piece : scheduler_->tokenizer().vocabulary().pieces)
    longest_piece_ = std::max(longest_piece_, piece.size());
  configureHttp();
  addRoutes();
}

void LocalServer::configureHttp() {
  // A thread per admitted request (each waits in the scheduler for its tokens), at most
  // kServerRequestThreads whatever the settings ask; a few more for /health and /metrics.
  const int threads = std::min(scheduler_->options().max_running + options_.max_queue,
                               engine::kServerRequestThreads) +
                      engine::kServerSpareThreads;
  http_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  // Request bodies up to max_body_mb are read and parsed on many threads at once: glibc
  // would keep what they freed in per-thread arenas (seen: 800 MB held for 3 MB in use
  // after fifteen 7.5 MiB bodies); blocks from 1 MiB up go back to the system at once.
  static std::once_flag tuned;
  std::call_once(tuned, [] { mallopt(M_MMAP_THRESHOLD, 1 << 20); });
  http_->set_payload_max_length(static_cast<size_t>(options_.max_body_mb) << 20);
  const int max_body_mb = options_.max_body_mb;
  http_->set_error_handler(httplib::Server::HandlerWithResponse(
      [max_body_mb](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty() || res.is_chunked_content_provider_)
          return httplib::Server::HandlerResponse::Unhandled;  // a route's own error body
        sendError(res, httpError(req, res.status, max_body_mb));
        return httplib::Server::HandlerResponse::Handled;
      }));
  http_->set_exception_handler([](const httplib::Request& req, httplib::Response& res,
                                  std::exception_ptr error) {
    std::string what = "unknown";
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    std::fprintf(stderr, "tokenscope server: %s %s failed: %s\n", req.method.c_str(),
                 req.path.c_str(), what.c_str());  // for whoever runs it; not the client
    sendError(res,
              {500, "the server failed on this request; its log says why", "server_error", "", ""});
  });
  http_->set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    return guard(req, res) ? httplib::Server::HandlerResponse::Handled
                           : httplib::Server::HandlerResponse::Unhandled;
  });
}

void LocalServer::addRoutes() {
  // Liveness: the model is loaded once the server listens, so a reply means it can serve.
  http_->Get("/health", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("{\"status\":\"ok\"}", "application/json");
  });

  http_->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(prometheusText(scheduler_->metrics(), options_.model_name),
                    "text/plain; version=0.0.4; charset=utf-8");
  });

  http_->Get("/v1/models", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(modelListJson(options_.model_name, static_cast<long long>(std::time(nullptr))),
                    "application/json");
  });

  http_->Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res,
                                             const httplib::ContentReader& read) {
    if (auto e = checkJsonBody(req.get_header_value("Content-Type"))) return sendError(res, *e);
    if (const auto body = readBody(req, res, read)) chat(req, *body, res);
  });
}

// The body read here, not by httplib: its own limit holds only for a Content-Length, and it
// parses multipart bodies itself before any route runs.
std::optional<std::string> LocalServer::readBody(const httplib::Request& req,
                                                 httplib::Response& res,
                                                 const httplib::ContentReader& read) {
  const size_t limit = static_cast<size_t>(options_.max_body_mb) << 20;
  std::string body;
  bool too_large = false;
  // Over the limit, the rest is read and dropped (up to 4 limits more), so that the client,
  // still sending, reads its 413 on a connection that stays good; beyond that it is cut.
  size_t dropped = 0;
  const bool whole = read([&](const char* data, size_t n) {
    too_large = too_large || body.size() + n > limit;
    if (!too_large) body.append(data, n);
    dropped += too_large ? n : 0;
    return dropped <= 4 * limit;
  });
  if (too_large || res.status == 413) {  // ours, or httplib's for a Content-Length over it
    sendError(res, httpError(req, 413, options_.max_body_mb));
    return std::nullopt;
  }
  if (!whole) {
    sendError(res,
              {400, "the request body ended before its length", "invalid_request_error", "", ""});
    return std::nullopt;
  }
  return body;
}

LocalServer::~LocalServer() {
  stop();
}

bool LocalServer::guard(const httplib::Request& req, httplib::Response& res) {
  if (closing_) {
    sendError(res, {503, "the server is stopping", "server_error", "", "server_stopping"});
    return true;
  }
  if (auto e = checkHost(host_, req.get_header_value("Host"))) {
    sendError(res, *e);
    return true;
  }
  if (req.method == "POST" && !req.has_header("Content-Length") &&
      req.get_header_value("Transfer-Encoding").find("chunked") == std::string::npos) {
    sendError(res, {411, "send the body's length: a Content-Length header (or a chunked body)",
                    "invalid_request_error", "", "length_required"});
    return true;
  }
  const std::string origin = req.get_header_value("Origin");
  const bool cors = originAllowed(options_.cors_origins, origin);
  if (!options_.cors_origins.empty()) res.set_header("Vary", "Origin");  // answers differ by it
  if (cors) {
    res.set_header("Access-Control-Allow-Origin", origin);
    res.set_header("Access-Control-Expose-Headers", "X-TokenScope-Truncated");
  }
  if (req.method == "OPTIONS" && req.has_header("Access-Control-Request-Method")) {  // preflight
    if (!cors) {
      sendError(res, {403,
                      "the origin '" + origin.substr(0, 100) +
                          "' may not call this server (serve --cors-origin ORIGIN allows one)",
                      "invalid_request_error", "", "origin_not_allowed"});
      return true;
    }
    res.status = 204;
    res.set_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
    // what the page's client asks to send (the OpenAI SDK adds x-stainless-* headers)
    const std::string asked = req.get_header_value("Access-Control-Request-Headers");
    res.set_header("Access-Control-Allow-Headers",
                   asked.empty() ? std::string("Authorization, Content-Type") : asked);
    res.set_header("Access-Control-Max-Age", "600");
    return true;
  }
  // /health answers without a key, as llama.cpp's and vLLM's servers do (load balancers and
  // container probes carry none); it says nothing about the conversations
  if (options_.api_key.empty() || req.path == "/health") return false;
  if (sameSecret(req.get_header_value("Authorization"), "Bearer " + options_.api_key)) return false;
  sendError(res, {401,
                  req.has_header("Authorization")
                      ? "Incorrect API key provided"
                      : "Missing API key: send the header Authorization: Bearer <key>",
                  "invalid_request_error", "", "invalid_api_key"});
  return true;
}

void LocalServer::chat(const httplib::Request& req, const std::string& body,
                       httplib::Response& res) {
  // a field the request leaves out takes the model's generation_config.json suggestion
  auto parsed = parseChatCompletionRequest(body, requestDefaults(model_->generation));
  if (auto* e = std::get_if<ApiError>(&parsed)) return sendError(res, *e);
  ChatCompletionRequest request = std::get<ChatCompletionRequest>(std::move(parsed));
  if (!request.model.empty() && !servesModel(request.model))
    return sendError(res, {404,
                           "The model '" + request.model +
                               "' does not exist; this server serves '" + options_.model_name + "'",
                           "invalid_request_error", "model", "model_not_found"});
  PromptFit fit = fitPrompt(*scheduler_, request.messages, options_.chat,
                            model_->generation.roles(), request.max_tokens,
                            options_.default_max_tokens, options_.truncate_history, longest_piece_);
  if (fit.error) return sendError(res, *fit.error);
  if (!fit.dropped.empty()) res.set_header("X-TokenScope-Truncated", fit.dropped);
  auto job = std::make_shared<Job>();
  {
    std::lock_guard lock(mutex_);
    const int room = scheduler_->options().max_running + options_.max_queue;
    if (admitted_ >= room)
      return sendError(res, {429,
                             "the server is busy: " + std::to_string(admitted_) +
                                 " requests are running or waiting; try again shortly",
                             "rate_limit_exceeded", "", "rate_limit_exceeded"});
    ++admitted_;
    job->server = this;
  }
  job->start_ns = steadyNs();
  job->watch = watch_->watch(connectionSocket(req), &job->cancel);
  if (closing_) job->cancel = true;  // cancelAll came between guard() and the watch
  job->request = std::move(request);
  job->prompt = std::move(fit.prompt);
  job->max_tokens = fit.max_tokens;
  job->ids = {"chatcmpl-" + std::to_string(next_id_++), static_cast<long long>(std::time(nullptr)),
              options_.model_name};
  if (!job->request.stream) return answerWhole(job, res);
  res.set_header("Cache-Control", "no-cache");
  res.set_chunked_content_provider("text/event-stream",
                                   [this, job](size_t, httplib::DataSink& sink) {
                                     try {  // outside httplib's own try: nothing may escape
                                       return answerStreamed(job, sink);
                                     } catch (...) {
                                       return false;
                                     }
                                   });
}

engine::Result<engine::GenerationOutcome> LocalServer::run(
    Job& job, const std::function<bool(const std::string&)>& on_text) {
  engine::ScheduledRequest r;
  r.prompt = job.prompt;
  r.max_tokens = job.max_tokens;
  r.sampling = job.request.sampling;
  r.chat = options_.chat;
  r.user_token = model_->generation.roles().user;
  r.cancel = &job.cancel;
  const bool observed = static_cast<bool>(options_.on_request);
  return scheduler_->generate(r, [&](const engine::GeneratedToken& t) {
    if (observed) job.tokens.push_back({t.made_ns > 0 ? t.made_ns : steadyNs(), t.text, t.batch});
    return on_text(t.text);
  });
}

bool LocalServer::servesModel(const std::string& id) const {
  return id == options_.model_name ||
         std::find(options_.aliases.begin(), options_.aliases.end(), id) != options_.aliases.end();
}

void LocalServer::report(Job& job, const engine::GenerationOutcome& out, int status,
                         std::string error) {
  if (!options_.on_request) return;
  ServedRequest r;
  r.id = job.ids.id;
  r.model = job.request.model;
  r.messages = job.request.messages;
  r.stream = job.request.stream;
  r.max_tokens = job.request.max_tokens;
  r.max_tokens_used = job.max_tokens;
  r.sampling = job.request.sampling;
  r.seed_given = job.request.seed_given;
  r.start_ns = job.start_ns;
  r.end_ns = steadyNs();
  r.tokens = std::move(job.tokens);
  r.text = out.text;
  if (r.text.empty())  // failed mid-way: what had been generated
    for (const ServedToken& t : r.tokens) r.text += t.text;
  r.prompt_tokens = static_cast<int>(job.prompt.size());
  r.completion_tokens = !out.ids.empty() ? static_cast<int>(out.ids.size())
                                         : static_cast<int>(r.tokens.size());  // failed mid-way
  r.cached_tokens = out.cached_tokens;
  r.finish = error.empty() ? out.finish : "error";
  r.error = std::move(error);
  r.status = status;
  try {
    options_.on_request(r);
  } catch (...) {  // an observer's failure is not the client's
  }
}

void LocalServer::answerWhole(const std::shared_ptr<Job>& job, httplib::Response& res) {
  auto outcome = run(*job, [](const std::string&) { return true; });
  if (!outcome) {
    report(*job, {}, 500, outcome.error());
    return sendError(res, {500, "the engine failed: " + outcome.error(), "server_error", "", ""});
  }
  const engine::GenerationOutcome& out = outcome.value();
  if (out.finish == "cancelled") {  // nobody to answer (or the server stops)
    report(*job, out, 503);
    return sendError(res, {503, "the request was cancelled", "server_error", "", "cancelled"});
  }
  ++completed_;
  res.set_content(completionJson(job->ids, out.text, out.finish,
                                 {static_cast<int>(job->prompt.size()),
                                  static_cast<int>(out.ids.size()), out.cached_tokens}),
                  "application/json");
  report(*job, out, 200);
}

bool LocalServer::answerStreamed(const std::shared_ptr<Job>& job, httplib::DataSink& sink) {
  bool first = true;
  auto outcome = run(*job, [&](const std::string& text) {
    if (text.empty()) return true;  // a token mid-character; a gone client: ConnectionWatch
    const bool ok = writeEvent(sink, chunkJson(job->ids, text, first, ""));
    first = false;
    return ok;
  });
  if (!outcome) {  // the status line (200) went with the first chunk: the error is the last event
    report(*job, {}, 500, outcome.error());
    writeEvent(
        sink,
        ApiError{500, "the engine failed: " + outcome.error(), "server_error", "", ""}.body());
    sink.done();
    return false;
  }
  const engine::GenerationOutcome& out = outcome.value();
  if (out.finish == "cancelled") {  // the client went away (or the server stops)
    report(*job, out, 200);         // the stream had begun with 200
    return false;
  }
  writeEvent(sink, chunkJson(job->ids, "", first, out.finish));
  if (job->request.include_usage)
    writeEvent(sink,
               usageChunkJson(job->ids, {static_cast<int>(job->prompt.size()),
                                         static_cast<int>(out.ids.size()), out.cached_tokens}));
  writeEvent(sink, "[DONE]");
  ++completed_;
  sink.done();
  report(*job, out, 200);
  return true;
}

int LocalServer::admittedRequests() {
  std::lock_guard lock(mutex_);
  return admitted_;
}

int LocalServer::bind(const std::string& host, int port) {
  host_ = host;
  const int bound = port == 0                         ? http_->bind_to_any_port(host)
                    : http_->bind_to_port(host, port) ? port
                                                      : -1;
  if (bound > 0) http_->widenBacklog(SOMAXCONN);
  port_ = bound;
  return bound;
}

bool LocalServer::start() {
  return http_->startListening();
}

void LocalServer::cancelAll() {
  closing_ = true;
  watch_->cancelAll();
}

void LocalServer::stop() {
  if (!http_) return;
  // After cancelAll nothing is owed to anyone: connections still being read (a client that
  // trickles its request) or idle between requests are shut, so the stop does not wait on them.
  http_->stopListening([this] {
    if (closing_ && port_ > 0) shutdownConnections(port_);
  });
}

}  // namespace ts::server
