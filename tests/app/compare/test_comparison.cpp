// The comparison's figures are the metric functions' results for hand-built runs (a
// single run and a group), the settings table lists exactly what differs (a benchmark
// step's concurrency or TPOT target too), the series' labels tell them apart, the CSV
// and JSON exports carry those numbers under the documented names with every setting, and
// runs that differ in two levers are flagged with the lab commands that measure each alone.
#include <QJsonArray>
#include <QTest>

#include "app/compare/bench_group.h"
#include "app/compare/comparison.h"
#include "app/compare/lever_attribution.h"

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

// `n` runs of one benchmark step: the group name as the desktop sweep writes it.
std::vector<StoredRun> benchStep(qint64 first_id, const QString& setting, int n) {
  std::vector<StoredRun> runs;
  for (int i = 0; i < n; ++i) {
    StoredRun r = handRun(first_id + i, 100 + 10 * i, 10, 5, 0.7);
    r.context.group = "bench 2026-12-06T10:00:00Z " + setting;
    r.started = QDateTime(QDate(2026, 12, 6), QTime(10, 0, i), Qt::UTC);
    runs.push_back(r);
  }
  return runs;
}

QString setting(const ComparedSeries& s, const QString& name) {
  for (const auto& [key, value] : seriesSettings(s))
    if (key == name) return value;
  return "(missing)";
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
    QVERIFY2(csv[0].startsWith("series,metric,mean,p50,p90,p99,count,run_ids,provider,base_url,"
                               "model,"),
             qPrintable(csv[0]));
    const auto row = [&](const QString& start) {
      for (const QString& line : csv)
        if (line.startsWith(start)) return line;
      return QString();
    };
    QVERIFY2(!row("\"int4, \"\"fast\"\"\",ttft_ms,100,100,100,100,1,1,Local,").isEmpty(),
             qPrintable(csv.join('\n')));
    QVERIFY(!row("f32,tpot_ms,20,20,20,20,1,2,Local,/m.gguf,tiny,cpu,int4,int8,,off,").isEmpty());
    QVERIFY(!row("f32,decode_tok_s,50,,,,,2,Local,").isEmpty());
    // every row has as many fields as the header
    QCOMPARE(row("f32,ttft_ms").count(','), csv[0].count(','));
    const QJsonArray series = comparisonJson({a, b}).value("series").toArray();
    QCOMPARE(series.size(), 2);
    const QJsonObject second = series[1].toObject();
    QCOMPARE(second.value("median_ttft_ms").toDouble(), 50.0);
    QCOMPARE(second.value("mean_tpot_ms").toDouble(), 20.0);
    QCOMPARE(second.value("p99_e2el_ms").toDouble(), 90.0);
    QCOMPARE(second.value("completed").toInt(), 1);
    QCOMPARE(second.value("settings").toObject().value("weights").toString(), QString("int4"));
  }

  // The exports carry every setting a reader needs to reproduce the runs: model, endpoint,
  // prompt, lengths, date, app version, and each run of a group.
  void exportsCarryEverySetting() {
    StoredRun run = handRun(7, 100, 10, 5, 0.7);
    run.request.messages = {{"user", "Why is the sky blue?"}};
    run.request.params.max_tokens = 128;
    run.started = QDateTime(QDate(2026, 12, 6), QTime(9, 30, 5), Qt::UTC);
    run.environment.insert("app_version", "0.1.0");
    const ComparedSeries one = compareRuns("one", {run});
    const ComparedSeries group = compareRuns("g", benchStep(10, "concurrency=8", 3),
                                             "bench 2026-12-06T10:00:00Z concurrency=8");
    const QString csv = comparisonCsv({one, group});
    const QString header = csv.section('\n', 0, 0);
    for (const char* name : {"model", "base_url", "prompt", "max_tokens", "prompt_tokens",
                             "started", "app_version", "concurrency", "speculative"})
      QVERIFY2(header.split(',').contains(name), qPrintable(header));
    QVERIFY2(csv.contains(",Why is the sky blue?,"), qPrintable(csv));
    // app_version, then the levers that differ (the chat is no benchmark step, has another
    // length and prompt) and the warning that says so
    QVERIFY2(csv.contains(",0.1.0,concurrency max_tokens prompt,\"These runs differ in "
                          "concurrency, maximum output length and prompt: "),
             qPrintable(csv));
    QVERIFY(csv.contains(",10 11 12,"));  // the group's run ids
    const QJsonArray series = comparisonJson({one, group}).value("series").toArray();
    const QJsonObject s0 = series[0].toObject().value("settings").toObject();
    QCOMPARE(s0.value("model").toString(), QString("tiny"));
    QCOMPARE(s0.value("base_url").toString(), QString("/m.gguf"));
    QCOMPARE(s0.value("prompt").toString(), QString("Why is the sky blue?"));
    QCOMPARE(s0.value("max_tokens").toString(), QString("128"));
    QCOMPARE(s0.value("app_version").toString(), QString("0.1.0"));
    QCOMPARE(s0.value("started").toString(),
             run.started.toLocalTime().toString("yyyy-MM-dd HH:mm:ss"));
    const QJsonObject g = series[1].toObject();
    QCOMPARE(g.value("settings").toObject().value("concurrency").toString(), QString("8"));
    QCOMPARE(g.value("group").toString(), QString("bench 2026-12-06T10:00:00Z concurrency=8"));
    const QJsonArray details = g.value("run_details").toArray();
    QCOMPARE(details.size(), 3);
    QCOMPARE(details[2].toObject().value("id").toInteger(), 12);
    QCOMPARE(details[2].toObject().value("output_tokens").toInteger(), 5);
    QCOMPARE(details[0].toObject().value("started").toString(),
             QString("2026-12-06T10:00:00.000Z"));
  }

  // Speculative sampling off reads "off", not an empty cell.
  void speculativeOffReadsOff() {
    QCOMPARE(setting(compareRuns("a", {handRun(1, 100, 10, 5, 0.7)}), "speculative"),
             QString("off"));
    StoredRun draft = handRun(2, 100, 10, 5, 0.7);
    draft.context.speculative = "self-int4, K 4";
    const auto diff = differingSettings(
        {compareRuns("a", {handRun(1, 100, 10, 5, 0.7)}), compareRuns("b", {draft})});
    QCOMPARE(diff.size(), 1);
    QCOMPARE(diff[0].first, QString("speculative"));
    QCOMPARE(diff[0].second, (QStringList{"off", "self-int4, K 4"}));
  }

  // Two benchmark steps (concurrency 2 vs 8; TPOT target 50 vs 100 ms) differ in that
  // setting, not only in the prompt; the CLI's "c=" reads as concurrency.
  void groupsDifferInTheirSweptSetting() {
    const ComparedSeries two = compareRuns("", benchStep(1, "concurrency=2", 3),
                                           "bench 2026-12-06T10:00:00Z concurrency=2");
    const ComparedSeries eight = compareRuns("", benchStep(4, "concurrency=8", 3),
                                             "bench 2026-12-06T10:00:00Z concurrency=8");
    const auto diff = differingSettings({two, eight});
    QCOMPARE(diff.size(), 1);
    QCOMPARE(diff[0].first, QString("concurrency"));
    QCOMPARE(diff[0].second, (QStringList{"2", "8"}));
    const auto tpot = differingSettings({compareRuns("", benchStep(1, "tpot_target_ms=50", 2)),
                                         compareRuns("", benchStep(3, "tpot_target_ms=100", 2))});
    QCOMPARE(tpot.size(), 1);
    QCOMPARE(tpot[0].first, QString("tpot_target_ms"));
    QCOMPARE(tpot[0].second, (QStringList{"50", "100"}));
    const BenchGroup cli = parseBenchGroup("bench 2026-12-06T10:00:00Z c=4");
    QCOMPARE(cli.sweep, QString("2026-12-06T10:00:00Z"));
    QCOMPARE(cli.values, (QList<QPair<QString, QString>>{{"concurrency", "4"}}));
    QCOMPARE(benchStepText(cli), QString("concurrency 4"));
    QVERIFY(parseBenchGroup("").values.isEmpty());
    QCOMPARE(benchStepText(parseBenchGroup("my own group")), QString());
  }

  // Two runs of the same model on the same provider get different labels: the run's #id,
  // the setting that differs and the time; groups their step's value and run count.
  void labelsTellTheSeriesApart() {
    StoredRun a = handRun(11, 100, 10, 5, 0.7), b = handRun(12, 100, 10, 5, 0.2);
    a.started = QDateTime(QDate(2026, 12, 6), QTime(10, 32, 5), Qt::UTC);
    b.started = a.started.addSecs(60);
    QList<ComparedSeries> runs = {compareRuns("", {a}), compareRuns("", {b})};
    nameSeries(runs);
    QVERIFY2(runs[0].label != runs[1].label, qPrintable(runs[0].label));
    QCOMPARE(runs[0].label, QString("#11 · temperature 0.7"));
    // the same settings: the date and time tell them apart
    QList<ComparedSeries> same = {compareRuns("", {a}), compareRuns("", {a})};
    same[1].first.started = b.started;
    same[1].run_ids = {12};
    nameSeries(same);
    QCOMPARE(same[0].label, "#11 · " + a.started.toLocalTime().toString("MM-dd HH:mm:ss"));
    QCOMPARE(same[1].label, "#12 · " + b.started.toLocalTime().toString("MM-dd HH:mm:ss"));
    QCOMPARE(same[1].header, "#12\n" + b.started.toLocalTime().toString("HH:mm:ss"));
    QCOMPARE(runs[1].tag, QString("#12"));
    QCOMPARE(runs[1].header, QString("#12\ntemperature 0.2"));
    QList<ComparedSeries> groups = {compareRuns("", benchStep(1, "concurrency=2", 3),
                                                "bench 2026-12-06T10:00:00Z concurrency=2"),
                                    compareRuns("", benchStep(4, "concurrency=8", 3),
                                                "bench 2026-12-06T10:00:00Z concurrency=8")};
    nameSeries(groups);
    QCOMPARE(groups[0].tag, QString("concurrency 2"));
    QCOMPARE(groups[1].header, QString("concurrency 8\n(3 runs)"));
    QCOMPARE(groups[1].label, QString("concurrency 8 · 3 runs"));
    // in the view: the box plot's categories are the values, its axis the setting
    const ui::ComparisonContent content = comparisonContent(groups);
    QCOMPARE(content.tag_title, QString("concurrency"));
    QCOMPARE(content.series[0].tag, QString("2"));
    QCOMPARE(content.series[1].tag, QString("8"));
  }

  // Issue 43, item 5: weights and speculative sampling both changed -> both named, the
  // warning in the words, and per lever the lab command that measures it alone.
  void twoLeversCannotBeAttributed() {
    StoredRun other = handRun(2, 100, 10, 5, 0.7);
    other.context.weights = "int8";
    other.context.speculative = "self-int4, K 4";
    const QList<ComparedSeries> pair = {compareRuns("a", {handRun(1, 100, 10, 5, 0.7)}),
                                        compareRuns("b", {other})};
    const QStringList levers = differingLevers(differingSettings(pair));
    QCOMPARE(levers, (QStringList{"weights", "draft"}));
    QCOMPARE(leverName(levers[0]), QString("weights"));
    QCOMPARE(leverName(levers[1]), QString("speculative sampling"));
    const LeverAttribution a = attributeLevers(pair);
    QCOMPARE(a.levers, levers);
    QCOMPARE(a.notice.warning, QString("These runs differ in weights and speculative sampling: "
                                       "the difference cannot be attributed to either."));
    QCOMPARE(a.notice.advice, QString());  // local runs: the buttons say what to do
    QCOMPARE(a.notice.offers.size(), 2);
    QCOMPARE(a.notice.offers[0].button, QString("Measure weights alone…"));
    QCOMPARE(a.notice.offers[0].command,
             QString("tokenscope-cli lab --model /m.gguf --vary weights=int8 --repeat 5"));
    QCOMPARE(a.notice.offers[1].lever, QString("draft"));
    QCOMPARE(a.notice.offers[1].value, QString("self-int4"));
    QCOMPARE(a.notice.offers[1].command,
             QString("tokenscope-cli lab --model /m.gguf --vary draft=self-int4 --draft-k 4 "
                     "--repeat 5"));
    // the exports: the lab's names, machine-readable, and the same text
    const QJsonObject json = comparisonJson(pair);
    QCOMPARE(json.value("levers_differing").toArray(), (QJsonArray{"weights", "draft"}));
    QCOMPARE(json.value("attribution_warning").toString(), a.notice.warning);
    QCOMPARE(json.value("single_lever_commands").toArray()[1].toObject().value("command"),
             QJsonValue(a.notice.offers[1].command));
    QCOMPARE(json.value("series").toArray().size(), 2);  // every earlier field stays
    const QStringList csv = comparisonCsv(pair).split('\n', Qt::SkipEmptyParts);
    QVERIFY(csv[0].endsWith(",app_version,levers_differing,attribution_warning"));
    QVERIFY2(csv[1].endsWith(",weights draft,These runs differ in weights and speculative "
                             "sampling: the difference cannot be attributed to either."),
             qPrintable(csv[1]));
    // three levers: "to any one of them"
    other.request.params.temperature = 0.2;
    QCOMPARE(
        attributeLevers({pair[0], compareRuns("b", {other})}).notice.warning,
        QString("These runs differ in weights, speculative sampling and sampling parameters: the "
                "difference cannot be attributed to any one of them."));
  }

  void oneLeverIsAttributed() {
    StoredRun other = handRun(2, 100, 10, 5, 0.7);
    other.context.weights = "int8";
    const QList<ComparedSeries> pair = {compareRuns("a", {handRun(1, 100, 10, 5, 0.7)}),
                                        compareRuns("b", {other})};
    const LeverAttribution a = attributeLevers(pair);
    QCOMPARE(a.levers, QStringList{"weights"});
    QCOMPARE(a.notice.warning, QString());
    QVERIFY(a.notice.offers.isEmpty());
    const QJsonObject json = comparisonJson(pair);
    QCOMPARE(json.value("levers_differing").toArray(), QJsonArray{"weights"});
    QVERIFY(!json.contains("attribution_warning"));
    QVERIFY(comparisonCsv(pair).section('\n', 1, 1).endsWith(",weights,"));
  }

  // Threads are a lever (schema 4): with weights they cannot be told apart, the threads
  // command keeps the first run's count as its baseline; a run stored before threads were
  // (0) is unknown, not different.
  void threadsAreALever() {
    StoredRun two = handRun(1, 100, 10, 5, 0.7), four = handRun(2, 100, 10, 5, 0.7);
    two.context.threads = 2;
    four.context.threads = 4;
    four.context.weights = "q8_0";
    const LeverAttribution a = attributeLevers({compareRuns("a", {two}), compareRuns("b", {four})});
    QCOMPARE(a.levers, (QStringList{"weights", "threads"}));
    QCOMPARE(a.notice.warning, QString("These runs differ in weights and CPU threads: the "
                                       "difference cannot be attributed to either."));
    QCOMPARE(a.notice.offers.size(), 2);
    QCOMPARE(a.notice.offers[1].command,
             QString("tokenscope-cli lab --model /m.gguf --threads 2 --vary threads=4 --repeat 5"));
    StoredRun unknown = handRun(3, 100, 10, 5, 0.7);
    unknown.context.weights = "q8_0";
    QCOMPARE(attributeLevers({compareRuns("a", {two}), compareRuns("b", {unknown})}).levers,
             QStringList{"weights"});
  }

  // The start time and the app's version are bookkeeping; another CPU is the machine, a
  // softer note of its own.
  void bookkeepingIsNoLever() {
    StoredRun later = handRun(2, 100, 10, 5, 0.7);
    later.started = QDateTime(QDate(2026, 12, 7), QTime(8, 0), Qt::UTC);
    later.environment.insert("app_version", "0.2.0");
    const QList<ComparedSeries> pair = {compareRuns("a", {handRun(1, 100, 10, 5, 0.7)}),
                                        compareRuns("b", {later})};
    QCOMPARE(differingSettings(pair).size(), 2);
    const LeverAttribution a = attributeLevers(pair);
    QVERIFY(a.levers.isEmpty());
    QCOMPARE(a.notice.warning, QString());
    QCOMPARE(a.notice.machines, QString());
    QCOMPARE(comparisonJson(pair).value("levers_differing").toArray(), QJsonArray());
    later.environment.insert("cpu", "another cpu");
    const LeverAttribution machines = attributeLevers({pair[0], compareRuns("b", {later})});
    QVERIFY(machines.levers.isEmpty());
    QCOMPARE(machines.notice.warning, QString());
    QVERIFY(machines.notice.machines.startsWith("These runs were measured on different machines"));
  }

  // Remote runs: nothing the lab can run, so the banner says how to do it by hand.
  void remoteRunsAreAskedToChangeOneSetting() {
    StoredRun a = handRun(1, 100, 10, 5, 0.7), b = handRun(2, 100, 10, 5, 0.2);
    a.context = {"TaoToken", "https://api.example/v1", "baichuan2-13b"};
    b.context = {"TaoToken", "https://api.example/v1", "baichuan2-53b"};
    const LeverAttribution attributed =
        attributeLevers({compareRuns("a", {a}), compareRuns("b", {b})});
    QCOMPARE(attributed.levers, (QStringList{"model", "sampling"}));
    QCOMPARE(
        attributed.notice.warning,
        QString("These runs differ in model or endpoint and sampling parameters: the difference "
                "cannot be attributed to either."));
    QCOMPARE(attributed.notice.advice, QString("Run them again changing one setting at a time."));
    QVERIFY(attributed.notice.offers.isEmpty());
  }

  // More than two series: the pair that differs in two levers is named, the others not.
  void theConfoundedPairIsNamed() {
    StoredRun quantized = handRun(2, 100, 10, 5, 0.7), drafted = handRun(3, 100, 10, 5, 0.7);
    quantized.context.weights = "int8";
    drafted.context.speculative = "lookup, K auto";
    QList<ComparedSeries> three = {compareRuns("", {handRun(1, 100, 10, 5, 0.7)}),
                                   compareRuns("", {quantized}), compareRuns("", {drafted})};
    nameSeries(three);
    const LeverAttribution a = attributeLevers(three);
    QCOMPARE(a.levers, (QStringList{"weights", "draft"}));
    QCOMPARE(a.notice.warning,
             QString("#2 and #3 differ in weights and speculative sampling: the difference "
                     "between them cannot be attributed to either."));
    QCOMPARE(a.notice.offers.size(), 2);
    QCOMPARE(a.notice.offers[0].command,  // #3's weights, as the handRun stores them
             QString("tokenscope-cli lab --model /m.gguf --vary weights=int4 --repeat 5"));
    // an adaptive K: the lab's fixed default instead (its --draft-k takes numbers)
    QCOMPARE(a.notice.offers[1].command,
             QString("tokenscope-cli lab --model /m.gguf --vary draft=lookup --repeat 5"));
  }

  // Which settings are levers, from the differing settings alone.
  void leversFromTheDifferingSettings() {
    // another tokenizer counts the same prompt differently: that is the model, not the prompt
    QCOMPARE(differingLevers({{"model", {"a", "b"}}, {"prompt_tokens", {"12", "15"}}}),
             QStringList{"model"});
    QCOMPARE(differingLevers({{"prompt_tokens", {"12", "15"}}}), QStringList{"prompt"});
    QCOMPARE(differingLevers({{"prompt_tokens", {"", "15"}}}), QStringList());  // unknown
    // a desktop benchmark's "local: <path>" is the chat's path
    QCOMPARE(differingLevers({{"base_url", {"local: /m.gguf", "/m.gguf"}}}), QStringList());
    // a desktop benchmark records no runtime: unknown, not another backend or weights
    QCOMPARE(differingLevers({{"backend", {"", "cpu"}}, {"weights", {"", "auto"}}}), QStringList());
    QCOMPARE(differingLevers({{"backend", {"", "cpu", "cuda"}}}), QStringList{"backend"});
    // a prefill chunk against a TPOT target is one lever, the prefill policy
    QCOMPARE(differingLevers({{"prefill_chunk", {"16", ""}}, {"tpot_target_ms", {"", "50"}}}),
             QStringList{"prefill"});
    QCOMPARE(differingLevers({{"started", {"1", "2"}},
                              {"benchmark", {"x", "y"}},
                              {"app_version", {"0.1", "0.2"}},
                              {"cpu", {"a", "b"}}}),
             QStringList());
    QCOMPARE(listOfNames({"weights", "KV cache", "speculative sampling"}),
             QString("weights, KV cache and speculative sampling"));
    QCOMPARE(singleLeverCommand("/home/me/my models/b.gguf", "weights", "q8_0"),
             QString("tokenscope-cli lab --model '/home/me/my models/b.gguf' --vary "
                     "weights=q8_0 --repeat 5"));
  }

  // Two benchmark steps of a local model (desktop sweeps record "local: <path>") that differ
  // in the prefill policy and the weights: the prefill value is the lab's "tpot:MS".
  void benchmarkStepsOfALocalModel() {
    std::vector<StoredRun> chunked = benchStep(1, "prefill_chunk=16", 2);
    std::vector<StoredRun> tpot = benchStep(3, "tpot_target_ms=50", 2);
    for (StoredRun& r : chunked) r.context.base_url = "local: /m.gguf";
    for (StoredRun& r : tpot) {
      r.context.base_url = "local: /m.gguf";
      r.context.weights = "q8_0";
    }
    const LeverAttribution a = attributeLevers({compareRuns("", chunked, chunked[0].context.group),
                                                compareRuns("", tpot, tpot[0].context.group)});
    QCOMPARE(a.levers, (QStringList{"weights", "prefill"}));
    QCOMPARE(a.notice.offers.size(), 2);
    QCOMPARE(a.notice.offers[1].button, QString("Measure prefill policy alone…"));
    QCOMPARE(a.notice.offers[1].command,
             QString("tokenscope-cli lab --model /m.gguf --vary prefill=tpot:50 --repeat 5"));
  }
};

QTEST_GUILESS_MAIN(TestComparison)
#include "test_comparison.moc"
