// Pieces every tokenscope-cli command shares: the --config option and its resolution.
#pragma once
#include <QCommandLineParser>
#include <QString>

#include "app/config/effective_config.h"

namespace ts {

void printErr(const QString& text);
void printOut(const QString& text);

// Adds --help and parses `args` as "tokenscope-cli COMMAND ..."; on a bad command line
// prints the parser's error and where to look, and returns false.
bool parseCommandLine(QCommandLineParser& parser, const QStringList& args, const char* command);

// Adds --config FILE (settings.json or config.toml).
void addConfigOption(QCommandLineParser& parser);

// Defaults < config file < TOKENSCOPE_* environment. Returns false (after printing what
// is wrong, with line and column) when the config file or the environment is invalid.
bool loadConfig(const QCommandLineParser& parser, const char* command,
                config::EffectiveConfig& out);

}  // namespace ts
