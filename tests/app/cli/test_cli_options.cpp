// The runtime options (runtime_options.h) as a user reads them in `--help`: each one is
// offered by the commands it means something for, with one help text everywhere; and the
// options bench gained from the shared group take effect.
#include <QFile>
#include <QMap>
#include <QProcess>
#include <QRegularExpression>
#include <QTest>

class TestCliOptions : public QObject {
  Q_OBJECT

  struct Run {
    int exit_code;
    QString out, err;
  };
  static Run cli(const QStringList& args) {
    QProcess p;
    p.start(TOKENSCOPE_CLI, args);
    [&] { QVERIFY(p.waitForFinished(60000)); }();
    return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
  }

  // `tokenscope-cli COMMAND --help` as option name -> its help text (wrapped lines joined).
  static QMap<QString, QString> helpOf(const QString& command) {
    const Run r = cli({command, "--help"});
    [&] { QCOMPARE(r.exit_code, 0); }();
    QMap<QString, QString> options;
    // "  --name <VALUE>   Text…", or "  -h, --help   Text…"; continuation lines are indented.
    static const QRegularExpression entry(
        R"(^\s+(?:-\w, )?--([a-z0-9-]+)(?: <[^>]+>)?\s{2,}(.*)$)");
    QString current;
    for (const QString& line : r.out.split('\n')) {
      const auto m = entry.match(line);
      if (m.hasMatch()) {
        current = m.captured(1);
        options[current] = m.captured(2).trimmed();
      } else if (!current.isEmpty() && line.startsWith("  ") && !line.trimmed().isEmpty()) {
        options[current] += ' ' + line.trimmed();
      } else {
        current.clear();
      }
    }
    return options;
  }

 private slots:
  void everyRuntimeOptionReadsTheSameEverywhere() {
    const QStringList weights = {"weights", "int4-group", "no-cache"};
    const QStringList engine = {"backend", "device", "kv", "threads"};
    const QStringList serving = {"context",
                                 "parallel",
                                 "batch-tokens",
                                 "prefill-chunk",
                                 "tpot-target",
                                 "separate-prefill",
                                 "separate-prefill-threads",
                                 "kv-positions",
                                 "kv-memory-mb"};
    // Which commands offer which part of the group.
    const QMap<QString, QStringList> offered = {
        {"generate", weights + engine},
        {"serve", weights + engine + serving},
        {"bench", weights + engine + serving},
        {"ppl", weights},
    };
    QMap<QString, QMap<QString, QString>> help;
    for (const QString& command : offered.keys()) help[command] = helpOf(command);
    for (const QString& option : weights + engine + serving) {
      QString text, first;
      for (const QString& command : offered.keys()) {
        if (!offered[command].contains(option)) continue;
        QVERIFY2(help[command].contains(option),
                 qPrintable(QString("%1 --help lists no --%2").arg(command, option)));
        const QString said = help[command].value(option);
        QVERIFY2(said.size() > 10, qPrintable(QString("--%1: '%2'").arg(option, said)));
        if (first.isEmpty()) {
          first = command;
          text = said;
        }
        QVERIFY2(said == text, qPrintable(QString("--%1 reads differently in %2 and %3:\n%4\n%5")
                                              .arg(option, first, command, text, said)));
      }
    }
    // The flags every command had before stay where they were.
    for (const char* flag : {"model-path", "base-url", "requests", "concurrency"})
      QVERIFY2(help["bench"].contains(flag), flag);
    for (const char* flag : {"host", "port", "api-key-env", "model-name", "max-queue"})
      QVERIFY2(help["serve"].contains(flag), flag);
    for (const char* flag : {"prompt", "prompt-ids", "draft", "draft-k", "max-tokens"})
      QVERIFY2(help["generate"].contains(flag), flag);
  }

  // bench --model-path takes the group's --threads and --context as serve does: the served
  // model runs on that many CPU threads, and a prompt longer than the context is refused.
  void benchServesWithTheRuntimeOptions() {
    const QString model = qEnvironmentVariable("TOKENSCOPE_SHARED_DIR", "../shared") +
                          "/models/aidreams260K/aidreams260K.gguf";
    if (!QFile::exists(model)) QSKIP("the shared fixtures are absent");
    const QStringList local = {"--model-path", model, "--prompt",   "I dreamed", "--requests", "2",
                               "--max-tokens", "4",   "--no-store", "--threads", "1"};
    const Run fits = cli(QStringList{"bench"} + local + QStringList{"--context", "64"});
    QVERIFY2(fits.exit_code == 0, qPrintable(fits.err));
    QVERIFY2(fits.err.contains("CPU, 1 thread)"), qPrintable(fits.err));
    QVERIFY2(fits.out.contains("2 completed, 0 failed"), qPrintable(fits.out));
    const Run tight = cli(QStringList{"bench"} + local + QStringList{"--context", "2"});
    QCOMPARE(tight.exit_code, 1);
    QVERIFY2(tight.out.contains("0 completed, 2 failed"), qPrintable(tight.out));
    const Run bad = cli(QStringList{"bench"} + local + QStringList{"--threads", "0"});
    QCOMPARE(bad.exit_code, 2);
    QVERIFY2(bad.err.contains("--threads: expected a whole number from 1 to 1024, found '0'"),
             qPrintable(bad.err));
  }

  // --separate-prefill and its threads: bounded like the other scheduler values (exit 2 and
  // the bounds named, before anything loads), and a value in range serves the requests.
  void separatePrefillIsBounded() {
    const QString model = qEnvironmentVariable("TOKENSCOPE_SHARED_DIR", "../shared") +
                          "/models/aidreams260K/aidreams260K.gguf";
    if (!QFile::exists(model)) QSKIP("the shared fixtures are absent");
    const QStringList local = {"--model-path", model, "--prompt",   "I dreamed", "--requests", "2",
                               "--max-tokens", "4",   "--no-store", "--threads", "1"};
    const Run negative =
        cli(QStringList{"bench"} + local + QStringList{"--separate-prefill", "-1"});
    QCOMPARE(negative.exit_code, 2);
    QVERIFY2(negative.err.contains(
                 "--separate-prefill: expected a whole number from 0 to 1048576, found '-1'"),
             qPrintable(negative.err));
    const Run threads =
        cli(QStringList{"bench"} + local + QStringList{"--separate-prefill-threads", "5000"});
    QCOMPARE(threads.exit_code, 2);
    QVERIFY2(threads.err.contains("--separate-prefill-threads: expected a whole number from 0 "
                                  "to 1024, found '5000'"),
             qPrintable(threads.err));
    const Run serves =
        cli(QStringList{"bench"} + local +
            QStringList{"--separate-prefill", "2", "--separate-prefill-threads", "1"});
    QVERIFY2(serves.exit_code == 0, qPrintable(serves.err));
    QVERIFY2(serves.out.contains("2 completed, 0 failed"), qPrintable(serves.out));
  }
};

QTEST_GUILESS_MAIN(TestCliOptions)
#include "test_cli_options.moc"
