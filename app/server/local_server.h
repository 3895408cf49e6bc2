// An OpenAI-compatible HTTP server on the local engine (cpp-httplib): GET /v1/models,
// POST /v1/chat/completions streamed (SSE) or not, usage and stream_options, a bearer key
// when one is configured (401 otherwise), 400 with an OpenAI-style error body for bad
// requests, 404 for another model; GET /health and GET /metrics (Prometheus text). Sampling
// fields a request leaves out take the model's generation_config.json suggestions, and the
// chat template uses its role tokens (engine::GenerationDefaults). Every
// generation runs on the model's scheduler (engine/serving/scheduler.h): continuous
// batching of up to max_running requests, a prefix cache shared by all of them
// (usage.prompt_tokens_details.cached_tokens); requests beyond those wait there, at most
// `max_queue` of them (429 beyond). A client that disconnects stops its generation within
// one token.
#pragma once
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "inference/engine/model/model.h"
#include "inference/engine/serving/scheduler.h"

namespace ts::server {

class HttpServer;  // httplib::Server with a wider listen backlog

struct ServerOptions {
  std::string model_name;  // the id /v1/models lists and requests name
  std::string api_key;     // empty: no authentication
  bool chat = true;        // Baichuan chat template (else plain completion of the messages)
  int default_max_tokens = 256;
  int max_queue = 16;  // requests waiting beyond the running ones
};

class LocalServer {
 public:
  // The scheduler runs `model` (it may serve others too: the app's chat).
  LocalServer(std::shared_ptr<const engine::Model> model,
              std::shared_ptr<engine::Scheduler> scheduler, ServerOptions options);
  ~LocalServer();

  // Binds host:port (port 0: any free port); returns the port, or -1 when binding failed.
  int bind(const std::string& host, int port);
  // Serves on a thread of its own; returns once connections are accepted (false: the
  // loop ended at once). stop() ends it and waits for requests in progress; it is safe
  // at any time, and the destructor calls it.
  bool start();
  void stop();

  int completedRequests() const { return completed_.load(); }
  int admittedRequests();  // running + waiting now

 private:
  struct Job;

  std::shared_ptr<const engine::Model> model_;
  std::shared_ptr<engine::Scheduler> scheduler_;
  ServerOptions options_;
  std::unique_ptr<HttpServer> http_;

  std::mutex mutex_;
  int admitted_ = 0;  // running + waiting
  std::atomic<uint64_t> next_id_{1};
  std::atomic<int> completed_{0};
};

// Whether a model's vocabulary carries the Baichuan chat tokens (architecture baichuan and
// token 196 present): the server and the app use the chat template for it.
bool isChatModel(const engine::Model& model);

}  // namespace ts::server
