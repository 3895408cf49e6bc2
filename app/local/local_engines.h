// One running engine per local provider setting (model file, runtime weights, KV format,
// backend, device, threads, context): the model and its scheduler, which every generation
// on it goes through -- the chat and Provider → Serve the local model alike, so that they
// batch together and share one prefix cache. Alive while someone holds it; thread-safe
// (loads run off the GUI thread).
#pragma once
#include <QString>
#include <memory>

#include "app/local/local_engine_loader.h"
#include "inference/engine/serving/scheduler.h"

namespace ts {

struct SharedEngine {
  std::shared_ptr<engine::Model> model;
  std::shared_ptr<engine::Scheduler> scheduler;
  engine::KvFormat kv = engine::KvFormat::F16;
  int threads = 1;
  QString backend_note;  // why CUDA was not used, when it was asked for
};

// The engine of `spec`, shared when it runs already, else loaded (`progress` as
// loadLocalEngine's). Null with `error` set when it cannot run.
std::shared_ptr<SharedEngine> sharedLocalEngine(const LocalEngineSpec& spec, QString& error,
                                                const engine::LoadProgress& progress = {});

}  // namespace ts
