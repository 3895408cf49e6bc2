// The run store: every run in one SQLite file (QtSql, WAL), so history, comparison and
// benchmarks outlive the process. A run is written as it streams -- a row when it starts
// (status "running"), its events in small transactions while they arrive, the metrics
// when it ends -- so a process killed mid-stream leaves every earlier run intact and this
// one with its partial text; the next open marks it "interrupted". Keys are never stored
// (requests hold messages and parameters only).
//
// One RunStore is one connection and belongs to the thread that made it; several stores
// (threads, processes) may write the same file at once (WAL, busy timeout).
#pragma once
#include <QDateTime>
#include <QElapsedTimer>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <optional>

#include "inference/stream/generation_request.h"
#include "inference/stream/run_recorder.h"

namespace ts {

// What a run ran on, besides its request.
// (Members have {} initializers so that {provider, base_url, model} leaves the rest empty
// without -Wmissing-field-initializers.)
struct RunContext {
  QString provider{}, base_url{}, model{};
  QString backend{};        // local engine: "cpu" | "cuda"; "" for remote providers
  QString weights{}, kv{};  // local engine: runtime weight and KV formats
  QString speculative{};    // "" or e.g. "self-int4, K 4" / "lookup, K auto"
  QString group{};          // runs repeated as one benchmark step share a group
  QStringList tags{};
  int threads = 0;  // local engine: the CPU threads it ran on; 0 unknown or remote
};

struct StoredRun {
  qint64 id = 0;
  QDateTime started;  // UTC
  QString status;     // running | finished | failed | cancelled | interrupted
  GenerationRequest request;
  RunContext context;
  QString text;  // the answer so far (partial when interrupted, cancelled or failed)
  QString note;
  QJsonObject environment;  // app version, OS, CPU, GPU (environment_info.h)
  QJsonObject metrics;      // runResultJson's figures; empty while running
  RecordedRun run;          // the events (load() only)
};

struct RunFilter {
  QString provider{}, model{}, tag{};
  QString search{};  // in the messages of the request
  QString group{};   // runs of one benchmark step
  QDateTime from{}, to{};
  int limit = 5000;
};

// One lever-lab report (inference/engine/lab/lab_json.h's JSON), as stored.
struct StoredLabReport {
  qint64 id = 0;
  QDateTime started;  // UTC, when it was stored
  QString model, lever;
  QJsonObject report;
};

struct ImportSummary {
  int imported = 0;
  int duplicates = 0;   // lines already in the store
  QStringList skipped;  // "line N: why" (a truncated last line, bad JSON)
};

class RunStore {
 public:
  static constexpr int kSchemaVersion = 4;
  static QString defaultPath();  // <app data>/runs.sqlite

  explicit RunStore(const QString& path);  // opens, creating or migrating the schema
  ~RunStore();
  RunStore(const RunStore&) = delete;
  RunStore& operator=(const RunStore&) = delete;

  bool isOpen() const { return error_.isEmpty(); }
  const QString& error() const { return error_; }  // of the open or the last call
  int schemaVersion() const;

  // -1 on failure (see error()).
  qint64 beginRun(const GenerationRequest& request, const RunContext& context);
  // Stores run.events[from...] and the text so far; returns false on failure.
  bool appendEvents(qint64 id, const RecordedRun& run, size_t from);
  // Stores the events after `from`, the status (from the terminal event) and the metrics.
  bool finishRun(qint64 id, const RecordedRun& run, size_t from);
  // Runs left "running" by a process that no longer exists become "interrupted".
  int markInterrupted();

  QList<StoredRun> list(const RunFilter& filter = {});  // newest first, without events
  std::optional<StoredRun> load(qint64 id);
  QStringList distinct(const QString& column);  // every provider or model, sorted
  bool setTags(qint64 id, const QStringList& tags);
  bool setNote(qint64 id, const QString& note);
  bool remove(qint64 id);
  // Marks run `id` as the run of this run-log line: importing that log skips it.
  bool setImportKey(qint64 id, const QByteArray& log_line);
  // A run log (runs-*.jsonl) into the store; each line once, however often imported.
  ImportSummary importLog(const QString& jsonl_path);

  // Lever-lab reports: every lab run keeps its predictions beside its measurements, so the
  // lab can chart its prediction error over past runs. -1 on failure.
  qint64 addLabReport(const QJsonObject& report);
  // Newest first; `lever` "" for every lever.
  QList<StoredLabReport> labReports(const QString& lever = {}, int limit = 500);

 private:
  bool exec(const QString& sql);
  bool migrate();
  bool insertEvents(qint64 id, const RecordedRun& run, size_t from);  // inside a transaction
  QString connection_;
  QString error_;
};

// Writes one run as it streams: begin, then update() as events arrive (at most every
// `interval_ms`, so a long stream costs a few small transactions a second), finish().
class RunStoreWriter {
 public:
  RunStoreWriter(RunStore& store, const GenerationRequest& request, const RunContext& context,
                 int interval_ms = 200);
  qint64 id() const { return id_; }
  void update(const RecordedRun& run);
  void finish(const RecordedRun& run);

 private:
  RunStore& store_;
  qint64 id_;
  size_t written_ = 0;
  QElapsedTimer since_write_;  // invalid until the first write
  int interval_ms_;
};

}  // namespace ts
