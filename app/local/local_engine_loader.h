// Loading what a local provider runs, for the chat worker, serving from the app and the
// model manager: the model (the demo model is created first when the provider names it)
// in the chosen weight format -- shared through LoadedModels when it is already loaded --
// and a decoding session on the chosen backend.
#pragma once
#include <QString>
#include <memory>

#include "inference/engine/backend/decode_session.h"
#include "inference/engine/decode/open_session.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/model/kv_cache.h"
#include "inference/engine/model/model.h"
#include "inference/stream/provider_settings.h"

namespace ts {

// What a local provider runs: the model file or folder (the provider's base_url field)
// and the engine settings.
struct LocalEngineSpec {
  QString model_path;
  LocalEngineSettings engine;
  bool operator==(const LocalEngineSpec&) const = default;
};
LocalEngineSpec localSpecFor(const ProviderSettings& provider);

// What a local engine runs: the model and how (its session goes to a scheduler).
struct LocalEngine {
  std::shared_ptr<engine::Model> model;
  engine::KvFormat kv = engine::KvFormat::F32;
  int threads = 1;
  QString backend;       // what runs it: "cpu" or "cuda"
  QString backend_note;  // why CUDA was not used, when it was asked for
};

// The model of `spec` (from LoadedModels, else read from its file and registered there).
// `progress` as engine::LoadOptions::progress (returning false cancels: the error is then
// exactly engine::kLoadCancelled). Null with `error` set when it cannot be loaded.
std::shared_ptr<engine::Model> loadLocalModel(const LocalEngineSpec& spec, QString& error,
                                              const engine::LoadProgress& progress = {});

// The backend, CPU threads (0: one per core) and CUDA device a provider's settings ask for.
engine::BackendRequest backendRequestFor(const LocalEngineSettings& settings);

// Fills `out` and opens `session` on its model; returns "" or why the model cannot run.
QString loadLocalEngine(const LocalEngineSpec& spec, LocalEngine& out,
                        std::unique_ptr<engine::DecodeSession>& session,
                        const engine::LoadProgress& progress = {});

}  // namespace ts
