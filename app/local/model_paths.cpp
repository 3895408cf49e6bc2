#include "app/local/model_paths.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

#include "inference/engine/formats/json_reader.h"
#include "inference/engine/formats/model_config_readers.h"

namespace ts {

QString modelsDir() {
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/models";
}

QString demoModelPath() {
  return modelsDir() + "/tokenscope-demo-random.gguf";
}

QString firstDownloadedModel() {
  const QFileInfoList files = QDir(modelsDir()).entryInfoList({"*.gguf"}, QDir::Files, QDir::Name);
  for (const QFileInfo& f : files)
    if (f.absoluteFilePath() != QFileInfo(demoModelPath()).absoluteFilePath())
      return f.absoluteFilePath();
  return {};
}

QString unreadableQuantizationOf(const QString& config_path) {
  const auto config = engine::readJsonFile(config_path.toStdString());
  return config ? QString::fromStdString(engine::unreadableQuantization(config.value()))
                : QString();
}

}  // namespace ts
