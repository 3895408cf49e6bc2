#include "app/cli/config_command.h"

#include <QCommandLineParser>
#include <QJsonDocument>
#include <QJsonObject>
#include <cstdio>

#include "app/cli/common.h"
#include "app/config/config_schema.h"

namespace ts {
namespace {

QString valueText(const QVariant& v) {
  if (v.typeId() == QMetaType::Bool) return v.toBool() ? "true" : "false";
  if (v.typeId() == QMetaType::QString) return "\"" + v.toString() + "\"";
  return v.toString();
}

int show(const QCommandLineParser& p) {
  config::EffectiveConfig cfg;
  const bool valid = loadConfig(p, "config show", cfg);
  if (p.isSet("json")) {
    QJsonObject values;
    for (const auto& f : config::fields()) {
      const auto e = cfg.entry(f.key);
      values.insert(f.key, QJsonObject{{"value", QJsonValue::fromVariant(e.value)},
                                       {"source", config::sourceName(e.source)},
                                       {"origin", e.origin},
                                       {"env", f.env}});
    }
    const QJsonObject out{
        {"config_file", cfg.configFile.isEmpty() ? QJsonValue() : QJsonValue(cfg.configFile)},
        {"valid", valid},
        {"values", values}};
    std::printf("%s", QJsonDocument(out).toJson(QJsonDocument::Indented).constData());
    return valid ? 0 : 2;
  }
  printOut(cfg.configFile.isEmpty() ? QString("Configuration file: none found")
                                    : "Configuration file: " + cfg.configFile);
  for (const auto& f : config::fields())
    printOut(QString("%1 = %2   [%3]")
                 .arg(QString(f.key).leftJustified(24),
                      valueText(cfg.value(f.key)).leftJustified(28), cfg.describeSource(f.key)));
  return valid ? 0 : 2;
}

}  // namespace

int runConfigCommand(const QStringList& args) {
  QCommandLineParser p;
  p.setApplicationDescription(
      "tokenscope-cli config show [--config FILE] [--json]\n"
      "    every effective value and where it came from (default < file < environment)\n"
      "tokenscope-cli config check FILE\n"
      "    validate a settings.json or config.toml; errors give line and column\n"
      "tokenscope-cli config export --out FILE [--config FILE]\n"
      "    write the effective configuration (.json or .toml by extension; never a key)");
  p.addHelpOption();
  addConfigOption(p);
  p.addOptions({{"json", "JSON output (show)."}, {"out", "File to write (export).", "FILE"}});
  p.addPositionalArgument("action", "show | check | export");
  QStringList argv = args;
  argv.prepend("tokenscope-cli config");
  if (!p.parse(argv)) {
    printErr(p.errorText());
    return 2;
  }
  const QStringList pos = p.positionalArguments();
  if (p.isSet("help") || pos.isEmpty()) {
    std::printf("%s", p.helpText().toLocal8Bit().constData());
    return pos.isEmpty() && !p.isSet("help") ? 2 : 0;
  }
  const QString action = pos.first();
  if (action == "show") return show(p);
  if (action == "check") {
    if (pos.size() < 2) {
      printErr("tokenscope-cli config check: expected a file name");
      return 2;
    }
    const config::ConfigFile file = config::readConfigFile(pos[1]);
    for (const QString& w : file.warnings) printErr("warning: " + w);
    if (!file.ok()) {
      printErr(file.errorText());
      return 1;
    }
    printOut(QString("%1: valid (%2 settings)").arg(pos[1]).arg(file.values.size()));
    return 0;
  }
  if (action == "export") {
    if (!p.isSet("out")) {
      printErr("tokenscope-cli config export: expected --out FILE (.json or .toml)");
      return 2;
    }
    config::EffectiveConfig cfg;
    if (!loadConfig(p, "config export", cfg)) return 2;
    const QString error = config::writeConfigFile(p.value("out"), cfg.values());
    if (!error.isEmpty()) {
      printErr("tokenscope-cli config export: " + error);
      return 1;
    }
    printOut("wrote " + p.value("out"));
    return 0;
  }
  printErr(QString("tokenscope-cli config: unknown action '%1'; expected show, check or export")
               .arg(action));
  return 2;
}

}  // namespace ts
