// A loaded model served on 127.0.0.1 at a free port the system picks, for as long as the
// object lives: what `tokenscope-cli bench --model-path` and the benchmark dialog measure
// over HTTP, as any other client sees the model (continuous batching, the chat template for
// chat models). One place for what both did on their own: choose the template, size the KV
// pool, bind, start, and stop cleanly.
//
// The server's own types stay behind this header (app/desktop does not include app/server).
#pragma once
#include <QString>
#include <memory>
#include <string>

#include "inference/engine/core/result.h"
#include "inference/engine/decode/open_session.h"
#include "inference/engine/model/kv_cache.h"
#include "inference/engine/model/model.h"
#include "inference/engine/serving/scheduler.h"

namespace ts {
namespace server {
struct ServedModel;
}

struct FreePortServeSpec {
  std::shared_ptr<engine::Model> model;
  std::string model_name;  // the model id clients send (and /v1/models lists)
  int context = 0;         // positions per request; 0: the model's (engine::defaultPositions)
  engine::KvFormat kv = engine::KvFormat::F16;
  engine::BackendRequest backend;
  engine::SchedulerOptions scheduling;  // kv_blocks 0: the pool sized by memory
  int max_queue = 16;                   // requests waiting beyond the running ones before a 429
};

class FreePortServer {
 public:
  // Serving, or why not: the backend cannot open, the KV pool does not fit in memory, or
  // 127.0.0.1 has no port to listen on.
  static engine::Result<std::unique_ptr<FreePortServer>> start(const FreePortServeSpec& spec);
  ~FreePortServer();  // cancelAll(), then stop()
  FreePortServer(const FreePortServer&) = delete;
  FreePortServer& operator=(const FreePortServer&) = delete;

  QString baseUrl() const;  // "http://127.0.0.1:PORT" (no /v1)
  int port() const { return port_; }
  const std::string& backend() const;  // what runs: "cpu (CPU, 8 threads)", "cuda (…)"
  const std::string& note() const;     // why the CPU runs when CUDA was asked for; "" else
  std::string scheduling() const;      // "8 running, chunks of 256, …" (describeScheduling)
  int completedRequests() const;

  // What runs or waits ends within a scheduler step; new requests get 503.
  void cancelAll();
  // Closes the port and joins the serving thread once the open connections have closed (the
  // benchmark's clients close theirs first). Idempotent.
  void stop();

 private:
  explicit FreePortServer(std::unique_ptr<server::ServedModel> served);
  std::unique_ptr<server::ServedModel> served_;
  int port_ = -1;
};

}  // namespace ts
