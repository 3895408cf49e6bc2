#include "app/desktop/download_controller.h"

#include <QFileInfo>

#include "app/local/model_paths.h"
#include "inference/remote/hub_url.h"
#include "inference/remote/model_download.h"
#include "ui/download_dialog.h"

namespace ts {

DownloadController::DownloadController(ui::MainWindow* window, ProviderController* providers,
                                       QObject* parent)
    : QObject(parent), window_(window), providers_(providers) {
  connect(window, &ui::MainWindow::downloadRequested, this, &DownloadController::open);
}

void DownloadController::open() {
  auto* dialog = new ui::DownloadDialog(window_);
  dialog->setObjectName("downloadDialog");
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  auto* download = new ModelDownload(dialog);
  connect(dialog, &ui::DownloadDialog::startRequested, download,
          [this, dialog, download](const QString& url, const QString& repo, const QString& file) {
            HubFile f;
            QString problem;
            if (!url.isEmpty()) {
              if (auto parsed = parseHubUrl(url, &problem)) f = *parsed;
            } else {
              f.base_url = hub_;
              f.repo = repo;
              f.file = file;
              problem = checkHubFile(f);
            }
            if (!problem.isEmpty()) return dialog->onRejected(problem);
            dialog->onStarted(f.file);
            download->start(f, modelsDir() + "/" + QFileInfo(f.file).fileName());
          });
  connect(dialog, &ui::DownloadDialog::pauseRequested, download, &ModelDownload::pause);
  connect(dialog, &ui::DownloadDialog::resumeRequested, download, &ModelDownload::resume);
  connect(dialog, &ui::DownloadDialog::cancelRequested, download, &ModelDownload::cancel);
  connect(download, &ModelDownload::progress, dialog, [dialog](const DownloadProgress& p) {
    dialog->onProgress(p.received, p.total, p.bytes_per_s, p.eta_s);
  });
  connect(download, &ModelDownload::paused, dialog, &ui::DownloadDialog::onPaused);
  connect(download, &ModelDownload::verifying, dialog, &ui::DownloadDialog::onVerifying);
  connect(download, &ModelDownload::finished, dialog, &ui::DownloadDialog::onFinished);
  connect(download, &ModelDownload::failed, dialog, &ui::DownloadDialog::onFailed);
  connect(dialog, &ui::DownloadDialog::useModelRequested, this, [this](const QString& path) {
    const ProviderSettings p = providers_->selectLocalModel(path, {});
    window_->showStatus(tr("Added the local provider %1").arg(QString::fromStdString(p.name)));
  });
  dialog->show();
}

}  // namespace ts
