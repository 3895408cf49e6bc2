// A LocalServer for a loaded model: one decoding session on the chosen backend, run by the
// model's scheduler (continuous batching, paged KV with a prefix cache). Shared by
// `tokenscope-cli serve` and by `bench --model-path`, which serves the model in-process
// and benchmarks it over HTTP.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "app/server/local_server.h"
#include "inference/engine/decode/open_session.h"
#include "inference/engine/serving/kv_budget.h"
#include "inference/engine/serving/scheduler.h"

namespace ts::server {

struct ServedModel {
  std::unique_ptr<LocalServer> server;
  std::shared_ptr<engine::Scheduler> scheduler;
  std::string backend;  // "cpu (CPU, 8 threads)", "cuda (NVIDIA H200)"
  std::string note;     // why the CPU runs when CUDA was asked for
  int positions = 0;    // KV positions per sequence
};

// The model's vocabulary; for a file that carries none (random weights), each id named
// "<id>", so that answers stream visible tokens (and clients can time them) instead of
// empty text.
engine::Vocabulary servedVocabulary(const engine::Model& model);

// The scheduling options with the KV pool sized (kv_blocks) by engine::planKvPool from
// kv_memory_mb, kv_blocks or the default, checked against the memory available now.
engine::Result<engine::SchedulerOptions> sizedKvPool(const engine::Model& model,
                                                     engine::KvFormat kv, int positions,
                                                     engine::SchedulerOptions scheduling);

// Opens a new session like the first for SchedulerOptions::reopen: after a CUDA fault the
// scheduler lets the failed session go and the next requests run on this one.
std::function<engine::Result<std::unique_ptr<engine::DecodeSession>>()> reopenerFor(
    std::shared_ptr<engine::Model> model, int positions, engine::KvFormat kv,
    const engine::BackendRequest& backend);

// context 0: the model's (engine::defaultPositions). The scheduler reopens a failed
// session (reopenerFor).
engine::Result<ServedModel> serveModel(std::shared_ptr<engine::Model> model, int context,
                                       engine::KvFormat kv, const engine::BackendRequest& backend,
                                       const engine::SchedulerOptions& scheduling,
                                       ServerOptions options);

// How the scheduler runs, for the command's first line: "8 running, chunks of 256, 512
// tokens per step, 256 KV blocks of 32" (or "one at a time" without paged KV).
std::string describeScheduling(const engine::Scheduler& scheduler);

}  // namespace ts::server
