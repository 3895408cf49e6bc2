// An OpenAI-compatible HTTP server on the local engine (cpp-httplib): GET /v1/models,
// POST /v1/chat/completions streamed (SSE) or not, usage and stream_options, a bearer key
// when one is configured (401 otherwise), 400 with an OpenAI-style error body for bad
// requests, 404 for another model. Generations run on `parallel` engine sessions; further
// requests wait in arrival order, at most `max_queue` of them (429 beyond). A client that
// disconnects stops its generation within one token. Each session keeps its KV cache
// between requests: a request whose prompt extends what a free session holds goes to that
// session and prefills only the rest (usage.prompt_tokens_details.cached_tokens).
#pragma once
#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "inference/engine/backend/decode_session.h"
#include "inference/engine/model/model.h"
#include "inference/engine/tokenizer/tokenizer.h"

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
  // sessions: one per generation that may run at the same time (all on `model`).
  LocalServer(std::shared_ptr<const engine::Model> model,
              std::vector<std::unique_ptr<engine::DecodeSession>> sessions, ServerOptions options);
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
  // A session and the tokens its KV cache holds (generate() keeps them).
  struct Slot {
    std::unique_ptr<engine::DecodeSession> session;
    std::vector<int> held;
  };
  // Waits for its turn and a free slot; takes the one sharing the longest prefix with
  // `prompt`.
  Slot* acquire(uint64_t ticket, const std::vector<int>& prompt);
  void release(Slot* slot);

  std::shared_ptr<const engine::Model> model_;
  engine::Tokenizer tokenizer_;
  std::vector<std::unique_ptr<Slot>> slots_;
  ServerOptions options_;
  std::unique_ptr<HttpServer> http_;

  std::mutex mutex_;
  std::condition_variable turn_;
  std::vector<Slot*> free_;       // in release order: the front was used longest ago
  std::deque<uint64_t> waiting_;  // tickets in arrival order
  uint64_t next_ticket_ = 0;
  int admitted_ = 0;  // running + waiting
  std::atomic<uint64_t> next_id_{1};
  std::atomic<int> completed_{0};
};

// Whether a model's vocabulary carries the Baichuan chat tokens (architecture baichuan and
// token 196 present): the server and the app use the chat template for it.
bool isChatModel(const engine::Model& model);

}  // namespace ts::server
