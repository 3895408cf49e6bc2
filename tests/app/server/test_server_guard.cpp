// The local server's answers to what it must not run, each an OpenAI-shaped JSON error
// (exactly error.message / type / param / code): a body over the limit (413), a body that
// is not JSON by its type (415: a web page's "simple" text/plain POST), a foreign Host
// (403: DNS rebinding), origins not listed for CORS (403 preflight, no CORS headers), a
// prompt over the context or the KV pool (400 context_length_exceeded, nothing trimmed
// unless --truncate-history), unknown URLs (404), engine failures (500, nothing in the
// headers); keys compared whole; memory running out at an admission leaves the server as
// good as new; and `serve` refusing at the start what the machine cannot hold.
#include <QFile>
#include <QJsonArray>
#include <QProcess>
#include <QRegularExpression>
#include <QTest>
#include <csignal>

#include "app/server/request_guard.h"
#include "tests/app/server/server_fixture.h"

using namespace ts;
using namespace ts::testing;

namespace {

// A session whose passes fail, as an engine that runs out of something mid-pass.
class FailingSession : public engine::CpuSession {
 public:
  using engine::CpuSession::CpuSession;
  std::span<const float> forwardSequences(std::span<const engine::SequencePass>) override {
    throw std::runtime_error("device lost");
  }
};

std::string words(int n) {
  std::string text;
  for (int i = 0; i < n; ++i) text += i % 3 ? "dream " : "sky ";
  return text;
}

}  // namespace

class TestServerGuard : public QObject {
  Q_OBJECT
  std::shared_ptr<engine::Model> model_;

  std::unique_ptr<engine::DecodeSession> session(int positions = 128) {
    return std::make_unique<engine::CpuSession>(model_, positions);
  }
  // The response's status and its error object, which must have exactly the four fields.
  static void expectError(const httplib::Result& res, int status, const QString& code,
                          const QString& says) {
    QVERIFY(res);
    QCOMPARE(res->status, status);
    QCOMPARE(QString::fromStdString(res->get_header_value("Content-Type")),
             QString("application/json"));
    const QJsonObject e = errorOf(res->body);
    QStringList keys = e.keys();
    keys.sort();
    QCOMPARE(keys, QStringList({"code", "message", "param", "type"}));
    QCOMPARE(e.value("code").toString(), code);
    QVERIFY2(e.value("message").toString().contains(says),
             qPrintable(e.value("message").toString()));
    QCOMPARE(e.value("type").toString(),
             QString(status >= 500 ? "server_error" : "invalid_request_error"));
  }
  static std::string contentOf(const std::string& body) {
    return QJsonDocument::fromJson(QByteArray::fromStdString(body))
        .object()
        .value("choices")
        .toArray()
        .at(0)
        .toObject()
        .value("message")
        .toObject()
        .value("content")
        .toString()
        .toStdString();
  }

 private slots:
  void initTestCase() { TS_LOAD_AIDREAMS_OR_SKIP(model_); }

  void errorsHaveOneShape() {
    server::ServerOptions o = serverOptions();
    o.max_body_mb = 1;
    RunningServer s(model_, session(), o);
    httplib::Client http("127.0.0.1", s.port);
    expectError(http.Post("/v1/chat/completions", std::string(2 << 20, ' '), "application/json"),
                413, "request_too_large", "larger than the 1 MiB");
    expectError(http.Post("/v1/chat/completions", chatBody("I dreamed", 4, false), "text/plain"),
                415, "unsupported_media_type", "found 'text/plain'");
    // a chunked body is held to the limit too, and multipart (which a page may also send
    // without asking) is refused by its type
    size_t sent = 0;
    expectError(http.Post(
                    "/v1/chat/completions",
                    [&](size_t, httplib::DataSink& sink) {
                      const std::string piece(64 << 10, ' ');
                      if (sent >= (3u << 20)) return sink.done(), true;
                      sent += piece.size();
                      return sink.write(piece.data(), piece.size());
                    },
                    "application/json"),
                413, "request_too_large", "larger than the 1 MiB");
    expectError(http.Post("/v1/chat/completions", chatBody("I dreamed", 4, false),
                          "multipart/form-data; boundary=x"),
                415, "unsupported_media_type", "multipart/form-data");
    // no length at all (the body would run to the connection's end): 411 at once
    RawClient unframed(s.port,
                       "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                       "application/json\r\n\r\n" +
                           chatBody("I dreamed", 4, false),
                       true);
    QVERIFY(unframed.ok() && unframed.readUntil("}}"));
    QVERIFY2(unframed.received().rfind("HTTP/1.1 411", 0) == 0 &&
                 unframed.received().find("\"code\":\"length_required\"") != std::string::npos,
             unframed.received().c_str());
    expectError(http.Get("/v1/nothing"), 404, "unknown_url", "Invalid URL (GET /v1/nothing)");
    expectError(http.Get("/v1/chat/completions"), 404, "unknown_url",
                "Invalid URL (GET /v1/chat/completions)");
    expectError(
        http.Post("/v1/chat/completions", chatBody("I dreamed", 200, false), "application/json"),
        400, "context_length_exceeded", "maximum context length is 128 tokens");
    // far over the context: said from its length, before tokenizing it
    expectError(http.Post("/v1/chat/completions", chatBody(std::string(600000, 'a'), 4, false),
                          "application/json"),
                400, "context_length_exceeded", "you requested at least");
    // the connection is still good after each: the same client gets its answer
    auto fine = http.Post("/v1/chat/completions", chatBody("I dreamed", 4, false),
                          "application/json; charset=utf-8");
    QVERIFY(fine);
    QCOMPARE(fine->status, 200);
    QVERIFY(!fine->has_header("EXCEPTION_WHAT"));
  }

  void overTheKvPool() {
    engine::SchedulerOptions small;
    small.kv_blocks = 2;  // 64 positions for everyone, in a 512-position context
    RunningServer s(model_, session(512), serverOptions(), small);
    httplib::Client http("127.0.0.1", s.port);
    expectError(
        http.Post("/v1/chat/completions", chatBody(words(80), 4, false), "application/json"), 400,
        "context_length_exceeded", "positions of this server's KV cache");
  }

  void foreignHostsAndOrigins() {
    server::ServerOptions o = serverOptions();
    o.cors_origins = {"http://localhost:3000"};
    RunningServer s(model_, session(), o);
    httplib::Client http("127.0.0.1", s.port);
    expectError(http.Get("/v1/models", {{"Host", "evil.example:" + std::to_string(s.port)}}), 403,
                "host_not_allowed", "Host 'evil.example' is not this server");
    expectError(http.Post("/v1/chat/completions", {{"Host", "evil.example"}},
                          chatBody("I dreamed", 4, false), "application/json"),
                403, "host_not_allowed", "evil.example");
    for (const std::string host : {"localhost", "127.0.0.1:1234", "[::1]:80", "LOCALHOST"}) {
      auto ok = http.Get("/v1/models", {{"Host", host}});
      QVERIFY(ok);
      QCOMPARE(ok->status, 200);
    }
    // preflight: the listed origin gets its answer, another a 403
    const httplib::Headers listed{{"Origin", "http://localhost:3000"},
                                  {"Access-Control-Request-Method", "POST"},
                                  {"Access-Control-Request-Headers", "content-type"}};
    auto preflight = http.Options("/v1/chat/completions", listed);
    QVERIFY(preflight);
    QCOMPARE(preflight->status, 204);
    QCOMPARE(preflight->get_header_value("Access-Control-Allow-Origin"),
             std::string("http://localhost:3000"));
    QCOMPARE(preflight->get_header_value("Access-Control-Allow-Headers"),
             std::string("content-type"));  // what the page asked to send
    expectError(http.Options("/v1/chat/completions", {{"Origin", "http://evil.example"},
                                                      {"Access-Control-Request-Method", "POST"}}),
                403, "origin_not_allowed", "http://evil.example");
    auto from_listed = http.Get("/v1/models", {{"Origin", "http://localhost:3000"}});
    auto from_other = http.Get("/v1/models", {{"Origin", "http://evil.example"}});
    QVERIFY(from_listed && from_other);
    QCOMPARE(from_listed->get_header_value("Access-Control-Allow-Origin"),
             std::string("http://localhost:3000"));
    QVERIFY(!from_other->has_header("Access-Control-Allow-Origin"));
    // none listed (the default): no origin gets a preflight
    RunningServer plain(model_, session(), serverOptions());
    httplib::Client plain_http("127.0.0.1", plain.port);
    expectError(plain_http.Options("/v1/chat/completions", listed), 403, "origin_not_allowed",
                "http://localhost:3000");
  }

  void keysAreComparedWhole() {
    RunningServer s(model_, session(), serverOptions("k1"));
    httplib::Client http("127.0.0.1", s.port);
    for (const std::string wrong : {"Bearer k", "Bearer k1x", "Bearer K1", "k1", ""})
      expectError(http.Get("/v1/models", {{"Authorization", wrong}}), 401, "invalid_api_key",
                  "API key");
    auto right = http.Get("/v1/models", {{"Authorization", "Bearer k1"}});
    QVERIFY(right && right->status == 200);
    QVERIFY(server::sameSecret("abc", "abc"));
    QVERIFY(!server::sameSecret("abc", "abd") && !server::sameSecret("abc", "ab") &&
            !server::sameSecret("", "a"));
    QCOMPARE(server::exposureWarning("127.0.0.1", false), std::string());
    QCOMPARE(server::exposureWarning("0.0.0.0", true), std::string());
    QVERIFY(server::exposureWarning("0.0.0.0", false).find("without an API key") !=
            std::string::npos);
  }

  // A conversation longer than the context: 400 by default; with truncate_history its
  // oldest rounds go, the header says how many, and the answer is the one the kept rounds
  // get when sent alone.
  void historyIsTrimmedOnlyWhenAsked() {
    QJsonArray messages;
    for (int round = 0; round < 6; ++round) {
      messages.append(
          QJsonObject{{"role", "user"}, {"content", QString::fromStdString(words(12))}});
      messages.append(
          QJsonObject{{"role", "assistant"}, {"content", QString::fromStdString(words(12))}});
    }
    messages.append(QJsonObject{{"role", "user"}, {"content", "I dreamed"}});
    const auto bodyOf = [](const QJsonArray& m) {
      return QJsonDocument(QJsonObject{{"messages", m}, {"temperature", 0}, {"max_tokens", 8}})
          .toJson(QJsonDocument::Compact)
          .toStdString();
    };
    RunningServer strict(model_, session(96), serverOptions());
    httplib::Client strict_http("127.0.0.1", strict.port);
    expectError(strict_http.Post("/v1/chat/completions", bodyOf(messages), "application/json"), 400,
                "context_length_exceeded", "maximum context length is 96 tokens");
    server::ServerOptions o = serverOptions();
    o.truncate_history = true;
    RunningServer trimming(model_, session(96), o);
    httplib::Client http("127.0.0.1", trimming.port);
    auto trimmed = http.Post("/v1/chat/completions", bodyOf(messages), "application/json");
    QVERIFY(trimmed);
    QCOMPARE(trimmed->status, 200);
    const QString said =
        QString::fromStdString(trimmed->get_header_value("X-TokenScope-Truncated"));
    const QRegularExpressionMatch m =
        QRegularExpression(
            "^(\\d+) earliest messages \\((\\d+) tokens\\) dropped to fit the "
            "96-token context$")
            .match(said);
    QVERIFY2(m.hasMatch(), qPrintable(said));
    const int dropped = m.captured(1).toInt();
    QVERIFY(dropped >= 2 && dropped % 2 == 0);
    QJsonArray kept;
    for (int i = dropped; i < messages.size(); ++i) kept.append(messages[i]);
    auto alone = strict_http.Post("/v1/chat/completions", bodyOf(kept), "application/json");
    QVERIFY(alone && alone->status == 200);
    QCOMPARE(contentOf(trimmed->body), contentOf(alone->body));
  }

  // Memory out (the pool's test hook) as a request is admitted with a cached prefix: that
  // request gets a 500 (JSON), and the same request then answers as on a fresh server.
  void memoryOutAtAdmissionLeavesNoTrace() {
    RunningServer s(model_, session(256), serverOptions());
    httplib::Client http("127.0.0.1", s.port);
    const std::string first = words(45), second = words(45) + "I dreamed";
    auto a = http.Post("/v1/chat/completions", chatBody(first, 4, false), "application/json");
    QVERIFY(a && a->status == 200);
    engine::testing::failKvBlockAllocations(2);  // placing it, and again from used blocks
    auto failed = http.Post("/v1/chat/completions", chatBody(second, 6, false), "application/json");
    engine::testing::failKvBlockAllocations(0);
    expectError(failed, 500, "", "no memory left for the KV cache");
    expectError(failed, 500, "",
                "run fewer sequences at once, a smaller context or a smaller KV cache format");
    QCOMPARE(s.scheduler->metrics().kv_blocks_used, 0);
    auto again = http.Post("/v1/chat/completions", chatBody(second, 6, false), "application/json");
    RunningServer fresh(model_, session(256), serverOptions());
    httplib::Client fresh_http("127.0.0.1", fresh.port);
    auto want =
        fresh_http.Post("/v1/chat/completions", chatBody(second, 6, false), "application/json");
    QVERIFY(again && want && again->status == 200 && want->status == 200);
    QCOMPARE(contentOf(again->body), contentOf(want->body));
  }

  // The engine's error value (Scheduler::generate): 500 with "the engine failed: <the
  // device's message>" once; streamed, the stream's last event is that error.
  void engineFailuresAreJsonWithoutInternalsInHeaders() {
    RunningServer s(model_, std::make_unique<FailingSession>(model_, 128), serverOptions());
    httplib::Client http("127.0.0.1", s.port);
    auto res =
        http.Post("/v1/chat/completions", chatBody("I dreamed", 4, false), "application/json");
    expectError(res, 500, "", "the engine failed: device lost");
    QCOMPARE(errorOf(res->body).value("message").toString(),
             QString("the engine failed: device lost"));
    for (const auto& [name, value] : res->headers)
      QVERIFY2(value.find("device lost") == std::string::npos, name.c_str());
    auto streamed =
        http.Post("/v1/chat/completions", chatBody("I dreamed", 4, true), "application/json");
    QVERIFY(streamed);
    QCOMPARE(streamed->status, 200);  // the stream began before the pass failed
    const QStringList events =
        QString::fromStdString(streamed->body).split("\n\n", Qt::SkipEmptyParts);
    QVERIFY(!events.isEmpty());
    QVERIFY2(events.last().startsWith("data: "), qPrintable(events.last()));
    const QJsonObject last = errorOf(events.last().mid(6).toStdString());
    QCOMPARE(last.value("message").toString(), QString("the engine failed: device lost"));
    QCOMPARE(last.value("type").toString(), QString("server_error"));
  }

  // `serve` refuses at the start what the machine cannot hold and what is out of bounds, and
  // warns loudly when it listens beyond loopback without a key.
  void serveRefusesAtTheStart() {
    const QString model = aidreamsPath();
    const auto refused = [&](const QStringList& extra, int code, const QString& says) {
      QProcess p;
      p.start(TOKENSCOPE_CLI, QStringList{"serve", "--model", model, "--port", "0"} + extra);
      QVERIFY(p.waitForFinished(30000));
      QCOMPARE(p.exitCode(), code);
      const QString err = QString::fromUtf8(p.readAllStandardError());
      QVERIFY2(err.contains(says), qPrintable(err));
    };
    refused({"--kv-memory-mb", "4194304"}, 1, "MiB of memory available now");
    refused({"--parallel", "100000"}, 2, "--parallel: expected a whole number from 1 to 256");
    refused({"--max-body-mb", "0"}, 2, "--max-body-mb: expected a whole number from 1 to 1024");
    refused({"--kv-memory-mb", "64", "--kv-positions", "1024"}, 2, "give one of them");
    refused({"--cors-origin", "evil.example/path"}, 2, "--cors-origin: expected an origin");
    QProcess open;
    open.start(TOKENSCOPE_CLI, {"serve", "--model", model, "--host", "0.0.0.0", "--port", "0"});
    QVERIFY(open.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(QString::fromUtf8(open.peek(1 << 16)).contains("http://0.0.0.0:"),
                             20000);
    QString err;
    QTRY_VERIFY_WITH_TIMEOUT((err += QString::fromUtf8(open.readAllStandardError()))
                                 .contains("WARNING: serving on 0.0.0.0 without an API key"),
                             10000);
    ::kill(static_cast<pid_t>(open.processId()), SIGTERM);
    QVERIFY(open.waitForFinished(10000));
  }
};

QTEST_GUILESS_MAIN(TestServerGuard)
#include "test_server_guard.moc"
