#include "app/cli/common.h"

#include <cstdio>

namespace ts {

void printErr(const QString& text) {
  std::fprintf(stderr, "%s\n", text.toLocal8Bit().constData());
}
void printOut(const QString& text) {
  std::printf("%s\n", text.toLocal8Bit().constData());
}

void addConfigOption(QCommandLineParser& parser) {
  parser.addOption({"config",
                    "Configuration file (settings.json or config.toml). Default: "
                    "$TOKENSCOPE_CONFIG, ./config.toml, ./settings.json, then the user's "
                    "config directory.",
                    "FILE"});
}

bool loadConfig(const QCommandLineParser& parser, const char* command,
                config::EffectiveConfig& out) {
  config::ConfigFile file;
  QList<config::ConfigIssue> env_issues;
  out = config::resolveConfig(parser.value("config"), QProcessEnvironment::systemEnvironment(),
                              &file, &env_issues);
  bool ok = true;
  if (!file.path.isEmpty() && !file.ok()) {
    printErr(QString("tokenscope-cli %1: the configuration file has errors and was not used:\n%2")
                 .arg(command, file.errorText()));
    ok = false;
  }
  for (const auto& issue : env_issues) {
    printErr(QString("tokenscope-cli %1: %2").arg(command, issue.message));
    ok = false;
  }
  for (const QString& w : file.warnings) printErr(QString("warning: %1: %2").arg(file.path, w));
  return ok;
}

std::optional<int> parseCommandLine(QCommandLineParser& p, const QStringList& args,
                                    const char* command) {
  p.addHelpOption();
  QStringList argv = args;
  argv.prepend(QString("tokenscope-cli ") + command);
  if (!p.parse(argv)) {
    printErr(p.errorText() + QString("\nSee: tokenscope-cli %1 --help").arg(command));
    return 2;
  }
  if (p.isSet("help")) {
    std::printf("%s", p.helpText().toLocal8Bit().constData());
    return 0;
  }
  return std::nullopt;
}

}  // namespace ts
