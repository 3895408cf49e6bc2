// `tokenscope-cli config`: show the effective configuration with the source of every
// value, check a file, or export the effective configuration as settings.json / config.toml.
#pragma once
#include <QStringList>

namespace ts {
int runConfigCommand(const QStringList& args);
}  // namespace ts
