#pragma once
#include <QStringList>

namespace ts {

// tokenscope-cli serve --model PATH [--host 127.0.0.1] [--port N] [--api-key-env VAR]
// [--model-name NAME] [--chat auto|on|off] [--parallel N] [--max-queue N] [--context N]
// [--max-tokens N] [engine options]: an OpenAI-compatible server on the local engine.
int runServeCommand(const QStringList& args);

}  // namespace ts
