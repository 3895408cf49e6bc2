// Download a model from a Hugging Face hub: repository + file, a repository alone (every
// file of a model folder), or a pasted URL; a few suggestions (Baichuan's own repositories
// among them), a progress bar with speed and ETA, Pause / Resume / Cancel. Widgets only:
// it says what was typed; the app checks it, drives a ModelDownload and feeds its progress
// back as numbers.
#pragma once
#include <QDialog>

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

 public slots:
  void onStarted(const QString& file);  // the request was accepted: asking the hub
  // A repository: the file being fetched, its place and the files known so far.
  void onFileStarted(const QString& file, int index, int known);
  void onRejected(const QString& problem);  // what was typed names no hub file
  // bytes so far, total (-1 while unknown), bytes/s, seconds left (-1 while unknown).
  void onProgress(qint64 received, qint64 total, double bytes_per_s, double eta_s);
  void onPaused();
  void onVerifying();
  void onFinished(const QString& path, const QString& checksum);
  void onFailed(const QString& message, bool resumable);

 signals:
  // A pasted URL (empty when the repository and file fields were filled instead).
  void startRequested(const QString& url, const QString& repo, const QString& file);
  void pauseRequested();
  void resumeRequested();
  void cancelRequested();
  void useModelRequested(const QString& path);  // "Use this model" after a download

 private:
  void start();
  void setRunning(bool running);

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
  QString file_status_;  // "File 3 of 5: …" while a repository downloads
  bool paused_ = false;
};

}  // namespace ts::ui
