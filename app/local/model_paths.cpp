#include "app/local/model_paths.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

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

}  // namespace ts
