// The configuration in effect and where each value came from, so "I changed the file
// but nothing happened" is answered at a glance. Precedence, lowest first: built-in
// default < config file < environment (TOKENSCOPE_*) < set in the UI < command line.
#pragma once
#include <QMap>
#include <QProcessEnvironment>

#include "app/config/config_files.h"

namespace ts::config {

enum class Source { Default, File, Environment, UserInterface, CommandLine };

struct EffectiveValue {
  QVariant value;
  Source source = Source::Default;
  QString origin;  // the file path, the variable name or the flag; empty for defaults
};

class EffectiveConfig {
 public:
  EffectiveConfig();  // every field at its built-in default

  void apply(const ConfigValues& values, Source source, const QString& origin);
  // Reads TOKENSCOPE_* overrides; a value of the wrong type or range is reported and
  // not applied.
  QList<ConfigIssue> applyEnvironment(const QProcessEnvironment& env);

  QVariant value(const QString& key) const { return entries_.value(key).value; }
  const EffectiveValue entry(const QString& key) const { return entries_.value(key); }
  ConfigValues values() const;
  QString describeSource(const QString& key) const;  // "config file ./settings.json", ...

  QString configFile;  // the file that was applied, if any

 private:
  QMap<QString, EffectiveValue> entries_;
};

const char* sourceName(Source source);  // "default", "file", "environment", "ui", "command-line"

// $TOKENSCOPE_CONFIG_DIR, else the platform's config location + "/tokenscope".
QString configDirectory();

// Defaults, then the located config file (if any), then the environment. A file with
// errors is not applied: `file` (when given) receives it, errors included.
EffectiveConfig resolveConfig(const QString& explicit_path, const QProcessEnvironment& env,
                              ConfigFile* file, QList<ConfigIssue>* env_issues);

// Which config file applies: `explicit_path` (--config), else $TOKENSCOPE_CONFIG, else
// ./config.toml, ./settings.json, else <config dir>/config.toml; "" when none exists.
QString locateConfigFile(const QString& explicit_path, const QString& config_dir);

}  // namespace ts::config
