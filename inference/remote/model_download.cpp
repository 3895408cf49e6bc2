#include "inference/remote/model_download.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QStorageInfo>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

namespace ts {
namespace {

QString megabytes(qint64 bytes) {
  return QString::number(bytes / 1e6, 'f', 1) + " MB";
}

// sha256 of a file in 1 MiB reads; empty when it cannot be read.
QString sha256Of(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  QCryptographicHash hash(QCryptographicHash::Sha256);
  while (!f.atEnd()) hash.addData(f.read(1 << 20));
  return QString::fromLatin1(hash.result().toHex());
}

}  // namespace

ModelDownload::ModelDownload(QObject* parent)
    : QObject(parent), nam_(new QNetworkAccessManager(this)) {
  qRegisterMetaType<ts::DownloadProgress>();
}

ModelDownload::~ModelDownload() {
  if (reply_) reply_->abort();
}

void ModelDownload::start(const HubFile& file, const QString& target) {
  if (const QString problem = checkHubFile(file); !problem.isEmpty()) return fail(problem, false);
  file_ = file;
  target_ = target;
  auto_resumes_left_ = 3;
  expected_size_ = -1;
  expected_sha256_.clear();
  not_found_ = false;
  pausing_ = false;
  if (!QDir().mkpath(QFileInfo(target).absolutePath()))
    return fail(tr("cannot create the folder %1").arg(QFileInfo(target).absolutePath()), false);
  probe();
}

// HEAD: the hub answers a large (LFS) file with a redirect carrying X-Linked-Size and
// X-Linked-Etag (the sha256); a small file with Content-Length.
void ModelDownload::probe() {
  QNetworkRequest request(file_.resolveUrl());
  request.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                       QNetworkRequest::ManualRedirectPolicy);
  reply_ = nam_->head(request);
  connect(reply_, &QNetworkReply::finished, this, [this, reply = reply_] {
    reply->deleteLater();
    reply_ = nullptr;
    if (pausing_) {  // paused while asking: resume() asks again
      pausing_ = false;
      expected_size_ = -1;
      return emit paused();
    }
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (reply->error() != QNetworkReply::NoError && status == 0)
      return fail(tr("cannot reach %1: %2").arg(file_.base_url, reply->errorString()), true);
    if (status == 401 || status == 403)
      return fail(tr("%1 is gated or private (HTTP %2): accept its terms on the hub or choose "
                     "another repository")
                      .arg(file_.repo)
                      .arg(status),
                  false);
    not_found_ = status == 404;
    if (status == 404)
      return fail(tr("the hub has no file %1 in %2 at %3 (HTTP 404): check the repository and "
                     "file names")
                      .arg(file_.file, file_.repo, file_.revision),
                  false);
    if (status >= 400) return fail(tr("the hub answered HTTP %1").arg(status), true);
    const QByteArray linked_size = reply->rawHeader("X-Linked-Size");
    expected_size_ = !linked_size.isEmpty()
                         ? linked_size.toLongLong()
                         : reply->header(QNetworkRequest::ContentLengthHeader).toLongLong();
    if (expected_size_ <= 0) expected_size_ = -1;
    QString etag = QString::fromLatin1(reply->rawHeader("X-Linked-Etag"));
    if (etag.isEmpty()) etag = QString::fromLatin1(reply->rawHeader("ETag"));
    etag.remove('"').remove("W/");
    static const QRegularExpression sha256("^[0-9a-fA-F]{64}$");
    if (sha256.match(etag).hasMatch()) expected_sha256_ = etag.toLower();
    if (expected_size_ > 0) {
      const QStorageInfo disk(QFileInfo(target_).absolutePath());
      const qint64 have = QFileInfo(partPath()).size();
      if (disk.isValid() && disk.bytesAvailable() >= 0 &&
          disk.bytesAvailable() < expected_size_ - have)
        return fail(tr("the disk is full: %1 needs %2 more, %3 is free on %4; free some space "
                       "and resume (the partial file is kept)")
                        .arg(file_.file, megabytes(expected_size_ - have),
                             megabytes(disk.bytesAvailable()), disk.rootPath()),
                    true);
    }
    fetch();
  });
}

void ModelDownload::fetch() {
  pausing_ = false;
  write_error_.clear();
  part_.setFileName(partPath());
  if (!part_.open(QIODevice::ReadWrite | QIODevice::Append))
    return fail(tr("cannot write %1: %2").arg(partPath(), part_.errorString()), false);
  const qint64 have = part_.size();
  fetch_start_ = have;
  if (expected_size_ > 0 && have == expected_size_) {  // complete already: only verify
    part_.close();
    return verify();
  }
  QNetworkRequest request(file_.resolveUrl());
  request.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                       QNetworkRequest::NoLessSafeRedirectPolicy);
  if (have > 0) request.setRawHeader("Range", "bytes=" + QByteArray::number(have) + "-");
  ++requests_;
  reply_ = nam_->get(request);
  clock_.start();
  last_emit_.invalidate();
  rate_bytes_ = 0;
  rate_start_ms_ = 0;
  connect(reply_, &QNetworkReply::metaDataChanged, this, [this] {
    const int status = reply_->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status == 200 && part_.size() > 0) part_.resize(0);  // the server ignored the Range
  });
  connect(reply_, &QNetworkReply::readyRead, this, &ModelDownload::onData);
  connect(reply_, &QNetworkReply::finished, this, &ModelDownload::onFetchFinished);
}

void ModelDownload::onData() {
  const QByteArray data = reply_->readAll();
  if (data.isEmpty() || !write_error_.isEmpty()) return;
  if (part_.write(data) != data.size() || !part_.flush()) {
    // A full disk (ENOSPC) or a size limit (EFBIG): stop, keep what was written.
    write_error_ = part_.errorString();
    reply_->abort();
    return;
  }
  rate_bytes_ += data.size();
  emitProgress(false);
}

void ModelDownload::emitProgress(bool force) {
  if (!force && last_emit_.isValid() && last_emit_.elapsed() < 100) return;
  last_emit_.start();
  const qint64 now = clock_.elapsed();
  if (now - rate_start_ms_ >= 500) {  // speed over windows of at least half a second
    const double rate = rate_bytes_ * 1000.0 / std::max<qint64>(1, now - rate_start_ms_);
    rate_ = rate_ == 0 ? rate : 0.7 * rate_ + 0.3 * rate;
    rate_bytes_ = 0;
    rate_start_ms_ = now;
  }
  DownloadProgress p;
  p.received = part_.size();
  p.total = expected_size_;
  p.bytes_per_s = rate_;
  if (rate_ > 0 && expected_size_ > 0) p.eta_s = (expected_size_ - p.received) / rate_;
  emit progress(p);
}

void ModelDownload::onFetchFinished() {
  QNetworkReply* reply = reply_;
  reply_ = nullptr;
  reply->deleteLater();
  if (reply->bytesAvailable() > 0 && write_error_.isEmpty()) {
    const QByteArray rest = reply->readAll();
    if (part_.write(rest) != rest.size()) write_error_ = part_.errorString();
  }
  const qint64 have = part_.size();
  part_.close();
  emitProgress(true);
  if (!write_error_.isEmpty())
    return fail(tr("writing %1 failed at %2: %3 — the disk may be full; free some space and "
                   "resume (the partial file is kept)")
                    .arg(partPath(), megabytes(have), write_error_),
                true);
  if (pausing_) {
    emit paused();
    return;
  }
  const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
  if (status == 416 && expected_size_ > 0 && have >= expected_size_) return verify();
  if (status >= 400)
    return fail(tr("the download failed with HTTP %1 at %2").arg(status).arg(megabytes(have)),
                true);
  const bool short_read = expected_size_ > 0 && have < expected_size_;
  if (reply->error() != QNetworkReply::NoError || short_read) {
    const bool progressed = have > fetch_start_;
    if (auto_resumes_left_-- > 0 && progressed) {  // a dropped connection: continue from here
      QTimer::singleShot(500, this, [this] {
        if (pausing_) return emit paused();  // paused while waiting to continue
        fetch();
      });
      return;
    }
    return fail(tr("the connection dropped at %1 of %2 (%3); resume continues from there")
                    .arg(megabytes(have), expected_size_ > 0 ? megabytes(expected_size_) : "?",
                         reply->errorString()),
                true);
  }
  verify();
}

void ModelDownload::verify() {
  // The transfer is over: close the connection to the hub now rather than leaving it idle
  // in Qt's cache (a server being stopped would otherwise wait for it to time out).
  nam_->clearConnectionCache();
  const qint64 have = QFileInfo(partPath()).size();
  if (expected_size_ > 0 && have != expected_size_)
    return fail(tr("the file has %1 bytes, the hub said %2; resume or download again")
                    .arg(have)
                    .arg(expected_size_),
                true);
  emit verifying();
  auto* watcher = new QFutureWatcher<QString>(this);
  connect(watcher, &QFutureWatcher<QString>::finished, this, [this, watcher] {
    watcher->deleteLater();
    const QString got = watcher->result();
    QString checksum = tr("size checked; the hub gave no sha256 for this file");
    if (!expected_sha256_.isEmpty()) {
      if (got != expected_sha256_) {
        QFile::remove(partPath());
        return fail(tr("checksum mismatch: the hub says sha256 %1, the file has %2; the damaged "
                       "file was removed — download it again")
                        .arg(expected_sha256_, got),
                    false);
      }
      checksum = tr("sha256 verified");
    }
    QFile::remove(target_);
    if (!QFile::rename(partPath(), target_))
      return fail(tr("cannot move %1 to %2").arg(partPath(), target_), true);
    emit finished(target_, checksum);
  });
  watcher->setFuture(QtConcurrent::run(sha256Of, partPath()));
}

void ModelDownload::pause() {
  pausing_ = true;  // also between requests (the automatic resume's wait)
  if (reply_) reply_->abort();
}

void ModelDownload::resume() {
  if (reply_ || target_.isEmpty()) return;
  pausing_ = false;
  auto_resumes_left_ = 3;
  if (expected_size_ < 0)
    probe();
  else
    fetch();
}

void ModelDownload::cancel() {
  pause();
}

void ModelDownload::fail(const QString& message, bool resumable) {
  emit failed(message, resumable);
}

}  // namespace ts
