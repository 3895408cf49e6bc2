// A benchmark sweep's saved JSON (issue 42): the figures under "axis", "slo" and "steps" as
// before, and every setting of the run, so that a file says what was measured and how.
#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "app/bench/bench_sweep.h"
#include "tests/support/openai_test_server.h"
#include "ui/benchmark_dialog.h"

using namespace ts;

class TestBenchSweep : public QObject {
  Q_OBJECT

  testing::OpenAiTestServer server_;

  BenchOptions options() {
    BenchOptions o;
    o.endpoint.provider_name = "Gateway";
    o.endpoint.base_url = QString::fromStdString(server_.baseUrl());
    o.endpoint.max_retries = 0;
    o.request.provider = "Gateway";
    o.request.model = "test-model";
    o.request.messages = {{"user", "Write a haiku about queues."}};
    o.request.params.max_tokens = 4;
    o.request.params.temperature = 0;
    o.request.params.seed = 0;
    o.requests = 2;
    o.slo.ttft_ms = 1000;
    return o;
  }

  // Runs the sweep to its end; its JSON as a file would hold it (written, read back).
  QJsonObject run(BenchSweep& sweep) {
    QSignalSpy done(&sweep, &BenchSweep::finished);
    sweep.start();
    if (!done.wait(30000)) return {};
    return QJsonDocument::fromJson(QJsonDocument(sweep.json()).toJson()).object();
  }

 private slots:
  void initTestCase() {
    QVERIFY(server_.start() > 0);
    testing::ServerScript s;
    s.ttft_ms = 5;
    s.chunks = 4;
    server_.setScript(s);
  }

  // A concurrency sweep saved from the dialog: the parsed file names the model, where the
  // requests went, the prompt, the parameters, the values, when and with which app.
  void savedJsonCarriesTheRunsSettings() {
    const RunContext context{"Gateway", QString::fromStdString(server_.baseUrl()), "test-model"};
    BenchSweep sweep(options(), SweepAxis::Concurrency, {2, 1}, nullptr, context);
    const QDateTime before = QDateTime::currentDateTimeUtc().addSecs(-1);
    const QJsonObject ran = run(sweep);
    QVERIFY(!ran.isEmpty());
    ui::BenchmarkDialog dialog(context.base_url, "test-model");
    dialog.onFinished(false, 2, sweep.json());
    QTemporaryDir dir;
    const QString path = dir.filePath("sweep.json");
    QCOMPARE(dialog.saveJson(path), QString());
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject saved = QJsonDocument::fromJson(f.readAll()).object();
    // the interface as it was
    QCOMPARE(saved.value("axis").toString(), QString("concurrency"));
    QCOMPARE(saved.value("slo").toObject().value("ttft_ms").toDouble(), 1000.0);
    const QJsonArray steps = saved.value("steps").toArray();
    QCOMPARE(steps.size(), 2);
    QCOMPARE(steps[0].toObject().value("value").toDouble(), 2.0);
    QCOMPARE(steps[0].toObject().value("requests_completed").toInt(), 2);
    // the settings
    QCOMPARE(saved.value("model").toString(), QString("test-model"));
    QCOMPARE(saved.value("provider").toString(), QString("Gateway"));
    QCOMPARE(saved.value("base_url").toString(), QString::fromStdString(server_.baseUrl()));
    QCOMPARE(saved.value("prompt").toString(), QString("Write a haiku about queues."));
    QCOMPARE(saved.value("max_tokens").toInt(), 4);
    QVERIFY(saved.contains("temperature"));
    QCOMPARE(saved.value("temperature").toDouble(), 0.0);
    QCOMPARE(saved.value("requests_per_step").toInt(), 2);
    QCOMPARE(saved.value("warmup_requests").toInt(), 0);
    QCOMPARE(saved.value("values").toArray(), QJsonArray({2, 1}));
    QVERIFY(!saved.contains("burstiness"));  // no arrivals to shape in a concurrency sweep
    const QDateTime date = QDateTime::fromString(saved.value("date").toString(), Qt::ISODate);
    QVERIFY2(date.isValid() && date >= before && date <= QDateTime::currentDateTimeUtc(),
             qPrintable(saved.value("date").toString()));
    QCOMPARE(saved.value("app_version").toString(), QString(TOKENSCOPE_VERSION));
  }

  // A rate sweep keeps its burstiness and the cap on requests in flight.
  void aRateSweepKeepsItsBurstinessAndCap() {
    BenchOptions o = options();
    o.burstiness = 0.5;
    o.concurrency = 3;
    const RunContext context{"Gateway", QString::fromStdString(server_.baseUrl()), "test-model"};
    BenchSweep sweep(o, SweepAxis::Rate, {50}, nullptr, context);
    const QJsonObject saved = run(sweep);
    QCOMPARE(saved.value("axis").toString(), QString("request_rate"));
    QCOMPARE(saved.value("burstiness").toDouble(), 0.5);
    QCOMPARE(saved.value("concurrency").toInt(), 3);
    QCOMPARE(saved.value("values").toArray(), QJsonArray({50}));
  }
};

QTEST_MAIN(TestBenchSweep)
#include "test_bench_sweep.moc"
