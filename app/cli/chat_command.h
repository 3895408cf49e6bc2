// `tokenscope-cli chat`: one request to an OpenAI-compatible endpoint, measured.
#pragma once
#include <QStringList>

namespace ts {
// args: everything after "chat". Returns the process exit code: 0 success, 1 the run
// failed, 2 bad command line.
int runChatCommand(const QStringList& args);
}  // namespace ts
