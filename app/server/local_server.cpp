#include "app/server/local_server.h"

#include <ctime>

#include "app/server/chat_api.h"
#include "app/server/http_server.h"
#include "app/server/metrics_text.h"
#include "inference/engine/tokenizer/chat_template.h"

namespace ts::server {

namespace {

void sendError(httplib::Response& res, const ApiError& e) {
  res.status = e.status;
  res.set_content(e.body(), "application/json");
}

bool writeEvent(httplib::DataSink& sink, const std::string& data) {
  const std::string event = "data: " + data + "\n\n";
  return sink.write(event.data(), event.size());
}

}  // namespace

bool isChatModel(const engine::Model& model) {
  return model.config.architecture == "baichuan" &&
         model.config.vocab > engine::kBaichuanAssistantToken;
}

// One admitted request: holds its place in the admission count until every copy of it
// (the handler's and httplib's content provider's) is gone.
struct LocalServer::Job {
  LocalServer* server;
  ChatCompletionRequest request;
  std::vector<int> prompt;
  int max_tokens = 0;
  CompletionIds ids;
  ~Job() {
    if (!server) return;  // refused at admission
    std::lock_guard lock(server->mutex_);
    --server->admitted_;
  }
};

LocalServer::LocalServer(std::shared_ptr<const engine::Model> model,
                         std::shared_ptr<engine::Scheduler> scheduler, ServerOptions options)
    : model_(std::move(model)),
      scheduler_(std::move(scheduler)),
      options_(std::move(options)),
      http_(std::make_unique<HttpServer>()) {
  const int running = scheduler_->options().max_running;
  // A thread per admitted connection: each waits in the scheduler for its tokens.
  const int threads = running + options_.max_queue + 8;
  http_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };

  http_->set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    // /health answers without a key, as llama.cpp's and vLLM's servers do (load balancers and
    // container probes carry none); it says nothing about the conversations
    if (options_.api_key.empty() || req.path == "/health")
      return httplib::Server::HandlerResponse::Unhandled;
    if (req.get_header_value("Authorization") == "Bearer " + options_.api_key)
      return httplib::Server::HandlerResponse::Unhandled;
    sendError(res, {401,
                    req.has_header("Authorization")
                        ? "Incorrect API key provided"
                        : "Missing API key: send the header Authorization: Bearer <key>",
                    "invalid_request_error", "", "invalid_api_key"});
    return httplib::Server::HandlerResponse::Handled;
  });

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

  http_->Post("/v1/chat/completions", [this, running](const httplib::Request& req,
                                                      httplib::Response& res) {
    // a field the request leaves out takes the model's generation_config.json suggestion
    auto parsed = parseChatCompletionRequest(req.body, requestDefaults(model_->generation));
    if (auto* e = std::get_if<ApiError>(&parsed)) return sendError(res, *e);
    ChatCompletionRequest request = std::get<ChatCompletionRequest>(std::move(parsed));
    const engine::ChatRoles roles = model_->generation.roles();
    if (!request.model.empty() && request.model != options_.model_name)
      return sendError(res,
                       {404,
                        "The model '" + request.model + "' does not exist; this server serves '" +
                            options_.model_name + "'",
                        "invalid_request_error", "model", "model_not_found"});
    const int context = scheduler_->context();
    const int wanted = request.max_tokens.value_or(options_.default_max_tokens);
    const std::vector<int> prompt = engine::conversationPrompt(
        scheduler_->tokenizer(), request.messages, options_.chat, context - 1, roles);
    if (prompt.empty() || static_cast<int>(prompt.size()) >= context)
      return sendError(
          res, {400,
                "the prompt has " + std::to_string(prompt.size()) + " tokens; the context holds " +
                    std::to_string(context) + " (prompt and answer together)",
                "invalid_request_error", "messages", "context_length_exceeded"});
    auto job = std::make_shared<Job>();
    job->server = this;
    {
      std::lock_guard lock(mutex_);
      if (admitted_ >= running + options_.max_queue) {
        job->server = nullptr;  // not admitted: nothing to give back
        return sendError(res, {429,
                               "the server is busy: " + std::to_string(admitted_) +
                                   " requests are running or waiting; try again shortly",
                               "rate_limit_exceeded", "", "rate_limit_exceeded"});
      }
      ++admitted_;
    }
    job->request = std::move(request);
    job->prompt = std::move(prompt);
    job->max_tokens = std::min(wanted, context - static_cast<int>(job->prompt.size()));
    job->ids = {"chatcmpl-" + std::to_string(next_id_++),
                static_cast<long long>(std::time(nullptr)), options_.model_name};
    const auto run = [this, job](const std::function<bool(const std::string&)>& on_text) {
      engine::ScheduledRequest r;
      r.prompt = job->prompt;
      r.max_tokens = job->max_tokens;
      r.sampling = job->request.sampling;
      r.chat = options_.chat;
      r.user_token = model_->generation.roles().user;
      return scheduler_->generate(r,
                                  [&](const engine::GeneratedToken& t) { return on_text(t.text); });
    };
    if (!job->request.stream) {
      engine::GenerationOutcome out;
      try {
        out = run([](const std::string&) { return true; });
      } catch (const std::exception& e) {
        return sendError(
            res, {500, std::string("the engine failed: ") + e.what(), "server_error", "", ""});
      }
      ++completed_;
      res.set_content(completionJson(job->ids, out.text, out.finish,
                                     {static_cast<int>(job->prompt.size()),
                                      static_cast<int>(out.ids.size()), out.cached_tokens}),
                      "application/json");
      return;
    }
    res.set_header("Cache-Control", "no-cache");
    res.set_chunked_content_provider(
        "text/event-stream", [this, job, run](size_t, httplib::DataSink& sink) {
          bool first = true;
          engine::GenerationOutcome out;
          try {
            out = run([&](const std::string& text) {
              if (text.empty()) return sink.is_writable();
              const bool ok = writeEvent(sink, chunkJson(job->ids, text, first, ""));
              first = false;
              return ok;
            });
          } catch (const std::exception& e) {
            writeEvent(sink, ApiError{500, std::string("the engine failed: ") + e.what(),
                                      "server_error", "", ""}
                                 .body());
            sink.done();
            return false;
          }
          if (out.finish == "cancelled") return false;  // the client went away
          writeEvent(sink, chunkJson(job->ids, "", first, out.finish));
          if (job->request.include_usage)
            writeEvent(sink, usageChunkJson(job->ids,
                                            {static_cast<int>(job->prompt.size()),
                                             static_cast<int>(out.ids.size()), out.cached_tokens}));
          writeEvent(sink, "[DONE]");
          ++completed_;
          sink.done();
          return true;
        });
  });
}

LocalServer::~LocalServer() {
  stop();
}

int LocalServer::admittedRequests() {
  std::lock_guard lock(mutex_);
  return admitted_;
}

int LocalServer::bind(const std::string& host, int port) {
  const int bound = port == 0                         ? http_->bind_to_any_port(host)
                    : http_->bind_to_port(host, port) ? port
                                                      : -1;
  if (bound > 0) http_->widenBacklog(SOMAXCONN);
  return bound;
}

bool LocalServer::start() {
  return http_->startListening();
}

void LocalServer::stop() {
  if (http_) http_->stopListening();
}

}  // namespace ts::server
