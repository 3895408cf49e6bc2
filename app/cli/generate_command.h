// `tokenscope-cli generate` and `tokenscope-cli tokenize`: the local engine from the
// command line (CPU reference backend, f32 weights for now).
#pragma once
#include <QStringList>

namespace ts {
int runGenerateCommand(const QStringList& args);
int runTokenizeCommand(const QStringList& args);
int runPplCommand(const QStringList& args);
}  // namespace ts
