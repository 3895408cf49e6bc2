// Downloads a model repository from a Hugging Face hub (or a mirror) into a folder, as
// Baichuan publishes its models (config.json, the tokenizer and generation files, and the
// weights as pytorch_model.bin or shards with an index), one file at a time, each through
// a ModelDownload (resumable, size and sha256 verified):
// 1. config.json; a bitsandbytes 4-bit or 8-bit checkpoint (quantization_config, as
//    Baichuan2-*-4bits ships) is refused here, before any weights, naming the format and
//    the route that works;
// 2. generation_config.json, tokenizer.model, tokenizer_config.json and
//    special_tokens_map.json where the repository has them (no Python file is fetched:
//    TokenScope never runs a repository's code);
// 3. the weights: model.safetensors.index.json and its shards, else model.safetensors, else
//    pytorch_model.bin.index.json and its shards, else pytorch_model.bin.
// A file already in the folder is complete (a download renames a file only once verified)
// and is not fetched again, so starting again resumes where the last attempt stopped.
#pragma once
#include <QObject>
#include <QPointer>
#include <QStringList>
#include <functional>

#include "inference/remote/hub_url.h"
#include "inference/remote/model_download.h"

namespace ts {

class RepoDownload : public QObject {
  Q_OBJECT
 public:
  explicit RepoDownload(QObject* parent = nullptr);

  // What config.json says of the weights that TokenScope cannot read ("bitsandbytes nf4
  // 4-bit"; "" when it can read them): the engine's rule (engine::unreadableQuantization),
  // handed in by the app (this library does not reach the engine). Unset: nothing refused.
  using QuantizationCheck = std::function<QString(const QString& config_path)>;
  void setQuantizationCheck(QuantizationCheck check) { quantization_ = std::move(check); }
  // Downloads `repo` (its file field is ignored) into `folder`.
  void start(const HubFile& repo, const QString& folder);
  void pause();
  void resume();
  void cancel();
  bool isRunning() const { return running_; }
  QStringList downloaded() const { return done_; }  // files in the folder so far
  int requests() const { return requests_; }        // GETs made, resumes included

 signals:
  // The file being fetched now (once its first bytes arrive): its name, its place, and its
  // place plus the files still certainly to come (the shards, once the index has arrived).
  void fileStarted(const QString& file, int index, int known_files);
  // The whole repository: bytes so far over the bytes expected (shards not yet asked for are
  // estimated from the index's total_size).
  void progress(const ts::DownloadProgress& progress);
  void paused();
  void verifying(const QString& file);
  // summary: "9 files, sha256 verified" or why some could only be size-checked.
  void finished(const QString& folder, const QString& summary);
  void failed(const QString& message, bool resumable);

 private:
  struct Step {
    QString file;
    bool optional = false;  // a 404 moves on
    bool weights = false;   // one of the weight candidates (the first found wins)
    bool shard = false;     // named by an index
  };
  void next();
  void onFileFinished(const QString& path, const QString& checksum);
  void onFileFailed(const QString& message, bool resumable);
  // After config.json: "" or why this checkpoint is refused.
  QString refusal(const QString& config_path) const;
  // After an index: its shards become required steps; "" or what is wrong with it.
  QString addShards(const QString& index_path);
  // config.json's and an index's consequences, for a file just fetched or already there;
  // false when the download ended (refused).
  bool took(const QString& path);
  void emitProgress(const DownloadProgress& current);

  QuantizationCheck quantization_;
  QPointer<ModelDownload> file_;
  HubFile repo_;
  QString folder_;
  QList<Step> steps_;
  Step current_;
  QStringList done_;
  bool running_ = false, weights_found_ = false, all_verified_ = true, announced_ = false;
  // Asked for while no transfer runs (a file being verified, between files): honoured
  // before the next file starts.
  bool pause_requested_ = false, waiting_ = false, cancelled_ = false;
  int requests_ = 0, position_ = 0;
  qint64 finished_bytes_ = 0;  // files completed in this run
  qint64 shard_estimate_ = 0;  // bytes expected of each shard not yet started
  int shards_left_ = 0;
};

}  // namespace ts
