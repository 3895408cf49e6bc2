// `tokenscope-cli chat --json` as a user runs it: a real process against a real server.
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <optional>
#include <vector>

#include "tests/support/openai_test_server.h"

using ts::testing::OpenAiTestServer;
using ts::testing::ServerScript;

class TestCliChat : public QObject {
  Q_OBJECT
  OpenAiTestServer server_;
  QTemporaryDir logs_;

  struct Run {
    int exit_code;
    QJsonObject json;
    QString stderr_text;
    QString stdout_text;
  };
  Run cli(QStringList args, QProcessEnvironment env = QProcessEnvironment::systemEnvironment(),
          const char* command = "chat") {
    QProcess p;
    env.insert("TOKENSCOPE_CONFIG_DIR", logs_.filePath("no-config"));  // no user config
    env.remove("TOKENSCOPE_CONFIG");
    p.setProcessEnvironment(env);
    p.setWorkingDirectory(logs_.path());
    args.prepend(command);
    p.start(TOKENSCOPE_CLI, args);
    [&] { QVERIFY(p.waitForFinished(30000)); }();
    Run r{p.exitCode(), {}, QString::fromUtf8(p.readAllStandardError()), {}};
    r.stdout_text = QString::fromUtf8(p.readAllStandardOutput());
    r.json = QJsonDocument::fromJson(r.stdout_text.toUtf8()).object();
    return r;
  }
  QStringList base() const {
    return {"--base-url", QString::fromStdString(server_.baseUrl()),
            "--model",    "test-model",
            "--prompt",   "Hello",
            "--log-dir",  logs_.path(),
            "--json"};
  }
  QStringList logLines() const {
    QStringList lines;
    for (const QString& f : QDir(logs_.path()).entryList({"*.jsonl"}, QDir::Files)) {
      QFile file(QDir(logs_.path()).filePath(f));
      file.open(QIODevice::ReadOnly);
      for (const QByteArray& l : file.readAll().split('\n'))
        if (!l.isEmpty()) lines << QString::fromUtf8(l);
    }
    return lines;
  }

 private slots:
  void initTestCase() { QVERIFY(server_.start() > 0); }
  void cleanupTestCase() { server_.stop(); }

  // Every promised field; the figures are exactly those of the arrivals the program
  // recorded (the run log's events); none of those precedes the server's own record of when
  // it sent that chunk, and none is later than kSlackMs after it. (Closer than that the
  // client's arrivals and the server's sends are not compared: a loaded machine wakes the
  // client late by tens of ms, and that is what it measured.)
  void jsonHasEveryPromisedField() {
    ServerScript s;
    s.chunks = 6;
    s.gap_ms = 10;
    s.ttft_ms = 30;
    server_.setScript(s);
    server_.clearRequests();
    const QStringList logged_before = logLines();
    const Run r = cli(base());
    QCOMPARE(r.exit_code, 0);
    for (const char* field : {"ttft_ms", "e2e_ms", "tpot_ms", "output_tokens",
                              "output_tokens_source", "itl_ms", "text", "finish_reason", "error"})
      QVERIFY2(r.json.contains(field), field);
    QCOMPARE(r.json.value("text").toString(),
             QString::fromStdString(OpenAiTestServer::expectedText(s)));
    QCOMPARE(r.json.value("output_tokens").toInt(), 6);
    QCOMPARE(r.json.value("output_tokens_source").toString(), QString("usage"));
    QCOMPARE(r.json.value("finish_reason").toString(), QString("stop"));
    QVERIFY(r.json.value("error").isNull());

    // The run as the program recorded it: its line in the run log, each event's time
    // relative to the request's start.
    QStringList logged = logLines();
    for (const QString& line : logged_before) logged.removeOne(line);
    QCOMPARE(logged.size(), qsizetype{1});
    std::optional<int64_t> start_ns;
    std::vector<int64_t> arrivals_ns;  // content chunks, from the start
    for (const QJsonValue& v :
         QJsonDocument::fromJson(logged.first().toUtf8()).object().value("events").toArray()) {
      const QJsonObject e = v.toObject();
      const int64_t t_ns = e.value("t_ns").toInteger();
      if (e.value("kind").toString() == "started" && !start_ns) start_ns = t_ns;
      if (e.value("kind").toString() == "token-chunk" && !e.value("text").toString().isEmpty())
        arrivals_ns.push_back(t_ns - start_ns.value_or(0));
    }
    QVERIFY(start_ns);
    QCOMPARE(arrivals_ns.size(), size_t{6});

    // TTFT, E2E, TPOT and ITL as DESIGN.md defines them, from those arrivals.
    const int64_t first = arrivals_ns.front(), last = arrivals_ns.back();
    QCOMPARE(r.json.value("ttft_ms").toDouble(), first / 1e6);
    QCOMPARE(r.json.value("e2e_ms").toDouble(), last / 1e6);
    QCOMPARE(r.json.value("tpot_ms").toDouble(), static_cast<double>(last - first) / (6 - 1) / 1e6);
    const QJsonArray itl = r.json.value("itl_ms").toArray();
    QCOMPARE(itl.size(), qsizetype{5});
    for (qsizetype i = 0; i < itl.size(); ++i)
      QCOMPARE(itl[i].toDouble(), (arrivals_ns[i + 1] - arrivals_ns[i]) / 1e6);

    // Against the server's record: the request was started before the server received it,
    // so no chunk's time from the start can be shorter than the server's from receiving
    // to sending it (a chunk cannot arrive before it was sent); the script holds the first
    // chunk 30 ms.
    std::vector<ts::testing::ServedRequest> served;
    for (const auto& q : server_.requests())
      if (q.path == "/v1/chat/completions") served.push_back(q);
    QCOMPARE(served.size(), size_t{1});
    const auto& q = served.front();
    QCOMPARE(q.chunks.size(), arrivals_ns.size());
    constexpr double kSlackMs = 250;
    for (size_t i = 0; i < q.chunks.size(); ++i) {
      const double sent_ms = (q.chunks[i].t_ns - q.received_ns) / 1e6;
      const double arrived_ms = arrivals_ns[i] / 1e6;
      QVERIFY2(arrived_ms >= sent_ms && arrived_ms <= sent_ms + kSlackMs,
               qPrintable(QString("chunk %1: sent %2 ms after the server received the request, "
                                  "recorded %3 ms after the request started")
                              .arg(i)
                              .arg(sent_ms)
                              .arg(arrived_ms)));
    }
    QVERIFY(r.json.value("ttft_ms").toDouble() >= 30);
  }

  void failureGivesErrorObjectAndExitCode() {
    ServerScript s;
    s.required_key = "sk-right";
    server_.setScript(s);
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert("TS_CLI_KEY", "sk-wrong-secret-123");
    const Run r = cli(base() << "--api-key-env"
                             << "TS_CLI_KEY",
                      env);
    QCOMPARE(r.exit_code, 1);
    const QJsonObject error = r.json.value("error").toObject();
    QCOMPARE(error.value("kind").toString(), QString("auth"));
    QCOMPARE(error.value("http_status").toInt(), 401);
    QVERIFY(error.value("message").toString().contains("TS_CLI_KEY"));
    QVERIFY(!r.stdout_text.contains("sk-wrong-secret-123"));
    for (const QString& line : logLines()) QVERIFY(!line.contains("sk-wrong-secret-123"));
  }

  void badOptionsSayWhatWasExpected() {
    const Run temp = cli(base() << "--temperature"
                                << "hot");
    QCOMPARE(temp.exit_code, 2);
    QVERIFY2(temp.stderr_text.contains("--temperature: expected a number from 0 to 2, found 'hot'"),
             qPrintable(temp.stderr_text));
    const Run missing = cli({"--model", "x"});
    QCOMPARE(missing.exit_code, 2);
    QVERIFY(missing.stderr_text.contains("missing --prompt"));
    const Run url = cli({"--base-url", "ftp://x", "--model", "m", "--prompt", "p"});
    QCOMPARE(url.exit_code, 2);
    QVERIFY(url.stderr_text.contains("expected http or https"));
  }

  void everyRunIsAppendedToTheLog() {
    server_.setScript(ServerScript{});
    const int before = logLines().size();
    QCOMPARE(cli(base()).exit_code, 0);
    QCOMPARE(cli(base() << "--no-stream").exit_code, 0);
    const QStringList lines = logLines();
    QCOMPARE(lines.size(), before + 2);
    const QJsonObject last = QJsonDocument::fromJson(lines.last().toUtf8()).object();
    QCOMPARE(last.value("request").toObject().value("model").toString(), QString("test-model"));
    QCOMPARE(last.value("result").toObject().value("text").toString(),
             QString::fromStdString(OpenAiTestServer::expectedText(ServerScript{})));
    QVERIFY(last.value("events").toArray().size() >= 3);
    QVERIFY(cli(base() << "--no-log").exit_code == 0);
    QCOMPARE(logLines().size(), before + 2);
  }

  void configFileSuppliesWhatFlagsDoNot() {
    server_.setScript(ServerScript{});
    const QString path = logs_.filePath("run.toml");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QString("[provider]\nname = \"local-test\"\nbase_url = \"%1/v1\"\napi_key_env = \"\"\n"
                    "[model]\ndefault = \"test-model\"\n[inference]\nmax_tokens = 3\n"
                    "[observability]\nlog_dir = \"%2\"\nlog_tpot = false\n")
                .arg(QString::fromStdString(server_.baseUrl()), logs_.filePath("from-config"))
                .toUtf8());
    f.close();
    const Run from_file = cli({"--config", path, "--prompt", "hi", "--json"});
    QCOMPARE(from_file.exit_code, 0);
    QCOMPARE(from_file.json.value("output_tokens").toInt(), 3);
    const Run flag_wins = cli({"--config", path, "--prompt", "hi", "--max-tokens", "5", "--json"});
    QCOMPARE(flag_wins.json.value("output_tokens").toInt(), 5);
    QFile log(QDir(logs_.filePath("from-config"))
                  .filePath(QDir(logs_.filePath("from-config")).entryList({"*.jsonl"}).value(0)));
    QVERIFY(log.open(QIODevice::ReadOnly));
    const QJsonObject line = QJsonDocument::fromJson(log.readLine()).object();
    QVERIFY(line.value("result").toObject().contains("ttft_ms"));
    QVERIFY(!line.value("result").toObject().contains("tpot_ms"));  // log_tpot = false
  }

  void badConfigFileStopsWithLineAndColumn() {
    const QString path = logs_.filePath("bad.json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\n  \"inference\": {\"temperature\": 9}\n}\n");
    f.close();
    const Run r = cli({"--config", path, "--prompt", "hi"});
    QCOMPARE(r.exit_code, 2);
    QVERIFY2(r.stderr_text.contains(
                 path + ":2:17: inference.temperature: expected a number from 0 to 2, found 9"),
             qPrintable(r.stderr_text));
  }

  void configShowNamesEverySource() {
    const QString path = logs_.filePath("show.json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"default_model\": \"from-file\", \"inference\": {\"top_p\": 0.5}}");
    f.close();
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert("TOKENSCOPE_TOP_P", "0.25");
    const Run r = cli({"show", "--config", path, "--json"}, env, "config");
    QCOMPARE(r.exit_code, 0);
    const QJsonObject values = r.json.value("values").toObject();
    QCOMPARE(r.json.value("config_file").toString(), path);
    QCOMPARE(values.value("default_model").toObject().value("source").toString(), QString("file"));
    QCOMPARE(values.value("default_model").toObject().value("origin").toString(), path);
    QCOMPARE(values.value("inference.top_p").toObject().value("value").toDouble(), 0.25);
    QCOMPARE(values.value("inference.top_p").toObject().value("source").toString(),
             QString("environment"));
    QCOMPARE(values.value("max_retries").toObject().value("source").toString(), QString("default"));
  }

  void configExportThenCheck() {
    const QString out = logs_.filePath("exported.toml");
    QCOMPARE(
        cli({"export", "--out", out}, QProcessEnvironment::systemEnvironment(), "config").exit_code,
        0);
    const Run check = cli({"check", out}, QProcessEnvironment::systemEnvironment(), "config");
    QCOMPARE(check.exit_code, 0);
    QVERIFY(check.stdout_text.contains("valid (13 settings)"));
  }

  void plainOutputStreamsTextAndSummarises() {
    server_.setScript(ServerScript{});
    QStringList args = base();
    args.removeAll("--json");
    const Run r = cli(args);
    QCOMPARE(r.exit_code, 0);
    QVERIFY(r.stdout_text.startsWith(
        QString::fromStdString(OpenAiTestServer::expectedText(ServerScript{}))));
    QVERIFY(r.stderr_text.contains("TTFT"));
    QVERIFY(r.stderr_text.contains("8 output tokens (usage)"));
  }
};

QTEST_GUILESS_MAIN(TestCliChat)
#include "test_cli_chat.moc"
