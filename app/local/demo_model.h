// The ready default's model when no real one is present: a tiny Baichuan-architecture model
// with seeded random weights and a tokenizer trained by sentencepiece on TokenScope's own
// documentation (embedded in the app), written once as a GGUF in the data directory. Its
// text is noise; its speed, charts and metrics are real.
#pragma once
#include <QString>

#include "app/local/model_paths.h"
#include "inference/stream/provider_settings.h"

namespace ts {

// Creates the demo model at `path` when it does not exist yet. Returns "" or the error.
QString ensureDemoModel(const QString& path);
// The local provider a first start opens with: a downloaded model when one is there,
// else the demo model (created at its first message), clearly named as random weights.
ProviderSettings readyDefaultProvider();

}  // namespace ts
