// settings.json and config.toml, read and written in exactly the schema users keep
// (config_schema.h). Parsing is pure (bytes in, values and issues out); errors carry
// line and column and say what was expected and what was found.
#pragma once
#include <QByteArray>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>
#include <QVariant>

namespace ts::config {

enum class FileFormat { Json, Toml };

struct ConfigIssue {
  QString message;  // names the field when one is concerned
  int line = 0;     // 1-based; 0 when unknown
  int column = 0;
};

using ConfigValues = QMap<QString, QVariant>;  // settings.json path -> value

struct ConfigFile {
  QString path;
  FileFormat format = FileFormat::Json;
  ConfigValues values;        // only the fields present in the file
  QList<ConfigIssue> errors;  // any error: the file is not applied
  QStringList warnings;       // e.g. unknown keys, which are ignored
  bool ok() const { return errors.isEmpty(); }
  QString errorText() const;  // "path:line:column: message", one per line
};

// known_providers: provider names the user has configured (besides the presets).
ConfigFile parseSettingsJson(const QByteArray& bytes, const QString& path,
                             const QStringList& known_providers = {});
ConfigFile parseConfigToml(const QByteArray& bytes, const QString& path,
                           const QStringList& known_providers = {});
// By extension: .toml is TOML, anything else JSON. A missing file is an error.
ConfigFile readConfigFile(const QString& path, const QStringList& known_providers = {});
FileFormat formatForPath(const QString& path);

// Every field in `values` (normally all of them), in the users' layout. Never a key.
QByteArray writeSettingsJson(const ConfigValues& values);
QByteArray writeConfigToml(const ConfigValues& values);
// Writes atomically; returns "" or the reason it could not.
QString writeConfigFile(const QString& path, const ConfigValues& values);

}  // namespace ts::config
