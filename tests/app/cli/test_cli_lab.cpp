// `tokenscope-cli lab` and `estimate` as a user runs them, on the real ktiny files: the
// JSON fields the issue names, the errors a mistyped lever or link gets.
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "app/store/run_store.h"

class TestCliLab : public QObject {
  Q_OBJECT
  QString ktiny_ = qEnvironmentVariable("TOKENSCOPE_SHARED_DIR", "../shared") + "/models/ktiny";
  QTemporaryDir cache_;

  struct Run {
    int exit_code;
    QJsonObject json;
    QString out, err;
  };
  Run cli(const QStringList& args) {
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("XDG_CACHE_HOME", cache_.path());  // the machine's rates and converted files
    p.setProcessEnvironment(env);
    p.start(TOKENSCOPE_CLI, args);
    [&] { QVERIFY(p.waitForFinished(240000)); }();
    const QByteArray out = p.readAllStandardOutput();
    return {p.exitCode(), QJsonDocument::fromJson(out).object(), QString::fromUtf8(out),
            QString::fromUtf8(p.readAllStandardError())};
  }

 private slots:
  void init() {
    if (!QFile::exists(ktiny_ + "/ktiny-F16.gguf"))
      QSKIP(qPrintable(ktiny_ + " is absent (the shared test fixtures are not laid out here)"));
  }

  void labPrintsTheReportAsJson() {
    const Run r = cli({"lab", "--model", ktiny_ + "/ktiny-F16.gguf", "--vary", "kv=int8",
                       "--repeat", "3", "--prompt-tokens", "16", "--gen-tokens", "8", "--threads",
                       "1", "--store", cache_.filePath("runs.sqlite"), "--json"});
    QCOMPARE(r.exit_code, 0);
    {
      ts::RunStore store(cache_.filePath("runs.sqlite"));
      const auto kept = store.labReports("kv");
      QCOMPARE(kept.size(), 1);
      QCOMPARE(kept[0].report.value("order"), r.json.value("order"));
      QCOMPARE(kept[0].model, ktiny_ + "/ktiny-F16.gguf");
    }
    QCOMPARE(r.json.value("order").toArray(), QJsonArray({"A", "B", "A", "B", "A", "B"}));
    const QJsonObject baseline = r.json.value("baseline").toObject();
    QCOMPARE(baseline.value("kv").toString(), QString("f16"));
    QCOMPARE(baseline.value("repeat").toInt(), 3);
    const QJsonObject variant = r.json.value("variants").toArray().at(0).toObject();
    QCOMPARE(variant.value("lever").toString(), QString("kv"));
    QCOMPARE(variant.value("value").toString(), QString("int8"));
    const QJsonObject metrics = variant.value("metrics").toObject();
    for (const char* name :
         {"decode_tok_s", "prefill_tok_s", "ttft_ms", "tpot_ms", "peak_rss_mb"}) {
      const QJsonObject m = metrics.value(name).toObject();
      QVERIFY2(m.value("baseline_median").toDouble() > 0, name);
      QVERIFY2(m.value("variant_median").toDouble() > 0, name);
      QVERIFY2(m.value("change_pct").isDouble(), name);
      QCOMPARE(m.value("ci95_pct").toArray().size(), 2);
      QVERIFY2(m.value("ci95_pct").toArray().at(0).toDouble() <=
                   m.value("ci95_pct").toArray().at(1).toDouble(),
               name);
      QVERIFY2(m.contains("predicted_change_pct"), name);
    }
    QVERIFY(metrics.value("decode_tok_s").toObject().value("predicted_change_pct").isDouble());
    const QJsonObject accuracy = variant.value("accuracy").toObject();
    QCOMPARE(accuracy.value("positions").toInt(), 9);  // 8 generated + the prompt's next token
    QVERIFY(accuracy.value("top1_agreement").toDouble() > 0.5);
    QVERIFY(accuracy.value("mean_kl").toDouble() >= 0);
  }

  void labTellsWhatIsWrong() {
    Run r = cli({"lab", "--model", ktiny_ + "/ktiny-F16.gguf", "--vary", "speed=fast"});
    QCOMPARE(r.exit_code, 2);
    QVERIFY2(
        r.err.contains("--vary: expected a lever among weights, kv, draft, threads, prefill, found "
                       "'speed'"),
        qPrintable(r.err));
    r = cli({"lab", "--model", ktiny_ + "/ktiny-F16.gguf", "--vary", "kv=int8", "--repeat", "1"});
    QCOMPARE(r.exit_code, 2);
    QVERIFY2(r.err.contains("--repeat: expected a whole number from 2 to 1000, found '1'"),
             qPrintable(r.err));
    r = cli({"lab", "--vary", "kv=int8"});
    QCOMPARE(r.exit_code, 2);
    QVERIFY2(r.err.contains("expected --model PATH and either --vary LEVER=V1[,V2...] or --ladder"),
             qPrintable(r.err));
  }

  // The ladder's Markdown shows the JSON's numbers: every row's decode, prefill and memory
  // cells are the JSON's change and interval, rounded as shown.
  void ladderReportShowsTheJsonNumbers() {
    const QString folder = cache_.filePath("ladder");
    const Run r = cli({"lab",
                       "--model",
                       ktiny_ + "/ktiny-F16.gguf",
                       "--ladder",
                       "--ladder-weights",
                       "q8_0",
                       "--ladder-kv",
                       "int8",
                       "--ladder-draft",
                       "lookup",
                       "--repeat",
                       "2",
                       "--prompt-tokens",
                       "16",
                       "--gen-tokens",
                       "8",
                       "--threads",
                       "1",
                       "--no-store",
                       "--report",
                       folder,
                       "--json"});
    QCOMPARE(r.exit_code, 0);
    for (const char* file : {"ladder.md", "ladder.json", "ladder-decode.png", "ladder-memory.png"})
      QVERIFY2(QFileInfo(folder + "/" + file).size() > 100, file);
    QVERIFY(!QImage(folder + "/ladder-decode.png").isNull());
    QFile md_file(folder + "/ladder.md"), json_file(folder + "/ladder.json");
    QVERIFY(md_file.open(QIODevice::ReadOnly) && json_file.open(QIODevice::ReadOnly));
    const QString md = QString::fromUtf8(md_file.readAll());
    const QJsonObject json = QJsonDocument::fromJson(json_file.readAll()).object();
    QCOMPARE(json, r.json);  // the file is what --json printed
    const QJsonArray steps = json["steps"].toArray();
    QCOMPARE(steps.size(), 3);
    const auto cell = [](const QJsonObject& m) {
      const QJsonArray ci = m["ci95_pct"].toArray();
      const auto n = [](double v) { return (v >= 0 ? "+" : "") + QString::number(v, 'f', 1); };
      return QString("[%1, %2]").arg(n(ci.at(0).toDouble()), n(ci.at(1).toDouble()));
    };
    for (const QJsonValue& s : steps) {
      const QJsonObject variant = s["report"]["variants"][0].toObject();
      const QString row_start =
          "| " + s["step"].toString() + " | " + variant["value"].toString() + " |";
      const qsizetype at = md.indexOf(row_start);
      QVERIFY2(at >= 0, qPrintable(row_start));
      const QString row = md.mid(at, md.indexOf('\n', at) - at);
      for (const char* metric : {"decode_tok_s", "prefill_tok_s", "peak_rss_mb"}) {
        const QJsonObject m = variant["metrics"][metric].toObject();
        QVERIFY2(row.contains(cell(m)), qPrintable(row + " lacks " + cell(m)));
        if (m["measurable"].toBool())
          QVERIFY2(row.contains(QString::number(m["change_pct"].toDouble(), 'f', 1) + "%"),
                   qPrintable(row));
      }
      QVERIFY2(md.contains("**" + s["step"].toString() + "**: " + s["reason"].toString()),
               qPrintable(s["reason"].toString()));
    }
    QVERIFY(md.contains("Result: " + json["final"]["description"].toString()));
    QVERIFY(steps[2]["report"]["variants"][0]["output_identical"].toBool());
  }

  void estimateGivesTensorParallelRanges() {
    const Run r = cli({"estimate", "--model", ktiny_ + "/ktiny-F16.gguf", "--tp", "2,4,8", "--link",
                       "nvlink", "--threads", "1", "--json"});
    QCOMPARE(r.exit_code, 0);
    QVERIFY(r.json.value("predicted").toObject().value("decode_tok_s").toDouble() > 0);
    const QJsonArray tp = r.json.value("tp").toArray();
    QCOMPARE(tp.size(), 3);
    for (int i = 0; i < 3; ++i) {
      const QJsonObject row = tp.at(i).toObject();
      QCOMPARE(row.value("devices").toInt(), 2 << i);
      QVERIFY(row.value("tok_s_low").toDouble() > 0);
      QVERIFY(row.value("tok_s_low").toDouble() < row.value("tok_s_high").toDouble());
      // 4 layers, 2 all-reduces each
      QVERIFY(row.value("allreduce_us_per_token").toDouble() > 8 * 6);
      QVERIFY(row.value("assumptions")
                  .toString()
                  .startsWith("estimate - no measurement possible on this machine"));
    }
    const Run pcie = cli({"estimate", "--model", ktiny_ + "/ktiny-F16.gguf", "--tp", "2", "--link",
                          "pcie", "--threads", "1", "--json"});
    QCOMPARE(pcie.exit_code, 0);
    const QJsonObject p = pcie.json.value("tp").toArray().at(0).toObject();
    const QJsonObject n = tp.at(0).toObject();
    QVERIFY(p.value("allreduce_us_per_token").toDouble() >
            n.value("allreduce_us_per_token").toDouble());
    const Run bad =
        cli({"estimate", "--model", ktiny_ + "/ktiny-F16.gguf", "--tp", "2", "--link", "ethernet"});
    QCOMPARE(bad.exit_code, 2);
    QVERIFY2(bad.err.contains("--link: expected nvlink or pcie, found 'ethernet'"),
             qPrintable(bad.err));
    const Run policy =
        cli({"estimate", "--model", ktiny_ + "/ktiny-F16.gguf", "--vary", "prefill=chunk:64"});
    QCOMPARE(policy.exit_code, 2);  // not a crash on "chunk:64" as a thread count
    QVERIFY2(policy.err.contains("--vary prefill: a policy is replayed"), qPrintable(policy.err));
  }

  void estimateVariesALever() {
    const Run r = cli({"estimate", "--model", ktiny_ + "/ktiny-F16.gguf", "--vary", "weights=q8_0",
                       "--threads", "1", "--json"});
    QCOMPARE(r.exit_code, 0);
    const QJsonObject v = r.json.value("variants").toArray().at(0).toObject();
    QCOMPARE(v.value("value").toString(), QString("q8_0"));
    QVERIFY(v.value("decode_tok_s").toDouble() > 0);
    QVERIFY(v.value("decode_change_pct").isDouble());
    QVERIFY(v.value("weights").toString().startsWith("q8_0"));
  }
};

QTEST_GUILESS_MAIN(TestCliLab)
#include "test_cli_lab.moc"
