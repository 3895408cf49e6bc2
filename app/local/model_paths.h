// Where TokenScope keeps models: <AppDataLocation>/models (downloads land there; the
// ready default looks there first; the demo model is written there).
#pragma once
#include <QString>

namespace ts {

QString modelsDir();
// <modelsDir>/tokenscope-demo-random.gguf
QString demoModelPath();
// A real model found in modelsDir() (the first *.gguf that is not the demo), or "".
QString firstDownloadedModel();
// The quantization a downloaded config.json declares that TokenScope does not read
// (engine::unreadableQuantization), or "" (also when the file cannot be read: the load
// says why later). RepoDownload's check.
QString unreadableQuantizationOf(const QString& config_path);

}  // namespace ts
