// The comparison's figures are the metric functions' results for hand-built runs (a
// single run and a group), the settings table lists exactly what differs, and the CSV
// and JSON exports carry those numbers under the documented names.
#include <QJsonArray>
#include <QTest>

#include "app/compare/comparison.h"

using namespace ts;

namespace {

// A run with TTFT `ttft_ms` and `chunks` one-token chunks `gap_ms` apart.
StoredRun handRun(qint64 id, double ttft_ms, double gap_ms, int chunks, double temperature) {
  StoredRun r;
  r.id = id;
  r.context = {"Local", "/m.gguf", "tiny", "cpu", "int4", "int8"};
  r.request.messages = {{"user", "hello"}};
  r.request.params.temperature = temperature;
  r.environment = {{"cpu", "test cpu"}};
  RecordedRun& run = r.run;
  run.start_ns = 0;
  run.events.push_back(StreamEvent::started(0));
  for (int i = 0; i < chunks; ++i)
    run.events.push_back(
        StreamEvent::chunk(static_cast<int64_t>((ttft_ms + i * gap_ms) * 1e6), "t", 1));
  run.events.push_back(
      StreamEvent::finished(static_cast<int64_t>((ttft_ms + chunks * gap_ms) * 1e6), "stop"));
  return r;
}

}  // namespace

class TestComparison : public QObject {
  Q_OBJECT
 private slots:
  void figuresAreTheMetricFunctionsResults() {
    const std::vector<StoredRun> group = {handRun(1, 100, 10, 11, 0.7), handRun(2, 120, 20, 6, 0.7),
                                          handRun(3, 80, 5, 21, 0.7)};
    const ComparedSeries s = compareRuns("group", group);
    std::vector<double> ttft, tpot, itl, e2e;
    for (const StoredRun& r : group) {
      const RunMetrics m = computeMetrics(r.run);
      ttft.push_back(*m.ttft_ns / 1e6);
      tpot.push_back(*m.tpot_ns / 1e6);
      e2e.push_back(*m.e2e_ns / 1e6);
      for (int64_t g : m.itl_ns) itl.push_back(g / 1e6);
    }
    for (auto [got, want] :
         {std::pair{s.ttft_ms, summarize(ttft)}, std::pair{s.tpot_ms, summarize(tpot)},
          std::pair{s.itl_ms, summarize(itl)}, std::pair{s.e2e_ms, summarize(e2e)}}) {
      QCOMPARE(got.count, want.count);
      QCOMPARE(got.p50, want.p50);
      QCOMPARE(got.p90, want.p90);
      QCOMPARE(got.p99, want.p99);
      QCOMPARE(got.mean, want.mean);
    }
    QCOMPARE(s.ttft_ms.p50, 100.0);  // by hand: TTFTs 80, 100, 120
    QCOMPARE(s.tpot_ms.p50, 10.0);   // TPOTs 5, 10, 20
    QCOMPARE(s.itl_ms.count, size_t{10 + 5 + 20});
    QCOMPARE(s.completed, 3);
    QCOMPARE(s.output_tokens, int64_t{38});
    QCOMPARE(s.itl_curve.size(), 10);  // the first run's gaps
    QCOMPARE(s.itl_curve.front(), QPointF(0.11, 10.0));
    QVERIFY(qAbs(*s.decode_tok_s - (100.0 + 50.0 + 200.0) / 3) < 1e-9);
    QCOMPARE(s.run_ids, (QList<qint64>{1, 2, 3}));
  }

  void onlyDifferingSettingsAreListed() {
    const ComparedSeries a = compareRuns("a", {handRun(1, 100, 10, 5, 0.7)});
    StoredRun other = handRun(2, 100, 10, 5, 0.2);
    other.context.weights = "int8";
    const ComparedSeries b = compareRuns("b", {other});
    const auto diff = differingSettings({a, b});
    QCOMPARE(diff.size(), 2);
    QCOMPARE(diff[0].first, QString("weights"));
    QCOMPARE(diff[0].second, (QStringList{"int4", "int8"}));
    QCOMPARE(diff[1].first, QString("temperature"));
    QCOMPARE(diff[1].second, (QStringList{"0.7", "0.2"}));
    QVERIFY(differingSettings({a, a}).isEmpty());
  }

  void exportsCarryTheNumbers() {
    const ComparedSeries a = compareRuns("int4, \"fast\"", {handRun(1, 100, 10, 11, 0.7)});
    const ComparedSeries b = compareRuns("f32", {handRun(2, 50, 20, 3, 0.7)});
    const QStringList csv = comparisonCsv({a, b}).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(csv[0], QString("series,metric,mean,p50,p90,p99,count"));
    QVERIFY2(csv.contains("\"int4, \"\"fast\"\"\",ttft_ms,100,100,100,100,1"),
             qPrintable(csv.join('\n')));
    QVERIFY(csv.contains("f32,tpot_ms,20,20,20,20,1"));
    QVERIFY(csv.contains("f32,decode_tok_s,50,,,,"));
    const QJsonArray series = comparisonJson({a, b}).value("series").toArray();
    QCOMPARE(series.size(), 2);
    const QJsonObject second = series[1].toObject();
    QCOMPARE(second.value("median_ttft_ms").toDouble(), 50.0);
    QCOMPARE(second.value("mean_tpot_ms").toDouble(), 20.0);
    QCOMPARE(second.value("p99_e2el_ms").toDouble(), 90.0);
    QCOMPARE(second.value("completed").toInt(), 1);
    QCOMPARE(second.value("settings").toObject().value("weights").toString(), QString("int4"));
  }
};

QTEST_GUILESS_MAIN(TestComparison)
#include "test_comparison.moc"
