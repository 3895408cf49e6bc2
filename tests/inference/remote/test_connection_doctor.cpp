// The connection doctor against every error mode of the scripted server: which step
// fails, with which status, and the one-sentence fix.
#include <QSignalSpy>
#include <QTest>

#include "inference/remote/connection_doctor.h"
#include "tests/support/openai_test_server.h"

using namespace ts;
using ts::testing::OpenAiTestServer;
using ts::testing::ServerScript;

class TestConnectionDoctor : public QObject {
  Q_OBJECT
  OpenAiTestServer server_;

  DoctorReport diagnose(const ServerScript& script, const QString& base_suffix = {},
                        const QString& model = "test-model", const QString& key_env = {},
                        int first_byte_ms = 3000) {
    server_.setScript(script);
    server_.clearRequests();
    RemoteEndpoint e;
    e.provider_name = "doctor-test";
    e.base_url = QString::fromStdString(server_.baseUrl()) + base_suffix;
    e.api_key_env = key_env;
    e.timeouts = {2000, first_byte_ms, 2000, 20000};
    ConnectionDoctor doctor;
    QSignalSpy done(&doctor, &ConnectionDoctor::finished);
    QSignalSpy steps(&doctor, &ConnectionDoctor::stepFinished);
    doctor.start(e, model);
    [&] { QVERIFY(done.wait(20000)); }();
    [&] { QCOMPARE(steps.size(), 4); }();
    return doctor.report();
  }
  static const DoctorStep& step(const DoctorReport& r, const char* name) {
    for (const auto& s : r.steps)
      if (s.name == name) return s;
    static DoctorStep none;
    return none;
  }

 private slots:
  void initTestCase() { QVERIFY(server_.start() > 0); }
  void cleanupTestCase() { server_.stop(); }

  void healthyProviderPassesEveryStep() {
    const DoctorReport r = diagnose(ServerScript{});
    QVERIFY(r.ok());
    QCOMPARE(r.steps.size(), 4);
    QCOMPARE(r.steps[0].name, QString("connect"));
    QCOMPARE(r.steps[3].name, QString("models"));
    QCOMPARE(*r.accepts_stream_options, true);
    QCOMPARE(*r.sends_usage, true);
    QCOMPARE(r.models, QStringList{"test-model"});
    QCOMPARE(step(r, "streaming").http_status, 200);
    QVERIFY(step(r, "streaming").final_url.endsWith("/v1/chat/completions"));
  }

  void streamOptionsRejectionAndMissingUsageAreReported() {
    ServerScript s;
    s.reject_stream_options = true;
    const DoctorReport r = diagnose(s);
    QVERIFY(r.ok());
    QCOMPARE(*r.accepts_stream_options, false);
    QCOMPARE(*r.sends_usage, false);
    QVERIFY(step(r, "streaming").message.contains("stream_options rejected"));
  }

  void unauthorizedNamesTheVariable() {
    ServerScript s;
    s.required_key = "sk-right";
    qunsetenv("TS_DOCTOR_KEY");
    const DoctorReport r = diagnose(s, {}, "test-model", "TS_DOCTOR_KEY");
    QVERIFY(!r.ok());
    QVERIFY(step(r, "connect").ok);
    QCOMPARE(step(r, "non-streaming").http_status, 401);
    QVERIFY2(step(r, "non-streaming").fix.contains("TS_DOCTOR_KEY is not set"),
             qPrintable(step(r, "non-streaming").fix));
    QCOMPARE(step(r, "models").http_status, 401);
    QVERIFY(step(r, "models").fix.contains("TS_DOCTOR_KEY"));
  }

  void wrongBasePathPointsAtTheBaseUrl() {
    const DoctorReport r = diagnose(ServerScript{}, "/wrong/prefix");
    QCOMPARE(step(r, "non-streaming").http_status, 404);
    QVERIFY(step(r, "non-streaming").final_url.endsWith("/wrong/prefix/v1/chat/completions"));
    QVERIFY(step(r, "non-streaming").fix.contains("base URL"));
  }

  void unknownModelListsTheAvailableIds() {
    ServerScript s;
    s.models = {"test-model", "baichuan2-13b-chat"};
    const DoctorReport r = diagnose(s, {}, "gpt-nope");
    QVERIFY(!step(r, "non-streaming").ok);
    QVERIFY2(step(r, "non-streaming").fix.contains("test-model, baichuan2-13b-chat"),
             qPrintable(step(r, "non-streaming").fix));
    QVERIFY(!step(r, "models").ok);
    QVERIFY(step(r, "models").message.contains("'gpt-nope' is not among the listed models"));
  }

  void refusedConnectionSkipsTheRest() {
    OpenAiTestServer closed;
    const int port = closed.start();
    closed.stop();
    RemoteEndpoint e;
    e.base_url = QString("http://127.0.0.1:%1").arg(port);
    ConnectionDoctor doctor;
    QSignalSpy done(&doctor, &ConnectionDoctor::finished);
    doctor.start(e, "m");
    QVERIFY(done.wait(10000));
    const DoctorReport& r = doctor.report();
    QVERIFY(!r.steps[0].ok);
    QVERIFY(r.steps[0].message.contains("refused"));
    QVERIFY(r.steps[0].fix.contains("port"));
    QVERIFY(r.steps[1].skipped && r.steps[2].skipped && r.steps[3].skipped);
  }

  void hangingStepIsNamed() {
    ServerScript s;
    s.ttft_ms = 5000;
    s.keepalive_comment = false;
    const DoctorReport r = diagnose(s, {}, "test-model", {}, 300);
    QVERIFY(!step(r, "non-streaming").ok);
    QVERIFY(step(r, "non-streaming").message.contains("first-byte timeout"));
    QVERIFY(step(r, "streaming").fix.contains("hung"));
  }
};

QTEST_GUILESS_MAIN(TestConnectionDoctor)
#include "test_connection_doctor.moc"
