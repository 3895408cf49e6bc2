// Loading what a local provider runs, for the chat worker and for serving from the app:
// the model (the demo model is created first when the provider names it) in the chosen
// weight format, and a decoding session on the chosen backend.
#pragma once
#include <QString>
#include <memory>

#include "inference/engine/decode_session.h"
#include "inference/engine/kv_cache.h"
#include "inference/engine/model.h"
#include "inference/stream/provider_settings.h"

namespace ts {

// What a local provider runs: the model file or folder (the provider's base_url field)
// and the engine settings.
struct LocalEngineSpec {
  QString model_path;
  QString weights = "f32";   // f32 | f16 | int8 | int4 | q8_0
  QString kv = "f32";        // f32 | f16 | int8
  QString backend = "auto";  // cpu | cuda | auto
  int threads = 0;           // 0: one per core
  int context = 0;           // KV positions; 0: the model's context, at most 4096
  bool operator==(const LocalEngineSpec&) const = default;
};
LocalEngineSpec localSpecFor(const ProviderSettings& provider);

struct LocalEngine {
  std::shared_ptr<engine::Model> model;
  std::unique_ptr<engine::DecodeSession> session;
  engine::KvFormat kv = engine::KvFormat::F32;
  int threads = 1;
  QString backend_note;  // why CUDA was not used, when it was asked for
};

// Fills `out`; returns "" or why the model cannot run.
QString loadLocalEngine(const LocalEngineSpec& spec, LocalEngine& out);

}  // namespace ts
