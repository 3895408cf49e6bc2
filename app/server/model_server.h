// A LocalServer for a loaded model: `parallel` decoding sessions (each with its own KV
// cache) on the chosen backend. Shared by `tokenscope-cli serve` and by `bench
// --model-path`, which serves the model in-process and benchmarks it over HTTP.
#pragma once
#include <memory>
#include <string>

#include "app/server/local_server.h"
#include "inference/engine/decode/open_session.h"

namespace ts::server {

struct ServedModel {
  std::unique_ptr<LocalServer> server;
  std::string backend;  // "cpu (CPU, 8 threads)", "cuda (NVIDIA H200)"
  std::string note;     // why the CPU runs when CUDA was asked for
  int positions = 0;    // KV positions per session
};

// context 0: the model's (engine::defaultPositions).
engine::Result<ServedModel> serveModel(std::shared_ptr<engine::Model> model, int context,
                                       engine::KvFormat kv, const engine::BackendRequest& backend,
                                       int parallel, ServerOptions options);

}  // namespace ts::server
