// Downloads one model file from a Hugging Face hub (or a mirror) into a folder: asks the
// hub for the file's size and sha256 first (HEAD: X-Linked-Size / X-Linked-Etag, else
// Content-Length), streams into <target>.part, resumes with an HTTP Range request after a
// pause or a dropped connection (automatically, a few times, while it makes progress),
// verifies size and sha256, then renames the file into place. A full disk or a failure
// keeps the partial file for a later resume; only a checksum mismatch deletes it.
#pragma once
#include <QElapsedTimer>
#include <QFile>
#include <QNetworkReply>
#include <QObject>
#include <QPointer>

#include "inference/remote/hub_url.h"

class QNetworkAccessManager;

namespace ts {

struct DownloadProgress {
  qint64 received = 0;     // bytes in the file so far (resumed bytes included)
  qint64 total = -1;       // -1 while unknown
  double bytes_per_s = 0;  // over the last few seconds
  double eta_s = -1;       // -1 while unknown
};

class ModelDownload : public QObject {
  Q_OBJECT
 public:
  explicit ModelDownload(QObject* parent = nullptr);
  ~ModelDownload() override;

  // Downloads `file` to `target` (a file path). Resumes a <target>.part left before.
  void start(const HubFile& file, const QString& target);
  void pause();   // stops now; the partial file stays for resume()
  void resume();  // continues from the partial file's length
  void cancel();  // stops now; the partial file stays (start() again resumes it)
  bool isRunning() const { return reply_ != nullptr; }
  QString partPath() const { return target_ + ".part"; }
  int requests() const { return requests_; }  // GETs made, resumes included
  // Whether the last failure was the hub saying it has no such file (HTTP 404).
  bool notFound() const { return not_found_; }

 signals:
  void progress(const ts::DownloadProgress& progress);
  void paused();
  void verifying();
  // checksum: "sha256 verified" or why only the size could be checked.
  void finished(const QString& path, const QString& checksum);
  // resumable: the partial file is kept and resume() / start() continues it.
  void failed(const QString& message, bool resumable);

 private:
  void probe();
  void fetch();
  void onData();
  void onFetchFinished();
  void verify();
  void fail(const QString& message, bool resumable);
  void emitProgress(bool force);

  QNetworkAccessManager* nam_;
  QPointer<QNetworkReply> reply_;
  HubFile file_;
  QString target_;
  QFile part_;
  qint64 expected_size_ = -1;
  QString expected_sha256_;  // lower-case hex, empty when the hub did not say
  int auto_resumes_left_ = 3;
  qint64 fetch_start_ = 0;  // the partial file's length when the current GET began
  int requests_ = 0;
  bool pausing_ = false;
  bool not_found_ = false;
  QString write_error_;
  QElapsedTimer clock_, last_emit_;
  qint64 rate_bytes_ = 0;  // received since rate_start_ms_
  qint64 rate_start_ms_ = 0;
  double rate_ = 0;
};

}  // namespace ts

Q_DECLARE_METATYPE(ts::DownloadProgress)
