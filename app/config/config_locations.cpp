#include "app/config/config_locations.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace ts::config {
namespace {

// Absolute and cleaned; symbolic links resolved when the file exists, so two names of one
// file compare equal.
QString normalized(const QString& path) {
  const QFileInfo info(path);
  const QString canonical = info.canonicalFilePath();
  return canonical.isEmpty() ? QDir::cleanPath(info.absoluteFilePath()) : canonical;
}

bool samePath(const QString& a, const QString& b) {
  return normalized(a) == normalized(b);
}

}  // namespace

QStringList configFilesReadAtStart(const QString& config_dir) {
  // The order and names of locateConfigFile (effective_config.cpp).
  QStringList paths;
  const QString env = qEnvironmentVariable("TOKENSCOPE_CONFIG");
  if (!env.isEmpty()) paths << env;
  paths << "config.toml"
        << "settings.json";
  if (!config_dir.isEmpty()) paths << config_dir + "/config.toml";
  for (QString& p : paths) p = normalized(p);
  return paths;
}

bool isReadAtStart(const QString& path, const QString& config_dir) {
  return !path.isEmpty() && configFilesReadAtStart(config_dir).contains(normalized(path));
}

QString suggestedExportPath() {
  QString dir = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
  if (dir.isEmpty() || !QFileInfo(dir).isDir()) dir = QDir::homePath();
  return QDir(dir).filePath("tokenscope-config.toml");
}

QString unexpectedOrigin(const QString& path, const QString& config_dir) {
  if (path.isEmpty() || (!config_dir.isEmpty() && samePath(path, config_dir + "/config.toml")))
    return {};
  const QString env = qEnvironmentVariable("TOKENSCOPE_CONFIG");
  if (!env.isEmpty() && samePath(path, env))
    return QCoreApplication::translate("ts::config", "named by TOKENSCOPE_CONFIG");
  if (samePath(path, "config.toml") || samePath(path, "settings.json"))
    return QCoreApplication::translate("ts::config",
                                       "found in the folder TokenScope was started from");
  return QCoreApplication::translate("ts::config", "given on the command line or imported");
}

}  // namespace ts::config
