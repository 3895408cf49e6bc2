#include "app/store/run_store.h"

#include <unistd.h>
#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QUuid>
#include <cerrno>
#include <csignal>

#include "app/store/environment_info.h"
#include "app/store/run_json.h"
#include "inference/stream/metrics.h"

namespace ts {
namespace {

// Schema version 1: runs with their request, status, text and metrics; events as JSON.
const char* const kSchemaV1[] = {
    "CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, started_at TEXT NOT NULL, "
    "provider TEXT NOT NULL DEFAULT '', model TEXT NOT NULL DEFAULT '', "
    "request_json TEXT NOT NULL, status TEXT NOT NULL, text TEXT NOT NULL DEFAULT '', "
    "metrics_json TEXT NOT NULL DEFAULT '{}')",
    "CREATE TABLE events (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, "
    "seq INTEGER NOT NULL, json TEXT NOT NULL, PRIMARY KEY (run_id, seq))"};
// Version 2: what the run ran on, tags and notes, the environment, the writer's pid (to
// tell interrupted runs), the searchable prompt, and an import key against double imports.
const char* const kSchemaV2[] = {
    "ALTER TABLE runs ADD COLUMN base_url TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE runs ADD COLUMN backend TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE runs ADD COLUMN weights TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE runs ADD COLUMN kv TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE runs ADD COLUMN speculative TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE runs ADD COLUMN group_name TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE runs ADD COLUMN tags_json TEXT NOT NULL DEFAULT '[]'",
    "ALTER TABLE runs ADD COLUMN note TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE runs ADD COLUMN environment_json TEXT NOT NULL DEFAULT '{}'",
    "ALTER TABLE runs ADD COLUMN pid INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE runs ADD COLUMN prompt TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE runs ADD COLUMN import_key TEXT",
    "CREATE UNIQUE INDEX runs_import_key ON runs(import_key) WHERE import_key IS NOT NULL",
    "CREATE INDEX runs_started ON runs(started_at)"};

// Version 3: lever-lab reports (their JSON, with the model and lever to filter on).
const char* const kSchemaV3[] = {
    "CREATE TABLE lab_reports (id INTEGER PRIMARY KEY AUTOINCREMENT, started_at TEXT NOT NULL, "
    "model TEXT NOT NULL DEFAULT '', lever TEXT NOT NULL DEFAULT '', report_json TEXT NOT NULL)",
    "CREATE INDEX lab_reports_lever ON lab_reports(lever, started_at)"};

// Version 4: the CPU threads a local run ran on (the lab's threads lever; 0: unknown).
const char* const kSchemaV4[] = {"ALTER TABLE runs ADD COLUMN threads INTEGER NOT NULL DEFAULT 0"};

// A bound QString() is SQL NULL: text columns here are never NULL.
QVariant nonNull(const QString& s) {
  return s.isNull() ? QVariant(QString("")) : QVariant(s);
}

QString jsonText(const QJsonObject& o) {
  return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}
QJsonObject jsonObject(const QString& text) {
  return QJsonDocument::fromJson(text.toUtf8()).object();
}

// Every message's content, for searching prompts.
QString promptText(const GenerationRequest& request) {
  QStringList parts;
  for (const auto& m : request.messages) parts << QString::fromStdString(m.content);
  return parts.join('\n');
}

QString statusOf(const RecordedRun& run) {
  const StreamEvent* end = run.terminal();
  if (!end) return "interrupted";
  if (end->kind == EventKind::Failed) return "failed";
  return end->text == "cancelled" ? "cancelled" : "finished";
}

QJsonObject metricsJson(const RecordedRun& run) {
  QJsonObject m = runResultJson(run, computeMetrics(run));
  m.remove("text");  // kept in its own column
  return m;
}

QString importKey(const QByteArray& log_line) {
  return QString::fromLatin1(
      QCryptographicHash::hash(log_line.trimmed(), QCryptographicHash::Sha256).toHex());
}

bool processAlive(qint64 pid) {
  return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
}

QString likePattern(const QString& text) {  // %text% with LIKE's wildcards escaped by '\'
  QString escaped = text;
  escaped.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_");
  return "%" + escaped + "%";
}

}  // namespace

QString RunStore::defaultPath() {
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/runs.sqlite";
}

RunStore::RunStore(const QString& path)
    : connection_("tokenscope-runs-" + QUuid::createUuid().toString(QUuid::WithoutBraces)) {
  if (!QDir().mkpath(QFileInfo(path).absolutePath())) {
    error_ = QString("cannot create the folder of %1").arg(path);
    return;
  }
  QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", connection_);
  db.setDatabaseName(path);
  db.setConnectOptions("QSQLITE_BUSY_TIMEOUT=10000");
  if (!db.open()) {
    error_ = QString("cannot open the run store %1: %2").arg(path, db.lastError().text());
    return;
  }
  // WAL: readers never block the writer, and a crash loses no committed run. NORMAL sync
  // is durable against a killed process (only a power loss can drop the last commits).
  if (!exec("PRAGMA journal_mode=WAL") || !exec("PRAGMA synchronous=NORMAL") ||
      !exec("PRAGMA foreign_keys=ON") || !migrate())
    error_ = QString("the run store %1: %2").arg(path, error_);
}

RunStore::~RunStore() {
  { QSqlDatabase::database(connection_, false).close(); }
  QSqlDatabase::removeDatabase(connection_);
}

bool RunStore::exec(const QString& sql) {
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  if (q.exec(sql)) return true;
  error_ = QString("%1: %2").arg(sql.left(60), q.lastError().text());
  return false;
}

int RunStore::schemaVersion() const {
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  return q.exec("PRAGMA user_version") && q.next() ? q.value(0).toInt() : -1;
}

bool RunStore::migrate() {
  const int from = schemaVersion();
  if (from > kSchemaVersion) {
    error_ = QString("it was written by a newer TokenScope (schema %1; this one reads up to %2)")
                 .arg(from)
                 .arg(kSchemaVersion);
    return false;
  }
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  for (int version = from + 1; version <= kSchemaVersion; ++version) {
    if (version == 0) continue;
    db.transaction();
    bool ok = true;
    if (version == 1)
      for (const char* sql : kSchemaV1) ok = ok && exec(sql);
    if (version == 2) {
      for (const char* sql : kSchemaV2) ok = ok && exec(sql);
      QSqlQuery rows(db);  // the searchable prompt of runs stored before it existed
      ok = ok && rows.exec("SELECT id, request_json FROM runs");
      while (ok && rows.next()) {
        QSqlQuery set(db);
        set.prepare("UPDATE runs SET prompt = ? WHERE id = ?");
        set.addBindValue(promptText(requestFromJson(jsonObject(rows.value(1).toString()))));
        set.addBindValue(rows.value(0));
        ok = set.exec();
      }
    }
    if (version == 3)
      for (const char* sql : kSchemaV3) ok = ok && exec(sql);
    if (version == 4)
      for (const char* sql : kSchemaV4) ok = ok && exec(sql);
    ok = ok && exec(QString("PRAGMA user_version = %1").arg(version));
    if (!ok || !db.commit()) {
      db.rollback();
      if (error_.isEmpty()) error_ = db.lastError().text();
      error_ = QString("migration to schema %1 failed (nothing was changed): %2")
                   .arg(version)
                   .arg(error_);
      return false;
    }
  }
  return true;
}

qint64 RunStore::beginRun(const GenerationRequest& request, const RunContext& c) {
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  q.prepare(
      "INSERT INTO runs (started_at, provider, model, request_json, status, base_url, backend, "
      "weights, kv, speculative, group_name, tags_json, environment_json, pid, prompt, threads) "
      "VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (const QVariant& v :
       {QVariant(QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs)), nonNull(c.provider),
        nonNull(c.model), QVariant(jsonText(requestJson(request))), nonNull(c.base_url),
        nonNull(c.backend), nonNull(c.weights), nonNull(c.kv), nonNull(c.speculative),
        nonNull(c.group),
        QVariant(QString::fromUtf8(
            QJsonDocument(QJsonArray::fromStringList(c.tags)).toJson(QJsonDocument::Compact))),
        QVariant(jsonText(environmentInfo())), QVariant(static_cast<qint64>(::getpid())),
        QVariant(promptText(request)), QVariant(c.threads)})
    q.addBindValue(v);
  if (!q.exec()) {
    error_ = "cannot record the run: " + q.lastError().text();
    return -1;
  }
  return q.lastInsertId().toLongLong();
}

bool RunStore::insertEvents(qint64 id, const RecordedRun& run, size_t from) {
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  q.prepare("INSERT OR REPLACE INTO events (run_id, seq, json) VALUES (?, ?, ?)");
  for (size_t i = from; i < run.events.size(); ++i) {
    q.addBindValue(id);
    q.addBindValue(static_cast<qint64>(i));
    q.addBindValue(jsonText(eventJson(run.events[i], run.start_ns)));
    if (!q.exec()) {
      error_ = q.lastError().text();
      return false;
    }
  }
  return true;
}

bool RunStore::appendEvents(qint64 id, const RecordedRun& run, size_t from) {
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  db.transaction();
  bool ok = insertEvents(id, run, from);
  QSqlQuery text(db);
  text.prepare("UPDATE runs SET text = ? WHERE id = ?");
  text.addBindValue(QString::fromStdString(run.contentText()));
  text.addBindValue(id);
  ok = ok && text.exec();
  if (!ok || !db.commit()) {
    error_ = "cannot record the run's events: " + (ok ? db.lastError().text() : error_);
    db.rollback();
    return false;
  }
  return true;
}

bool RunStore::finishRun(qint64 id, const RecordedRun& run, size_t from) {
  if (!appendEvents(id, run, from)) return false;
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  q.prepare("UPDATE runs SET status = ?, metrics_json = ? WHERE id = ?");
  q.addBindValue(statusOf(run));
  q.addBindValue(jsonText(metricsJson(run)));
  q.addBindValue(id);
  if (q.exec()) return true;
  error_ = "cannot record the run's end: " + q.lastError().text();
  return false;
}

int RunStore::markInterrupted() {
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  QSqlQuery q(db);
  if (!q.exec("SELECT id, pid FROM runs WHERE status = 'running'")) return 0;
  QList<qint64> gone;
  while (q.next())
    if (!processAlive(q.value(1).toLongLong())) gone << q.value(0).toLongLong();
  for (qint64 id : gone) {
    std::optional<StoredRun> run = load(id);
    QSqlQuery set(db);
    set.prepare("UPDATE runs SET status = 'interrupted', metrics_json = ? WHERE id = ?");
    set.addBindValue(run ? jsonText(metricsJson(run->run)) : QString("{}"));
    set.addBindValue(id);
    set.exec();
  }
  return static_cast<int>(gone.size());
}

namespace {

StoredRun rowToRun(const QSqlQuery& q) {
  StoredRun r;
  r.id = q.value("id").toLongLong();
  r.started = QDateTime::fromString(q.value("started_at").toString(), Qt::ISODateWithMs);
  r.started.setTimeSpec(Qt::UTC);
  r.status = q.value("status").toString();
  r.request = requestFromJson(jsonObject(q.value("request_json").toString()));
  r.context.provider = q.value("provider").toString();
  r.context.model = q.value("model").toString();
  r.context.base_url = q.value("base_url").toString();
  r.context.backend = q.value("backend").toString();
  r.context.weights = q.value("weights").toString();
  r.context.kv = q.value("kv").toString();
  r.context.threads = q.value("threads").toInt();
  r.context.speculative = q.value("speculative").toString();
  r.context.group = q.value("group_name").toString();
  for (const QJsonValue& t :
       QJsonDocument::fromJson(q.value("tags_json").toString().toUtf8()).array())
    r.context.tags << t.toString();
  r.text = q.value("text").toString();
  r.note = q.value("note").toString();
  r.environment = jsonObject(q.value("environment_json").toString());
  r.metrics = jsonObject(q.value("metrics_json").toString());
  return r;
}

}  // namespace

QList<StoredRun> RunStore::list(const RunFilter& f) {
  QString sql = "SELECT * FROM runs WHERE 1";
  QVariantList binds;
  const auto add = [&](const QString& clause, const QVariant& value) {
    sql += " AND " + clause;
    binds << value;
  };
  if (!f.provider.isEmpty()) add("provider = ?", f.provider);
  if (!f.model.isEmpty()) add("model = ?", f.model);
  if (!f.tag.isEmpty()) add("tags_json LIKE ? ESCAPE '\\'", likePattern("\"" + f.tag + "\""));
  if (!f.search.isEmpty()) add("prompt LIKE ? ESCAPE '\\'", likePattern(f.search));
  if (!f.group.isEmpty()) add("group_name = ?", f.group);
  if (f.from.isValid()) add("started_at >= ?", f.from.toUTC().toString(Qt::ISODateWithMs));
  if (f.to.isValid()) add("started_at <= ?", f.to.toUTC().toString(Qt::ISODateWithMs));
  sql += QString(" ORDER BY started_at DESC, id DESC LIMIT %1").arg(std::max(1, f.limit));
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  q.prepare(sql);
  for (const QVariant& v : binds) q.addBindValue(v);
  QList<StoredRun> out;
  if (!q.exec()) {
    error_ = q.lastError().text();
    return out;
  }
  while (q.next()) out << rowToRun(q);
  return out;
}

std::optional<StoredRun> RunStore::load(qint64 id) {
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  QSqlQuery q(db);
  q.prepare("SELECT * FROM runs WHERE id = ?");
  q.addBindValue(id);
  if (!q.exec() || !q.next()) return std::nullopt;
  StoredRun r = rowToRun(q);
  QSqlQuery events(db);
  events.prepare("SELECT json FROM events WHERE run_id = ? ORDER BY seq");
  events.addBindValue(id);
  if (events.exec())
    while (events.next())
      if (auto e = eventFromJson(jsonObject(events.value(0).toString()), 0))
        r.run.events.push_back(*e);
  return r;
}

QStringList RunStore::distinct(const QString& column) {
  QStringList out;
  if (column != "provider" && column != "model") return out;  // never SQL from outside
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  if (q.exec(QString("SELECT DISTINCT %1 FROM runs ORDER BY %1").arg(column)))
    while (q.next()) out << q.value(0).toString();
  return out;
}

bool RunStore::setTags(qint64 id, const QStringList& tags) {
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  q.prepare("UPDATE runs SET tags_json = ? WHERE id = ?");
  q.addBindValue(QString::fromUtf8(
      QJsonDocument(QJsonArray::fromStringList(tags)).toJson(QJsonDocument::Compact)));
  q.addBindValue(id);
  return q.exec() && q.numRowsAffected() == 1;
}

bool RunStore::setNote(qint64 id, const QString& note) {
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  q.prepare("UPDATE runs SET note = ? WHERE id = ?");
  q.addBindValue(note);
  q.addBindValue(id);
  return q.exec() && q.numRowsAffected() == 1;
}

bool RunStore::remove(qint64 id) {
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  q.prepare("DELETE FROM runs WHERE id = ?");  // events go with it (ON DELETE CASCADE)
  q.addBindValue(id);
  return q.exec() && q.numRowsAffected() == 1;
}

bool RunStore::setImportKey(qint64 id, const QByteArray& log_line) {
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  q.prepare("UPDATE runs SET import_key = ? WHERE id = ?");
  q.addBindValue(importKey(log_line));
  q.addBindValue(id);
  return q.exec() && q.numRowsAffected() == 1;
}

ImportSummary RunStore::importLog(const QString& path) {
  ImportSummary summary;
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    summary.skipped << QString("%1: %2").arg(path, file.errorString());
    return summary;
  }
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  int number = 0;
  while (!file.atEnd()) {
    const QByteArray line = file.readLine().trimmed();
    ++number;
    if (line.isEmpty()) continue;
    QJsonParseError parse;
    const QJsonObject o = QJsonDocument::fromJson(line, &parse).object();
    if (parse.error != QJsonParseError::NoError || !o.value("events").isArray()) {
      summary.skipped << QString("line %1: %2")
                             .arg(number)
                             .arg(parse.error != QJsonParseError::NoError
                                      ? parse.errorString() + " (a truncated line?)"
                                      : QString("expected a run with \"events\""));
      continue;
    }
    const QString key = importKey(line);
    QSqlQuery seen(db);
    seen.prepare("SELECT 1 FROM runs WHERE import_key = ?");
    seen.addBindValue(key);
    if (seen.exec() && seen.next()) {
      ++summary.duplicates;
      continue;
    }
    RecordedRun run;
    for (const QJsonValue& e : o.value("events").toArray())
      if (auto event = eventFromJson(e.toObject(), 0)) run.events.push_back(*event);
    const GenerationRequest request = requestFromJson(o.value("request").toObject());
    db.transaction();
    QSqlQuery q(db);
    q.prepare(
        "INSERT INTO runs (started_at, provider, model, request_json, status, text, "
        "metrics_json, base_url, prompt, import_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    for (const QVariant& v :
         {QVariant(o.value("time").toString()), QVariant(QString::fromStdString(request.provider)),
          QVariant(QString::fromStdString(request.model)), QVariant(jsonText(requestJson(request))),
          QVariant(statusOf(run)), QVariant(QString::fromStdString(run.contentText())),
          QVariant(jsonText(metricsJson(run))), nonNull(o.value("base_url").toString()),
          QVariant(promptText(request)), QVariant(key)})
      q.addBindValue(v);
    const bool ok = q.exec() && insertEvents(q.lastInsertId().toLongLong(), run, 0);
    if (ok && db.commit()) {
      ++summary.imported;
    } else {
      db.rollback();
      summary.skipped << QString("line %1: %2").arg(number).arg(db.lastError().text());
    }
  }
  return summary;
}

RunStoreWriter::RunStoreWriter(RunStore& store, const GenerationRequest& request,
                               const RunContext& context, int interval_ms)
    : store_(store), id_(store.beginRun(request, context)), interval_ms_(interval_ms) {}

void RunStoreWriter::update(const RecordedRun& run) {
  if (id_ < 0) return;
  if (since_write_.isValid() && since_write_.elapsed() < interval_ms_) return;
  since_write_.start();
  if (store_.appendEvents(id_, run, written_)) written_ = run.events.size();
}

void RunStoreWriter::finish(const RecordedRun& run) {
  if (id_ >= 0 && store_.finishRun(id_, run, written_)) written_ = run.events.size();
}

qint64 RunStore::addLabReport(const QJsonObject& report) {
  const QJsonObject baseline = report.value("baseline").toObject();
  const QJsonArray variants = report.value("variants").toArray();
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  q.prepare("INSERT INTO lab_reports (started_at, model, lever, report_json) VALUES (?, ?, ?, ?)");
  q.addBindValue(QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs));
  q.addBindValue(nonNull(baseline.value("model").toString()));
  q.addBindValue(nonNull(variants.isEmpty() ? QString()
                                            : variants.at(0).toObject().value("lever").toString()));
  q.addBindValue(jsonText(report));
  if (!q.exec()) {
    error_ = q.lastError().text();
    return -1;
  }
  return q.lastInsertId().toLongLong();
}

QList<StoredLabReport> RunStore::labReports(const QString& lever, int limit) {
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  q.prepare(QString("SELECT id, started_at, model, lever, report_json FROM lab_reports %1 "
                    "ORDER BY started_at DESC, id DESC LIMIT ?")
                .arg(lever.isEmpty() ? "" : "WHERE lever = ?"));
  if (!lever.isEmpty()) q.addBindValue(lever);
  q.addBindValue(limit);
  QList<StoredLabReport> out;
  if (!q.exec()) {
    error_ = q.lastError().text();
    return out;
  }
  while (q.next())
    out.append({q.value(0).toLongLong(),
                QDateTime::fromString(q.value(1).toString(), Qt::ISODateWithMs),
                q.value(2).toString(), q.value(3).toString(), jsonObject(q.value(4).toString())});
  return out;
}

}  // namespace ts
