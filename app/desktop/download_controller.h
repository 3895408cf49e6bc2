// Downloads from a Hugging Face hub: the download dialog says what was typed (a pasted URL,
// or repository + file on the hub), this checks it and drives a ModelDownload into the
// models folder; "Use this model" adds a local provider for the file and selects it.
#pragma once
#include <QObject>

#include "app/desktop/provider_controller.h"
#include "ui/main_window.h"

namespace ts {

class DownloadController : public QObject {
  Q_OBJECT
 public:
  DownloadController(ui::MainWindow* window, ProviderController* providers,
                     QObject* parent = nullptr);
  // The hub used for repository + file (a mirror for tests and closed networks).
  void setHub(const QString& base_url) { hub_ = base_url; }
  void open();

 private:
  ui::MainWindow* window_;
  ProviderController* providers_;
  QString hub_ = "https://huggingface.co";
};

}  // namespace ts
