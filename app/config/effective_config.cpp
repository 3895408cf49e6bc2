#include "app/config/effective_config.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QStandardPaths>

#include "app/config/config_schema.h"

namespace ts::config {

const char* sourceName(Source source) {
  switch (source) {
    case Source::Default:
      return "default";
    case Source::File:
      return "file";
    case Source::Environment:
      return "environment";
    case Source::UserInterface:
      return "ui";
    case Source::CommandLine:
      return "command-line";
  }
  return "default";
}

EffectiveConfig::EffectiveConfig() {
  for (const auto& f : fields()) entries_.insert(f.key, {f.fallback, Source::Default, {}});
}

void EffectiveConfig::apply(const ConfigValues& values, Source source, const QString& origin) {
  for (auto it = values.begin(); it != values.end(); ++it)
    if (entries_.contains(it.key())) entries_[it.key()] = {it.value(), source, origin};
}

QList<ConfigIssue> EffectiveConfig::applyEnvironment(const QProcessEnvironment& env) {
  QList<ConfigIssue> issues;
  for (const auto& f : fields()) {
    if (!env.contains(f.env)) continue;
    const QString text = env.value(f.env).trimmed();
    QVariant v = text;
    bool ok = true;
    if (f.type == FieldType::Int) {
      const qint64 n = text.toLongLong(&ok);
      if (ok) v = n;
    } else if (f.type == FieldType::Double) {
      const double d = text.toDouble(&ok);
      if (ok) v = d;
    } else if (f.type == FieldType::Bool) {
      const QString t = text.toLower();
      ok = t == "true" || t == "false" || t == "1" || t == "0";
      if (ok) v = t == "true" || t == "1";
    }
    const QString problem =
        ok ? checkValue(f, v)
           : QCoreApplication::translate("ts::config", "%1: expected %2, found '%3'")
                 .arg(f.key, expectedText(f), text);
    if (!problem.isEmpty()) {
      issues.append(
          {QCoreApplication::translate("ts::config", "environment %1: %2").arg(f.env, problem)});
      continue;
    }
    if (f.type == FieldType::Int) v = v.toInt();
    entries_[f.key] = {v, Source::Environment, f.env};
  }
  return issues;
}

ConfigValues EffectiveConfig::values() const {
  ConfigValues out;
  for (auto it = entries_.begin(); it != entries_.end(); ++it) out.insert(it.key(), it->value);
  return out;
}

QString EffectiveConfig::describeSource(const QString& key) const {
  const EffectiveValue e = entries_.value(key);
  switch (e.source) {
    case Source::Default:
      return QCoreApplication::translate("ts::config", "built-in default");
    case Source::File:
      return QCoreApplication::translate("ts::config", "config file ") + e.origin;
    case Source::Environment:
      return QCoreApplication::translate("ts::config", "environment variable ") + e.origin;
    case Source::UserInterface:
      return QCoreApplication::translate("ts::config", "set in the UI");
    case Source::CommandLine:
      return QCoreApplication::translate("ts::config", "command line ") + e.origin;
  }
  return {};
}

QString locateConfigFile(const QString& explicit_path, const QString& config_dir) {
  if (!explicit_path.isEmpty()) return explicit_path;
  const QString env = qEnvironmentVariable("TOKENSCOPE_CONFIG");
  if (!env.isEmpty()) return env;
  QStringList candidates{"config.toml", "settings.json"};
  if (!config_dir.isEmpty()) candidates << config_dir + "/config.toml";
  for (const QString& candidate : candidates) {
    if (QFileInfo(candidate).isFile()) return QFileInfo(candidate).filePath();
  }
  return {};
}

}  // namespace ts::config

namespace ts::config {

QString configDirectory() {
  const QString dir = qEnvironmentVariable("TOKENSCOPE_CONFIG_DIR");
  if (!dir.isEmpty()) return dir;
  return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) + "/tokenscope";
}

EffectiveConfig resolveConfig(const QString& explicit_path, const QProcessEnvironment& env,
                              ConfigFile* file, QList<ConfigIssue>* env_issues) {
  EffectiveConfig config;
  const QString path = locateConfigFile(explicit_path, configDirectory());
  if (!path.isEmpty()) {
    ConfigFile parsed = readConfigFile(path);
    if (parsed.ok()) {
      config.apply(parsed.values, Source::File, path);
      config.configFile = path;
    }
    if (file) *file = parsed;
  }
  const QList<ConfigIssue> issues = config.applyEnvironment(env);
  if (env_issues) *env_issues = issues;
  return config;
}

}  // namespace ts::config
