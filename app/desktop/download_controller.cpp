#include "app/desktop/download_controller.h"

#include <QFileInfo>

#include "app/local/model_paths.h"
#include "inference/remote/hub_url.h"
#include "inference/remote/model_download.h"
#include "inference/remote/repo_download.h"
#include "ui/download_dialog.h"

namespace ts {

DownloadController::DownloadController(ui::MainWindow* window, ProviderController* providers,
                                       QObject* parent)
    : QObject(parent), window_(window), providers_(providers) {
  connect(window, &ui::MainWindow::downloadRequested, this, &DownloadController::open);
}

DownloadController::~DownloadController() {
  for (QObject* running : {static_cast<QObject*>(download_), static_cast<QObject*>(repository_)})
    if (running) running->disconnect();
  if (download_) download_->cancel();
  if (repository_) repository_->cancel();
}

bool DownloadController::isDownloading() const {
  return (download_ && download_->isRunning()) || (repository_ && repository_->isRunning());
}

void DownloadController::open() {
  auto* dialog = new ui::DownloadDialog(window_);
  dialog->setObjectName("downloadDialog");
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  auto* download = new ModelDownload(dialog);
  auto* repository = new RepoDownload(dialog);  // when no file is named: the whole repository
  repository->setQuantizationCheck(unreadableQuantizationOf);
  download_ = download;
  repository_ = repository;
  connect(dialog, &ui::DownloadDialog::startRequested, dialog,
          [this, dialog, download, repository](const QString& url, const QString& repo,
                                               const QString& file) {
            HubFile f;
            QString problem;
            if (!url.isEmpty()) {
              if (auto parsed = parseHubUrl(url, &problem)) f = *parsed;
            } else {
              f.base_url = hub_;
              f.repo = repo;
              f.file = file;
              problem = file.isEmpty() ? checkHubRepo(f) : checkHubFile(f);
            }
            if (!problem.isEmpty()) return dialog->onRejected(problem);
            if (f.file.isEmpty()) {
              dialog->onStarted(f.repo);
              repository->start(f, modelsDir() + "/" + f.repo.section('/', 1));
            } else {
              dialog->onStarted(f.file);
              download->start(f, modelsDir() + "/" + QFileInfo(f.file).fileName());
            }
          });
  // Pause, resume and cancel reach whichever is running.
  connect(dialog, &ui::DownloadDialog::pauseRequested, dialog, [download, repository] {
    download->pause();
    repository->pause();
  });
  connect(dialog, &ui::DownloadDialog::resumeRequested, dialog, [download, repository] {
    if (repository->isRunning())
      repository->resume();
    else
      download->resume();
  });
  connect(dialog, &ui::DownloadDialog::cancelRequested, dialog, [download, repository] {
    download->cancel();
    repository->cancel();
  });
  const auto showProgress = [dialog](const DownloadProgress& p) {
    dialog->onProgress(p.received, p.total, p.bytes_per_s, p.eta_s);
  };
  connect(download, &ModelDownload::progress, dialog, showProgress);
  connect(download, &ModelDownload::paused, dialog, &ui::DownloadDialog::onPaused);
  connect(download, &ModelDownload::verifying, dialog, &ui::DownloadDialog::onVerifying);
  connect(download, &ModelDownload::finished, dialog, &ui::DownloadDialog::onFinished);
  connect(download, &ModelDownload::failed, dialog, &ui::DownloadDialog::onFailed);
  connect(repository, &RepoDownload::fileStarted, dialog, &ui::DownloadDialog::onFileStarted);
  connect(repository, &RepoDownload::progress, dialog, showProgress);
  connect(repository, &RepoDownload::paused, dialog, &ui::DownloadDialog::onPaused);
  connect(repository, &RepoDownload::verifying, dialog, &ui::DownloadDialog::onVerifying);
  connect(repository, &RepoDownload::finished, dialog, &ui::DownloadDialog::onFinished);
  connect(repository, &RepoDownload::failed, dialog, &ui::DownloadDialog::onFailed);
  connect(dialog, &ui::DownloadDialog::useModelRequested, this, [this](const QString& path) {
    const ProviderSettings p = providers_->selectLocalModel(path, {});
    window_->showStatus(tr("Added the local provider %1").arg(QString::fromStdString(p.name)));
  });
  dialog->show();
}

}  // namespace ts
