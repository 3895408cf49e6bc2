// The run store keeps every run through crashes, upgrades and concurrent writers: round
// trip of request, context, events and metrics; filters, tags, notes, delete; migration
// from schema 1; a newer schema refused; a writer process killed with SIGKILL mid-stream
// (earlier runs intact, this one "interrupted" with its partial text); 8 threads writing
// at once; importing run logs (a truncated last line skipped, no double import).
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QProcess>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>

#include "app/store/run_json.h"
#include "app/store/run_log.h"
#include "app/store/run_store.h"
#include "inference/stream/metrics.h"

using namespace ts;

namespace {

GenerationRequest request(const std::string& prompt) {
  GenerationRequest r;
  r.provider = "Test";
  r.model = "m1";
  r.messages = {{"system", "be brief"}, {"user", prompt}};
  r.params.temperature = 0.25;
  r.params.max_tokens = 64;
  r.params.seed = 7;
  return r;
}

// A run of `chunks` one-token chunks, 10 ms apart after a 50 ms TTFT, then usage + finished.
RecordedRun scriptedRun(int chunks, const std::string& word = "tok") {
  RecordedRun run;
  run.start_ns = 1'000'000'000;
  run.events.push_back(StreamEvent::started(run.start_ns));
  for (int i = 0; i < chunks; ++i)
    run.events.push_back(
        StreamEvent::chunk(run.start_ns + 50'000'000 + i * 10'000'000LL, word + " ", 1));
  run.events.push_back(
      StreamEvent::usage(run.start_ns + 50'000'000 + chunks * 10'000'000LL, 9, chunks));
  run.events.push_back(
      StreamEvent::finished(run.start_ns + 51'000'000 + chunks * 10'000'000LL, "stop"));
  return run;
}

// The child of killedWriterLeavesEarlierRunsIntact: three finished runs, then one that
// streams until it is killed. Prints "streaming" once the partial text is stored.
int childWriter(const QString& path) {
  RunStore store(path);
  if (!store.isOpen()) return 2;
  for (int i = 0; i < 3; ++i) {
    RunStoreWriter w(store, request("earlier " + std::to_string(i)), {"Test", "", "m1"});
    w.finish(scriptedRun(5, "done" + std::to_string(i)));
  }
  RunStoreWriter w(store, request("killed"), {"Test", "", "m1"}, 0);
  RecordedRun run;
  run.start_ns = 1;
  run.events.push_back(StreamEvent::started(1));
  for (int i = 0;; ++i) {
    run.events.push_back(StreamEvent::chunk(1 + (i + 1) * 1'000'000LL, "part ", 1));
    w.update(run);
    if (i == 20) {
      std::printf("streaming\n");
      std::fflush(stdout);
    }
    QThread::msleep(5);
  }
}

}  // namespace

class TestRunStore : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

 private slots:
  void runsRoundTripAndCanBeFilteredTaggedNotedDeleted() {
    RunStore store(dir_.filePath("a.sqlite"));
    QVERIFY2(store.isOpen(), qPrintable(store.error()));
    QCOMPARE(store.schemaVersion(), RunStore::kSchemaVersion);
    RecordedRun run = scriptedRun(12);
    run.events[13].cached_tokens = 7;  // the usage: 7 of its 9 prompt tokens were cached
    RunContext context{"Local", "/m.gguf",        "tiny", "cpu",        "int4",
                       "int8",  "self-int4, K 4", "g1",   {"baseline"}, 3};
    RunStoreWriter writer(store, request("Tell me about WAL mode"), context, 0);
    QVERIFY(writer.id() > 0);
    RecordedRun partial = run;
    partial.events.resize(5);
    writer.update(partial);
    QCOMPARE(store.load(writer.id())->status, QString("running"));
    QCOMPARE(store.load(writer.id())->text, QString("tok tok tok tok "));
    writer.finish(run);
    RunStoreWriter other(store, request("Something else"), {"Remote", "http://x", "m2"});
    other.finish(scriptedRun(3));

    const std::optional<StoredRun> back = store.load(writer.id());
    QVERIFY(back);
    QCOMPARE(back->status, QString("finished"));
    QCOMPARE(back->run.events.size(), run.events.size());
    for (size_t i = 0; i < run.events.size(); ++i) {
      QCOMPARE(back->run.events[i].kind, run.events[i].kind);
      QCOMPARE(back->run.events[i].t_ns - back->run.events[0].t_ns,
               run.events[i].t_ns - run.events[0].t_ns);
      QCOMPARE(back->run.events[i].text, run.events[i].text);
    }
    const RunMetrics m = computeMetrics(run);
    QCOMPARE(back->run.events[13].cached_tokens, int64_t{7});
    QCOMPARE(back->metrics.value("cached_tokens").toInt(), 7);
    QCOMPARE(back->metrics.value("ttft_ms").toDouble(), *m.ttft_ns / 1e6);
    QCOMPARE(back->metrics.value("tpot_ms").toDouble(), *m.tpot_ns / 1e6);
    QCOMPARE(computeMetrics(back->run).itl_ns, m.itl_ns);
    QCOMPARE(back->request.messages.back().content, std::string("Tell me about WAL mode"));
    QCOMPARE(back->request.params.temperature, 0.25);
    QCOMPARE(*back->request.params.seed, int64_t{7});
    QCOMPARE(back->context.weights, QString("int4"));
    QCOMPARE(back->context.speculative, QString("self-int4, K 4"));
    QCOMPARE(back->context.threads, 3);
    QCOMPARE(back->context.tags, QStringList{"baseline"});
    QVERIFY(back->environment.contains("cpu") && back->environment.contains("app_version"));

    QVERIFY2(other.id() > 0, qPrintable(store.error()));
    QCOMPARE(store.list().size(), 2);
    QCOMPARE(store.list({"Local"}).size(), 1);
    QCOMPARE(store.distinct("provider"), (QStringList{"Local", "Remote"}));
    QVERIFY(store.distinct("prompt; DROP TABLE runs").isEmpty());
    QCOMPARE(store.list({"", "m2"}).size(), 1);
    QCOMPARE(store.list({"", "", "baseline"}).size(), 1);
    QCOMPARE(store.list({"", "", "", "WAL"}).size(), 1);
    QCOMPARE(store.list({"", "", "", "100%_"}).size(), 0);  // wildcards are literal
    RunFilter recent;
    recent.from = QDateTime::currentDateTimeUtc().addSecs(-3600);
    QCOMPARE(store.list(recent).size(), 2);
    RunFilter future;
    future.from = QDateTime::currentDateTimeUtc().addSecs(3600);
    QCOMPARE(store.list(future).size(), 0);
    QVERIFY(store.setTags(other.id(), {"int8", "night"}));
    QVERIFY(store.setNote(other.id(), "before the driver update"));
    QCOMPARE(store.list({"", "", "night"}).value(0).note, QString("before the driver update"));
    QVERIFY(store.remove(writer.id()));
    QVERIFY(!store.load(writer.id()));
    QCOMPARE(store.list().size(), 1);
    RunStore again(dir_.filePath("a.sqlite"));
    QCOMPARE(again.list().size(), 1);
  }

  void labReportsAreKeptNewestFirstPerLever() {
    RunStore store(dir_.filePath("lab.sqlite"));
    QVERIFY2(store.isOpen(), qPrintable(store.error()));
    const auto report = [](const QString& lever, double predicted, double measured) {
      const QJsonObject metric{{"predicted_change_pct", predicted}, {"change_pct", measured}};
      return QJsonObject{
          {"baseline", QJsonObject{{"model", "/models/m.gguf"}}},
          {"variants", QJsonArray{QJsonObject{
                           {"lever", lever}, {"metrics", QJsonObject{{"decode_tok_s", metric}}}}}}};
    };
    QVERIFY(store.addLabReport(report("weights", 55, 62)) > 0);
    QVERIFY(store.addLabReport(report("kv", 1, 2)) > 0);
    QVERIFY(store.addLabReport(report("weights", 80, 70)) > 0);
    const QList<StoredLabReport> weights = store.labReports("weights");
    QCOMPARE(weights.size(), 2);
    QCOMPARE(weights[0].model, QString("/models/m.gguf"));
    const auto decode = [](const StoredLabReport& r) {
      return r.report["variants"][0]["metrics"]["decode_tok_s"]["change_pct"].toDouble();
    };
    QCOMPARE(decode(weights[0]), 70.0);  // newest first
    QCOMPARE(decode(weights[1]), 62.0);
    QCOMPARE(store.labReports().size(), 3);
    RunStore again(dir_.filePath("lab.sqlite"));  // kept on disk
    QCOMPARE(again.labReports("kv").size(), 1);
  }

  void schemaOneIsMigratedAndANewerSchemaRefused() {
    const QString path = dir_.filePath("old.sqlite");
    {
      QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "old");
      db.setDatabaseName(path);
      QVERIFY(db.open());
      QSqlQuery q(db);
      QVERIFY(q.exec(
          "CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, started_at TEXT NOT NULL, "
          "provider TEXT NOT NULL DEFAULT '', model TEXT NOT NULL DEFAULT '', "
          "request_json TEXT NOT NULL, status TEXT NOT NULL, text TEXT NOT NULL DEFAULT '', "
          "metrics_json TEXT NOT NULL DEFAULT '{}')"));
      QVERIFY(
          q.exec("CREATE TABLE events (run_id INTEGER NOT NULL REFERENCES runs(id) ON "
                 "DELETE CASCADE, seq INTEGER NOT NULL, json TEXT NOT NULL, PRIMARY KEY "
                 "(run_id, seq))"));
      QVERIFY(q.exec("PRAGMA user_version = 1"));
      q.prepare(
          "INSERT INTO runs (started_at, provider, model, request_json, status, text) "
          "VALUES ('2026-11-01T10:00:00.000Z', 'Old', 'm0', ?, 'finished', 'hello')");
      q.addBindValue(QString::fromUtf8(
          QJsonDocument(requestJson(request("an old prompt"))).toJson(QJsonDocument::Compact)));
      QVERIFY(q.exec());
      db.close();
    }
    QSqlDatabase::removeDatabase("old");
    {
      RunStore store(path);
      QVERIFY2(store.isOpen(), qPrintable(store.error()));
      QCOMPARE(store.schemaVersion(), RunStore::kSchemaVersion);
      const QList<StoredRun> runs = store.list({"", "", "", "old prompt"});
      QCOMPARE(runs.size(), 1);
      QCOMPARE(runs[0].text, QString("hello"));
      QCOMPARE(runs[0].context.provider, QString("Old"));
      QVERIFY(runs[0].context.tags.isEmpty());
      QCOMPARE(runs[0].context.threads, 0);  // stored before threads were: unknown
      QVERIFY(store.setNote(runs[0].id, "migrated"));
    }
    {
      QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "newer");
      db.setDatabaseName(path);
      QVERIFY(db.open());
      QSqlQuery(db).exec("PRAGMA user_version = 99");
      db.close();
    }
    QSqlDatabase::removeDatabase("newer");
    RunStore newer(path);
    QVERIFY(!newer.isOpen());
    QVERIFY2(newer.error().contains("newer TokenScope") && newer.error().contains("99"),
             qPrintable(newer.error()));
  }

  void killedWriterLeavesEarlierRunsIntact() {
    const QString path = dir_.filePath("killed.sqlite");
    QProcess child;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("RUN_STORE_CHILD", path);
    child.setProcessEnvironment(env);
    child.start(QCoreApplication::applicationFilePath(), {});
    QVERIFY(child.waitForStarted(5000));
    QByteArray out;
    QTRY_VERIFY_WITH_TIMEOUT((out += child.readAllStandardOutput()).contains("streaming"), 20000);
    QTest::qWait(50);
    child.kill();  // SIGKILL: no destructor, no commit of anything in flight
    QVERIFY(child.waitForFinished(5000));
    QCOMPARE(child.exitStatus(), QProcess::CrashExit);

    RunStore store(path);
    QVERIFY2(store.isOpen(), qPrintable(store.error()));
    QCOMPARE(store.markInterrupted(), 1);
    const QList<StoredRun> runs = store.list();
    QCOMPARE(runs.size(), 4);
    QCOMPARE(runs[0].status, QString("interrupted"));
    QVERIFY2(runs[0].text.startsWith("part part part") && runs[0].text.size() >= 21 * 5,
             qPrintable(runs[0].text));
    QVERIFY(runs[0].metrics.value("ttft_ms").isDouble());
    for (int i = 1; i < 4; ++i) {
      QCOMPARE(runs[i].status, QString("finished"));
      QCOMPARE(runs[i].text, QString("done%1 ").arg(3 - i).repeated(5));
      QCOMPARE(store.load(runs[i].id)->run.events.size(), size_t{8});
    }
    QCOMPARE(store.markInterrupted(), 0);  // once
  }

  void eightThreadsWriteAtOnce() {
    const QString path = dir_.filePath("threads.sqlite");
    { RunStore create(path); }
    std::vector<std::thread> threads;
    std::atomic<int> failures{0};
    for (int t = 0; t < 8; ++t)
      threads.emplace_back([&, t] {
        RunStore store(path);
        if (!store.isOpen()) ++failures;
        for (int i = 0; i < 30; ++i) {
          RunStoreWriter w(store, request("worker " + std::to_string(t)),
                           {"Bench", "", "m", "", "", "", "", QString("step-%1").arg(t)}, 0);
          RecordedRun run = scriptedRun(20);
          RecordedRun half = run;
          half.events.resize(10);
          w.update(half);
          w.finish(run);
          if (w.id() < 0) ++failures;
        }
      });
    for (auto& t : threads) t.join();
    QCOMPARE(failures.load(), 0);
    RunStore store(path);
    const QList<StoredRun> runs = store.list();
    QCOMPARE(runs.size(), 240);
    int complete = 0;
    for (const StoredRun& r : runs)
      complete += r.status == "finished" && r.text == QString("tok ").repeated(20);
    QCOMPARE(complete, 240);
    QCOMPARE(store.load(runs[17].id)->run.events.size(), size_t{23});
  }

  void runLogsAreImportedOnce() {
    const QString logs = dir_.filePath("logs");
    for (int i = 0; i < 3; ++i)
      QCOMPARE(appendRunLog(logs, request("logged " + std::to_string(i)), scriptedRun(4 + i),
                            {"http://127.0.0.1:9/v1", "", 1}),
               QString());
    const QString file = QDir(logs).entryInfoList({"*.jsonl"}).value(0).filePath();
    QFile f(file);
    QVERIFY(f.open(QIODevice::Append));
    f.write(R"({"time": "2026-12-02T10:00:00.000Z", "request": {"provider": "Cut)");  // no \n
    f.close();
    RunStore store(dir_.filePath("import.sqlite"));
    const ImportSummary first = store.importLog(file);
    QCOMPARE(first.imported, 3);
    QCOMPARE(first.skipped.size(), 1);
    QVERIFY2(first.skipped[0].startsWith("line 4:"), qPrintable(first.skipped[0]));
    const ImportSummary second = store.importLog(file);
    QCOMPARE(second.imported, 0);
    QCOMPARE(second.duplicates, 3);
    const QList<StoredRun> runs = store.list({"", "", "", "logged 2"});
    QCOMPARE(runs.size(), 1);
    QCOMPARE(runs[0].text, QString("tok ").repeated(6));
    QCOMPARE(runs[0].context.base_url, QString("http://127.0.0.1:9/v1"));
    QCOMPARE(store.load(runs[0].id)->run.events.size(), size_t{9});
    QCOMPARE(runs[0].metrics.value("output_tokens").toInt(), 6);
  }
};

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  if (qEnvironmentVariableIsSet("RUN_STORE_CHILD"))
    return childWriter(qEnvironmentVariable("RUN_STORE_CHILD"));
  TestRunStore test;
  return QTest::qExec(&test, argc, argv);
}

#include "test_run_store.moc"
