// The local engine from the command line: `generate` (generate_command.cpp), `tokenize`
// (tokenize_command.cpp) and `ppl` (ppl_command.cpp).
#pragma once
#include <QStringList>

namespace ts {
int runGenerateCommand(const QStringList& args);
int runTokenizeCommand(const QStringList& args);
int runPplCommand(const QStringList& args);
}  // namespace ts
