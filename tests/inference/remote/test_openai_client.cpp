// The client end to end against a real HTTP server on 127.0.0.1 that follows a script:
// what the user sees (text, message, metrics) for every behaviour the server can show.
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>

#include "inference/remote/openai_client.h"
#include "inference/stream/metrics.h"
#include "tests/support/openai_test_server.h"

using namespace ts;
using ts::testing::OpenAiTestServer;
using ts::testing::ServerScript;

namespace {

struct Outcome {
  RemoteResult result;
  RunMetrics metrics;
  const StreamEvent* end() const { return result.run.terminal(); }
  QString message() const { return end() ? QString::fromStdString(end()->text) : QString(); }
  std::string text() const { return result.run.contentText(); }
};

}  // namespace

class TestOpenAiClient : public QObject {
  Q_OBJECT
  OpenAiTestServer server_;
  int port_ = 0;

  RemoteEndpoint endpoint(const QString& provider = "test") const {
    RemoteEndpoint e;
    e.provider_name = provider;
    e.base_url = QString::fromStdString(server_.baseUrl());
    e.max_retries = 0;
    e.timeouts = {2000, 3000, 2000, 20000};
    return e;
  }
  static GenerationRequest request(const std::string& model = "test-model", int max_tokens = 512,
                                   bool stream = true) {
    GenerationRequest r;
    r.model = model;
    r.messages = {{"user", "Say hello"}};
    r.params.max_tokens = max_tokens;
    r.params.stream = stream;
    return r;
  }
  Outcome run(const RemoteEndpoint& e, const GenerationRequest& r, int cancel_after_chunks = -1) {
    OpenAiClient client;
    QSignalSpy done(&client, &OpenAiClient::runFinished);
    int chunks = 0;
    connect(&client, &OpenAiClient::eventReady, &client, [&](const StreamEvent& ev) {
      if (ev.kind == EventKind::TokenChunk && !ev.text.empty() && ++chunks == cancel_after_chunks)
        client.cancel();
    });
    client.start(e, r);
    if (done.isEmpty()) [&] { QVERIFY(done.wait(30000)); }();
    Outcome o{client.result(), {}};
    o.metrics = computeMetrics(o.result.run);
    return o;
  }
  void script(const ServerScript& s) {
    server_.setScript(s);
    server_.clearRequests();
  }

 private slots:
  void initTestCase() {
    port_ = server_.start();
    QVERIFY(port_ > 0);
  }
  void cleanupTestCase() { server_.stop(); }

  void streamsTextAndMatchesServerTruth() {
    ServerScript s;
    s.ttft_ms = 40;
    s.gap_ms = 5;
    s.chunks = 12;
    script(s);
    const Outcome o = run(endpoint(), request());
    QCOMPARE(o.text(), OpenAiTestServer::expectedText(s));
    QCOMPARE(o.end()->kind, EventKind::Finished);
    QCOMPARE(o.end()->text, std::string("stop"));
    QCOMPARE(o.metrics.output_tokens, 12);
    QCOMPARE(o.metrics.output_tokens_source, TokenCountSource::Usage);
    QCOMPARE(*o.metrics.prompt_tokens, 5);
    const auto served = server_.requests();
    QCOMPARE(served.size(), size_t{1});
    QVERIFY(QJsonDocument::fromJson(QByteArray::fromStdString(served[0].body))
                .object()
                .contains("stream_options"));
    // Each chunk is timestamped within a few ms of when the server wrote it.
    std::vector<int64_t> client_times;
    for (const auto& e : o.result.run.events)
      if (e.kind == EventKind::TokenChunk) client_times.push_back(e.t_ns);
    QCOMPARE(client_times.size(), served[0].chunks.size());
    for (size_t i = 0; i < client_times.size(); ++i) {
      const int64_t lag = client_times[i] - served[0].chunks[i].t_ns;
      QVERIFY2(lag >= 0 && lag < 20'000'000,
               qPrintable(QString("chunk %1 lag %2 ns").arg(i).arg(lag)));
    }
    QVERIFY(*o.metrics.ttft_ns >= 40'000'000);
    QCOMPARE(o.metrics.itl_ns.size(), size_t{11});
  }

  void multiTokenChunksCountFromUsage() {
    ServerScript s;
    s.chunks = 4;
    s.tokens_per_chunk = 3;
    script(s);
    const Outcome o = run(endpoint(), request());
    QCOMPARE(o.metrics.content_chunks, 4);
    QCOMPARE(o.metrics.output_tokens, 12);
    QCOMPARE(o.text(), OpenAiTestServer::expectedText(s));
  }

  void withoutUsageTokensAreCountedAsChunks() {
    ServerScript s;
    s.usage = false;
    script(s);
    const Outcome o = run(endpoint(), request());
    QCOMPARE(o.metrics.output_tokens_source, TokenCountSource::Chunks);
    QCOMPARE(o.metrics.output_tokens, 8);
  }

  void streamOptionsRejectedRetriesOnceAndIsRemembered() {
    ServerScript s;
    s.reject_stream_options = true;
    script(s);
    const Outcome first = run(endpoint("picky"), request());
    QCOMPARE(first.end()->kind, EventKind::Finished);
    QCOMPARE(first.text(), OpenAiTestServer::expectedText(s));
    QCOMPARE(first.result.attempts, 2);
    QVERIFY(first.result.warnings.join(" ").contains("stream_options"));
    QCOMPARE(first.metrics.output_tokens_source, TokenCountSource::Chunks);
    server_.clearRequests();
    const Outcome second = run(endpoint("picky"), request());
    QCOMPARE(second.result.attempts, 1);  // remembered: no second 400
    QVERIFY(!second.result.stream_options_sent);
    QCOMPARE(server_.requests().size(), size_t{1});
  }

  void unauthorizedNamesTheUnsetVariable() {
    ServerScript s;
    s.required_key = "sk-good";
    script(s);
    qunsetenv("TS_CLIENT_TEST_KEY");
    auto e = endpoint();
    e.api_key_env = "TS_CLIENT_TEST_KEY";
    const Outcome o = run(e, request());
    QCOMPARE(o.end()->failure, FailureKind::Auth);
    QCOMPARE(o.end()->http_status, 401);
    QVERIFY2(o.message().contains("TS_CLIENT_TEST_KEY is not set"), qPrintable(o.message()));
    QVERIFY(!server_.requests()[0].had_authorization);
  }

  void wrongKeyWithWhitespaceSaysItWasTrimmed() {
    ServerScript s;
    s.required_key = "sk-good";
    script(s);
    auto e = endpoint();
    e.api_key_env = "TS_CLIENT_TEST_KEY";
    qputenv("TS_CLIENT_TEST_KEY", " sk-bad\n");
    const Outcome bad = run(e, request());
    QCOMPARE(bad.end()->failure, FailureKind::Auth);
    QVERIFY2(bad.message().contains("trimmed"), qPrintable(bad.message()));
    QVERIFY(!bad.message().contains("sk-bad"));  // the key never appears in a message
    qputenv("TS_CLIENT_TEST_KEY", "sk-good\n");  // right key, pasted with a newline
    const Outcome good = run(e, request());
    QCOMPARE(good.end()->kind, EventKind::Finished);
    QVERIFY(good.result.warnings.join(" ").contains("trimmed"));
    qunsetenv("TS_CLIENT_TEST_KEY");
  }

  void notFoundShowsFinalUrlAndBaseUrlFix() {
    script(ServerScript{});
    auto e = endpoint();
    e.base_url += "/api";  // the server has no /api prefix
    const Outcome o = run(e, request());
    QCOMPARE(o.end()->failure, FailureKind::NotFound);
    QCOMPARE(o.end()->http_status, 404);
    QVERIFY2(o.message().contains(QString::fromStdString(server_.baseUrl()) +
                                  "/api/v1/chat/completions"),
             qPrintable(o.message()));
    QVERIFY(o.message().contains("base URL"));
  }

  void pastedV1SuffixStillWorks() {
    script(ServerScript{});
    auto e = endpoint();
    e.base_url += "/v1/";
    const Outcome o = run(e, request());
    QCOMPARE(o.end()->kind, EventKind::Finished);
    QVERIFY(o.result.warnings.join(" ").contains("/v1"));
  }

  void modelNotFoundListsAvailableModels() {
    ServerScript s;
    s.models = {"test-model", "baichuan2-13b"};
    script(s);
    const Outcome o = run(endpoint(), request("gpt-unknown"));
    QCOMPARE(o.end()->failure, FailureKind::ModelNotFound);
    QVERIFY2(o.message().contains("'gpt-unknown'"), qPrintable(o.message()));
    QVERIFY(o.message().contains("test-model, baichuan2-13b"));
  }

  void rateLimitHonoursRetryAfter() {
    ServerScript s;
    s.status = 429;
    s.retry_after_s = 1;
    s.fail_first_n = 1;
    script(s);
    auto e = endpoint();
    e.max_retries = 1;
    QElapsedTimer clock;
    clock.start();
    const Outcome o = run(e, request());
    QCOMPARE(o.end()->kind, EventKind::Finished);
    QCOMPARE(o.result.attempts, 2);
    QVERIFY(clock.elapsed() >= 1000);
    QCOMPARE(o.text(), OpenAiTestServer::expectedText(s));
  }

  void rateLimitWithoutRetriesSaysHowLongToWait() {
    ServerScript s;
    s.status = 429;
    s.retry_after_s = 7;
    script(s);
    const Outcome o = run(endpoint(), request());
    QCOMPARE(o.end()->failure, FailureKind::RateLimited);
    QCOMPARE(o.end()->http_status, 429);
    QVERIFY2(o.message().contains("wait 7 s"), qPrintable(o.message()));
  }

  void serverErrorIsRetriedBeforeTheFirstByte() {
    ServerScript s;
    s.status = 500;
    s.fail_first_n = 1;
    script(s);
    auto e = endpoint();
    e.max_retries = 2;
    const Outcome o = run(e, request());
    QCOMPARE(o.end()->kind, EventKind::Finished);
    QCOMPARE(o.result.attempts, 2);
  }

  void serverErrorAfterRetriesIsReported() {
    ServerScript s;
    s.status = 503;
    script(s);
    auto e = endpoint();
    e.max_retries = 1;
    const Outcome o = run(e, request());
    QCOMPARE(o.end()->failure, FailureKind::Server);
    QCOMPARE(o.end()->http_status, 503);
    QVERIFY2(o.message().contains("after 2 attempt(s)"), qPrintable(o.message()));
    QCOMPARE(server_.requests().size(), size_t{2});
  }

  void connectionRefusedSaysIsTheServerRunning() {
    OpenAiTestServer closed;
    const int port = closed.start();
    closed.stop();  // the port is now (almost certainly) closed
    auto e = endpoint();
    e.base_url = QString("http://127.0.0.1:%1").arg(port);
    const Outcome o = run(e, request());
    QCOMPARE(o.end()->failure, FailureKind::Connection);
    QVERIFY2(o.message().contains("connection refused"), qPrintable(o.message()));
    QVERIFY(o.message().contains(QString("127.0.0.1:%1").arg(port)));
  }

  void stallKeepsThePartialAnswer() {
    ServerScript s;
    s.chunks = 10;
    s.stall_after_chunks = 3;
    s.stall_ms = 4000;
    script(s);
    auto e = endpoint();
    e.timeouts.idle_ms = 300;
    QElapsedTimer clock;
    clock.start();
    const Outcome o = run(e, request());
    QVERIFY(clock.elapsed() < 2500);
    QCOMPARE(o.end()->failure, FailureKind::Stall);
    QVERIFY2(o.message().contains("stalled") && o.message().contains("partial"),
             qPrintable(o.message()));
    QCOMPARE(o.end()->partial_text, OpenAiTestServer::expectedText(s, 3));
    QCOMPARE(o.text(), OpenAiTestServer::expectedText(s, 3));
    QCOMPARE(o.result.attempts, 1);  // never replayed after tokens
  }

  void resetMidStreamKeepsPartialAndDoesNotReplay() {
    ServerScript s;
    s.chunks = 10;
    s.reset_after_chunks = 4;
    script(s);
    auto e = endpoint();
    e.max_retries = 3;
    const Outcome o = run(e, request());
    QCOMPARE(o.end()->failure, FailureKind::Reset);
    QCOMPARE(o.end()->partial_text, OpenAiTestServer::expectedText(s, 4));
    QVERIFY2(o.message().contains("partial answer is kept"), qPrintable(o.message()));
    QCOMPARE(server_.requests().size(), size_t{1});
  }

  void malformedLineIsSkippedAndReported() {
    ServerScript s;
    s.malformed_after_chunks = 2;
    script(s);
    const Outcome o = run(endpoint(), request());
    QCOMPARE(o.end()->kind, EventKind::Finished);
    QCOMPARE(o.text(), OpenAiTestServer::expectedText(s));
    QCOMPARE(o.result.malformed_lines, 1);
    QVERIFY(o.result.warnings.join(" ").contains("not valid JSON"));
  }

  void streamWithoutDoneFinishesWithAWarning() {
    ServerScript s;
    s.send_done = false;
    script(s);
    const Outcome o = run(endpoint(), request());
    QCOMPARE(o.end()->kind, EventKind::Finished);
    QCOMPARE(o.end()->text, std::string("stop"));
    QCOMPARE(o.text(), OpenAiTestServer::expectedText(s));
    QVERIFY(o.result.warnings.join(" ").contains("[DONE]"));
  }

  void maxTokensCutsWithFinishReasonLength() {
    script(ServerScript{});
    const Outcome o = run(endpoint(), request("test-model", 3));
    QCOMPARE(o.end()->text, std::string("length"));
    QCOMPARE(o.metrics.output_tokens, 3);
  }

  void nonStreamingGivesOneChunk() {
    script(ServerScript{});
    const Outcome o = run(endpoint(), request("test-model", 512, false));
    QCOMPARE(o.end()->kind, EventKind::Finished);
    QCOMPARE(o.text(), OpenAiTestServer::expectedText(ServerScript{}));
    QCOMPARE(o.metrics.content_chunks, 1);
    QCOMPARE(*o.metrics.ttft_ns, *o.metrics.e2e_ns);
    QCOMPARE(o.metrics.output_tokens_source, TokenCountSource::Usage);
  }

  void firstByteTimeoutNamesTheStep() {
    ServerScript s;
    s.ttft_ms = 3000;
    s.keepalive_comment = false;
    script(s);
    auto e = endpoint();
    e.timeouts.first_byte_ms = 300;
    const Outcome o = run(e, request());
    QCOMPARE(o.end()->failure, FailureKind::Timeout);
    QVERIFY2(o.message().contains("first-byte timeout"), qPrintable(o.message()));
  }

  void totalLimitEndsALongAnswerAndKeepsIt() {
    ServerScript s;
    s.chunks = 1000;
    s.gap_ms = 5;
    script(s);
    auto e = endpoint();
    e.timeouts.total_ms = 400;
    const Outcome o = run(e, request("test-model", 5000));
    QCOMPARE(o.end()->failure, FailureKind::Timeout);
    QVERIFY2(o.message().contains("total limit of 0.4 s"), qPrintable(o.message()));
    QVERIFY(o.message().contains("partial answer is kept"));
    QVERIFY(!o.end()->partial_text.empty());
    QCOMPARE(o.end()->partial_text, o.text());
  }

  void measuredGapsMatchTheServersGaps() {
    ServerScript s;
    s.chunks = 40;
    s.gap_ms = 8;
    script(s);
    const Outcome o = run(endpoint(), request());
    const auto truth = server_.requests().at(0).chunks;
    QCOMPARE(o.metrics.itl_ns.size(), truth.size() - 1);
    std::vector<double> errors;
    for (size_t i = 1; i < truth.size(); ++i)
      errors.push_back(
          std::abs(double(o.metrics.itl_ns[i - 1]) - double(truth[i].t_ns - truth[i - 1].t_ns)));
    // The median gap error is tiny on loopback (well under 1 ms quiet); on loaded cores the
    // scheduler separates send and arrival by a few ms (2.1 ms seen with two test runs and a
    // build on 2 cores). Half the 8 ms gap still catches a client that batches chunks (its
    // errors are whole gaps).
    QVERIFY2(summarize(errors).p50 < 4e6, qPrintable(QString::number(summarize(errors).p50)));
  }

  void cancelKeepsPartialWithin100ms() {
    ServerScript s;
    s.chunks = 2000;
    s.gap_ms = 5;
    script(s);
    QElapsedTimer clock;
    OpenAiClient client;
    QSignalSpy done(&client, &OpenAiClient::runFinished);
    qint64 cancel_at = -1;
    int chunks = 0;
    connect(&client, &OpenAiClient::eventReady, &client, [&](const StreamEvent& ev) {
      if (ev.kind == EventKind::TokenChunk && !ev.text.empty() && ++chunks == 5) {
        cancel_at = clock.nsecsElapsed();
        QTimer::singleShot(0, &client, [&] { client.cancel(); });
      }
    });
    clock.start();
    client.start(endpoint(), request());
    QVERIFY(done.wait(10000));
    const qint64 latency_ms = (clock.nsecsElapsed() - cancel_at) / 1'000'000;
    QVERIFY2(latency_ms < 100, qPrintable(QString("cancel took %1 ms").arg(latency_ms)));
    const auto* end = client.result().run.terminal();
    QCOMPARE(end->text, std::string("cancelled"));
    QVERIFY(client.result().cancelled);
    QVERIFY(client.result().run.contentText().size() >=
            OpenAiTestServer::expectedText(s, 5).size());
  }
};

QTEST_GUILESS_MAIN(TestOpenAiClient)
#include "test_openai_client.moc"
