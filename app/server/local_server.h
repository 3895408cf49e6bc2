// An OpenAI-compatible HTTP server on the local engine (cpp-httplib): GET /v1/models,
// POST /v1/chat/completions streamed (SSE) or not, usage and stream_options, a bearer key
// when one is configured (401 otherwise), 400 with an OpenAI-style error body for bad
// requests, 404 for another model; GET /health and GET /metrics (Prometheus text); every
// error an OpenAI-shaped JSON body (unknown paths, bodies over max_body_mb, prompts over
// the context or the KV pool, failures). Browsers: POST bodies must be application/json,
// the Host must be this machine's when it listens on loopback, and only listed origins get
// CORS headers. Sampling
// fields a request leaves out take the model's generation_config.json suggestions, and the
// chat template uses its role tokens (engine::GenerationDefaults). Every
// generation runs on the model's scheduler (engine/serving/scheduler.h): continuous
// batching of up to max_running requests, a prefix cache shared by all of them
// (usage.prompt_tokens_details.cached_tokens); requests beyond those wait there, at most
// `max_queue` of them (429 beyond). A client that disconnects, streamed or not, running or
// waiting, cancels its request within one scheduler step (ConnectionWatch).
#pragma once
#include <httplib.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <functional>

#include "app/server/served_request.h"
#include "inference/engine/model/model.h"
#include "inference/engine/serving/scheduler.h"

namespace ts::server {

class HttpServer;  // httplib::Server with a wider listen backlog
class ConnectionWatch;

struct ServerOptions {
  std::string model_name;  // the id /v1/models lists and requests name
  std::string api_key;     // empty: no authentication (compared in constant time)
  bool chat = true;        // Baichuan chat template (else plain completion of the messages)
  int default_max_tokens = 256;
  int max_queue = 16;   // requests waiting beyond the running ones (engine::kQueueBound)
  int max_body_mb = 8;  // larger request bodies get 413 (engine::kMaxBodyMbBound)
  // Origins whose pages may call the server (CORS headers, preflight answered); none by
  // default: a browser page then cannot read any answer.
  std::vector<std::string> cors_origins;
  // A conversation longer than the context loses its oldest rounds (the response header
  // X-TokenScope-Truncated says how many messages and tokens), instead of a 400
  // context_length_exceeded: for chat UIs that send the whole history.
  bool truncate_history = false;
  // Other ids requests may name for this model (the app answers to "local", the id its
  // "TokenScope local server" preset asks for); /v1/models lists model_name only.
  std::vector<std::string> aliases;
  // Told of every admitted chat completion once it has ended (served_request.h); may be
  // empty. Runs on the request's thread.
  RequestObserver on_request;
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
  // Cancels every request in progress, running or waiting (each ends within one scheduler
  // step) and answers new ones 503; returns at once, from any thread. stop() then returns
  // within a step: it also shuts the connections still open (idle, or a client sending its
  // request slowly). The app's Serve off calls this on the GUI thread and stop() on another.
  void cancelAll();

  int completedRequests() const { return completed_.load(); }
  int admittedRequests();  // running + waiting now

 private:
  struct Job;
  // Answers what may not go further (stopping 503, foreign Host 403, CORS preflight, missing
  // or wrong key 401); false: the request goes on to its route.
  void configureHttp();  // threads, body limit, error and exception bodies, guard()
  void addRoutes();
  bool guard(const httplib::Request& req, httplib::Response& res);
  // The body, within max_body_mb; nullopt after answering 413 or 400.
  std::optional<std::string> readBody(const httplib::Request& req, httplib::Response& res,
                                      const httplib::ContentReader& read);
  // POST /v1/chat/completions with its body (read within max_body_mb)
  void chat(const httplib::Request& req, const std::string& body, httplib::Response& res);
  engine::Result<engine::GenerationOutcome> run(
      Job& job, const std::function<bool(const std::string&)>& on_text);
  // Tells options_.on_request how `job` ended.
  void report(Job& job, const engine::GenerationOutcome& out, int status, std::string error = {});
  bool servesModel(const std::string& id) const;
  void answerWhole(const std::shared_ptr<Job>& job, httplib::Response& res);
  bool answerStreamed(const std::shared_ptr<Job>& job, httplib::DataSink& sink);

  std::shared_ptr<const engine::Model> model_;
  std::shared_ptr<engine::Scheduler> scheduler_;
  ServerOptions options_;
  size_t longest_piece_ = 1;        // bytes of the vocabulary's longest piece (prompt_fit's bound)
  std::string host_ = "127.0.0.1";  // as bound
  int port_ = -1;
  std::unique_ptr<HttpServer> http_;
  std::unique_ptr<ConnectionWatch> watch_;
  std::atomic<bool> closing_{false};  // cancelAll: new requests get 503

  std::mutex mutex_;
  int admitted_ = 0;  // running + waiting
  std::atomic<uint64_t> next_id_{1};
  std::atomic<int> completed_{0};
};

// Whether `host` is a loopback address or name (127.0.0.0/8, ::1, localhost): only this
// machine can connect.
bool isLoopbackHost(const std::string& host);
// The warning to show, loudly, when a server binds beyond loopback without a key (anyone
// who can reach the address may generate); "" otherwise.
std::string exposureWarning(const std::string& host, bool has_key);

}  // namespace ts::server
