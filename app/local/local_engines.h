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

// A loaded engine whose session runs behind its scheduler, shared by the chat and Serve.
struct SharedEngine : LocalEngine {
  std::shared_ptr<engine::Scheduler> scheduler;
};

// The engine of `spec`, shared when it runs already, else loaded (`progress` as
// loadLocalEngine's). Null with `error` set when it cannot run.
std::shared_ptr<SharedEngine> sharedLocalEngine(const LocalEngineSpec& spec, QString& error,
                                                const engine::LoadProgress& progress = {});

}  // namespace ts
