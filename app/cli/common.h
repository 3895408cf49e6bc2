// Pieces every tokenscope-cli command shares: the --config option and its resolution.
#pragma once
#include <QCommandLineParser>
#include <QString>
#include <optional>

#include "app/config/effective_config.h"

namespace ts {

void printErr(const QString& text);
void printOut(const QString& text);

// Adds --help and parses `args` as "tokenscope-cli COMMAND ...". Returns the exit code
// when the command is already done: 2 after printing what is wrong with the command line,
// 0 after printing --help; nullopt when the command should run.
std::optional<int> parseCommandLine(QCommandLineParser& parser, const QStringList& args,
                                    const char* command);

// Adds --config FILE (settings.json or config.toml).
void addConfigOption(QCommandLineParser& parser);

// Defaults < config file < TOKENSCOPE_* environment. Returns false (after printing what
// is wrong, with line and column) when the config file or the environment is invalid.
bool loadConfig(const QCommandLineParser& parser, const char* command,
                config::EffectiveConfig& out);

}  // namespace ts
