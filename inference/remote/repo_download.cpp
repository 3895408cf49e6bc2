#include "inference/remote/repo_download.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace ts {
namespace {

QJsonObject readJsonObject(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(f.readAll()).object();
}

}  // namespace

RepoDownload::RepoDownload(QObject* parent) : QObject(parent) {}

void RepoDownload::start(const HubFile& repo, const QString& folder) {
  if (const QString problem = checkHubRepo(repo); !problem.isEmpty())
    return emit failed(problem, false);
  if (!QDir().mkpath(folder))
    return emit failed(tr("cannot create the folder %1").arg(folder), false);
  repo_ = repo;
  folder_ = folder;
  done_.clear();
  weights_found_ = false;
  all_verified_ = true;
  pause_requested_ = waiting_ = cancelled_ = false;
  finished_bytes_ = shard_estimate_ = 0;
  shards_left_ = 0;
  position_ = 0;
  steps_ = {{"config.json"},
            {"generation_config.json", true},
            {"tokenizer.model", true},
            {"tokenizer_config.json", true},
            {"special_tokens_map.json", true},
            {"model.safetensors.index.json", true, true},
            {"model.safetensors", true, true},
            {"pytorch_model.bin.index.json", true, true},
            {"pytorch_model.bin", true, true}};
  // Weights found by an earlier run: only that kind is looked at again (no request for the
  // others).
  for (const Step& s : steps_)
    if (s.weights && QFileInfo::exists(folder + "/" + s.file)) {
      const QString local = s.file;
      steps_.removeIf([&](const Step& w) { return w.weights && w.file != local; });
      break;
    }
  running_ = true;
  next();
}

bool RepoDownload::took(const QString& path) {
  done_ << current_.file;
  if (current_.weights) weights_found_ = true;
  if (current_.shard) shards_left_ = std::max(0, shards_left_ - 1);
  QString why;
  if (current_.file == "config.json") {
    why = refusal(path);
    if (!why.isEmpty()) {
      QFile::remove(path);  // no half model is left in the models folder
      QDir().rmdir(folder_);
    }
  } else if (current_.file.endsWith(".index.json")) {
    why = addShards(path);
  }
  if (why.isEmpty()) return true;
  running_ = false;
  emit failed(why, false);
  return false;
}

void RepoDownload::next() {
  while (!steps_.isEmpty()) {
    if (cancelled_) return;
    if (pause_requested_) {  // asked for between transfers: wait here for resume()
      waiting_ = true;
      return emit paused();
    }
    current_ = steps_.takeFirst();
    if (current_.weights && weights_found_) continue;  // a weight file was found already
    const QString target = folder_ + "/" + current_.file;
    if (QFileInfo::exists(target)) {  // complete from an earlier run
      if (!took(target)) return;
      continue;
    }
    announced_ = false;  // on its first bytes: a file the hub lacks is never announced
    if (file_) file_->deleteLater();
    file_ = new ModelDownload(this);
    connect(file_, &ModelDownload::progress, this, &RepoDownload::emitProgress);
    connect(file_, &ModelDownload::paused, this, &RepoDownload::paused);
    connect(file_, &ModelDownload::verifying, this, [this] { emit verifying(current_.file); });
    connect(file_, &ModelDownload::finished, this, &RepoDownload::onFileFinished);
    connect(file_, &ModelDownload::failed, this, &RepoDownload::onFileFailed);
    HubFile f = repo_;
    f.file = current_.file;
    file_->start(f, target);
    return;
  }
  running_ = false;
  if (!weights_found_)
    return emit failed(tr("%1 has no weights TokenScope reads: expected model.safetensors, "
                          "pytorch_model.bin or their .index.json shards")
                           .arg(repo_.repo),
                       false);
  emit finished(folder_, tr("%n file(s), ", "", static_cast<int>(done_.size())) +
                             (all_verified_ ? tr("sha256 verified")
                                            : tr("sizes checked (the hub gave no sha256 for "
                                                 "some)")));
}

void RepoDownload::onFileFinished(const QString& path, const QString& checksum) {
  requests_ += file_->requests();
  finished_bytes_ += QFileInfo(path).size();
  if (!checksum.contains("sha256 verified")) all_verified_ = false;
  if (cancelled_ || !took(path)) return;
  next();
}

void RepoDownload::onFileFailed(const QString& message, bool resumable) {
  requests_ += file_->requests();
  if (cancelled_) return;
  if (current_.optional && file_->notFound()) return next();  // the repository has none
  running_ = false;
  emit failed(current_.file + ": " + message, resumable);
}

QString RepoDownload::refusal(const QString& config_path) const {
  const QString format = quantization_ ? quantization_(config_path) : QString();
  if (format.isEmpty()) return {};
  QString full = repo_.repo;
  full.remove(QRegularExpression("-(4|8)bits?$"));
  return tr("%1 is a %2 checkpoint (quantization_config in config.json), which TokenScope does "
            "not read; nothing more was downloaded. Download the full-precision %3 instead: "
            "load it with weights int4, or write a 4-bit GGUF from it with `tokenscope-cli "
            "convert --to gguf --type q4_k`.")
      .arg(repo_.repo, format, full);
}

QString RepoDownload::addShards(const QString& index_path) {
  const QJsonObject index = readJsonObject(index_path);
  const QJsonObject map = index.value("weight_map").toObject();
  QStringList shards;
  for (auto it = map.begin(); it != map.end(); ++it) {
    const QString name = it.value().toString();
    if (name.isEmpty() || name.contains('/') || name.contains(".."))
      return tr("%1: expected shard file names in weight_map, found '%2'")
          .arg(QFileInfo(index_path).fileName(), name);
    if (!shards.contains(name)) shards << name;
  }
  if (shards.isEmpty())
    return tr("%1: expected a weight_map naming the shards, found none")
        .arg(QFileInfo(index_path).fileName());
  shards.sort();
  shards_left_ = static_cast<int>(shards.size());
  const qint64 total = index.value("metadata").toObject().value("total_size").toInteger();
  shard_estimate_ = total > 0 ? total / shards_left_ : 0;
  for (auto it = shards.rbegin(); it != shards.rend(); ++it)
    steps_.prepend({*it, false, false, true});
  return {};
}

void RepoDownload::emitProgress(const DownloadProgress& current) {
  if (!announced_) {
    announced_ = true;
    int required = 0;
    for (const Step& s : steps_) required += s.optional ? 0 : 1;
    ++position_;
    emit fileStarted(current_.file, position_, position_ + required);
  }
  DownloadProgress p = current;
  const int waiting = std::max(0, shards_left_ - (current_.shard ? 1 : 0));
  p.received = finished_bytes_ + current.received;
  p.total = current.total > 0 ? finished_bytes_ + current.total + waiting * shard_estimate_ : -1;
  p.eta_s = p.bytes_per_s > 0 && p.total > 0 ? (p.total - p.received) / p.bytes_per_s : -1;
  emit progress(p);
}

void RepoDownload::pause() {
  if (!running_) return;
  pause_requested_ = true;
  if (file_ && file_->isRunning()) file_->pause();  // else next() waits before a new file
}

void RepoDownload::resume() {
  if (!running_) return;
  pause_requested_ = false;
  if (waiting_) {
    waiting_ = false;
    next();
  } else if (file_) {
    file_->resume();
  }
}

void RepoDownload::cancel() {
  cancelled_ = true;
  running_ = false;
  if (file_) file_->cancel();
}

}  // namespace ts
