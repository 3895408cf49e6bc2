// Download a model from a Hugging Face hub: repository + file (or a pasted URL), a few
// suggestions, a progress bar with speed and ETA, Pause / Resume / Cancel. Widgets only:
// the app connects the signals to a ModelDownload and feeds its progress back.
#pragma once
#include <QDialog>

#include "inference/remote/hub_url.h"
#include "inference/remote/model_download.h"

class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;

namespace ts::ui {

class DownloadDialog : public QDialog {
  Q_OBJECT
 public:
  explicit DownloadDialog(QWidget* parent = nullptr);
  // The hub address used for repository + file (a mirror for tests and closed networks).
  void setHub(const QString& base_url);

 public slots:
  void onProgress(const ts::DownloadProgress& progress);
  void onPaused();
  void onVerifying();
  void onFinished(const QString& path, const QString& checksum);
  void onFailed(const QString& message, bool resumable);

 signals:
  void startRequested(const ts::HubFile& file);
  void pauseRequested();
  void resumeRequested();
  void cancelRequested();
  void useModelRequested(const QString& path);  // "Use this model" after a download

 private:
  void start();
  void setRunning(bool running);

  QString hub_ = "https://huggingface.co";
  QLineEdit* url_;
  QLineEdit* repo_;
  QLineEdit* file_;
  QListWidget* suggestions_;
  QProgressBar* bar_;
  QLabel* status_;
  QPushButton* start_;
  QPushButton* pause_;
  QPushButton* cancel_;
  QPushButton* use_;
  QString downloaded_;
  bool paused_ = false;
};

}  // namespace ts::ui
