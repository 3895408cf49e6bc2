// `tokenscope-cli convert`: writes our GGUF (or a Hugging Face safetensors folder) from any
// model the engine reads, or a model with seeded random weights in a named shape.
#pragma once
#include <QStringList>

namespace ts {
int runConvertCommand(const QStringList& args);
}  // namespace ts
