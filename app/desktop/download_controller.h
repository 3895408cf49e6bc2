// Downloads from a Hugging Face hub: the download dialog says what was typed (a pasted URL,
// or repository + file on the hub), this checks it and drives a ModelDownload into the
// models folder; "Use this model" adds a local provider for the file and selects it.
#pragma once
#include <QObject>
#include <QPointer>

#include "app/desktop/provider_controller.h"
#include "ui/main_window.h"

namespace ts {

class ModelDownload;
class RepoDownload;

class DownloadController : public QObject {
  Q_OBJECT
 public:
  DownloadController(ui::MainWindow* window, ProviderController* providers,
                     QObject* parent = nullptr);
  // Stops a download still running (its partial file stays, to resume): the dialog that
  // owns it goes with the window, and must hear nothing from it while it is destroyed.
  ~DownloadController() override;
  // The hub used for repository + file (a mirror for tests and closed networks).
  void setHub(const QString& base_url) { hub_ = base_url; }
  const QString& hub() const { return hub_; }
  void open();
  bool isDownloading() const;  // a file or repository is being fetched now

 private:
  ui::MainWindow* window_;
  ProviderController* providers_;
  QString hub_ = "https://huggingface.co";
  QPointer<ModelDownload> download_;  // the open dialog's (it owns them)
  QPointer<RepoDownload> repository_;
};

}  // namespace ts
