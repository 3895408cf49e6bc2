// Clients that go away: a request whose connection closes, streamed or not, while its prompt
// is computed, while it decodes, or while it waits behind others, is cancelled: its slot is
// free and num_requests_running / num_requests_waiting drop within a step or two, long
// before it would have finished. On the real aidreams260K model, each pass made 20 ms
// slower (a model the size users serve, on a CPU): a request then runs long enough to be
// left in the middle.
#include <QFile>
#include <QTest>
#include <chrono>
#include <thread>

#include "tests/app/server/server_fixture.h"

using namespace ts;
using namespace ts::testing;

namespace {

constexpr int kPassMs = 20;

// The CPU session, paged, each pass kPassMs slower.
class SlowSession : public engine::DecodeSession {
 public:
  SlowSession(std::shared_ptr<const engine::Model> model, int positions)
      : cpu_(std::move(model), positions) {}
  std::span<const float> forwardBatch(std::span<const int> tokens, int pos, bool all) override {
    return cpu_.forwardBatch(tokens, pos, all);
  }
  void truncate(int length) override { cpu_.truncate(length); }
  int vocab() const override { return cpu_.vocab(); }
  int maxPositions() const override { return cpu_.maxPositions(); }
  bool usePagedKv(int blocks) override { return cpu_.usePagedKv(blocks); }
  std::span<const float> forwardSequences(std::span<const engine::SequencePass> passes) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(kPassMs));  // the slow machine
    return cpu_.forwardSequences(passes);
  }
  void copyKvBlock(int from, int to) override { cpu_.copyKvBlock(from, to); }

 private:
  engine::CpuSession cpu_;
};

}  // namespace

class TestServerDisconnect : public QObject {
  Q_OBJECT
  std::shared_ptr<engine::Model> model_;

  std::unique_ptr<RunningServer> slowServer(int max_running = 8) {
    engine::SchedulerOptions o;
    o.prefill_chunk = 8;  // a 40-word prompt (about 160 tokens) takes 20 steps
    o.max_running = max_running;
    return std::make_unique<RunningServer>(model_, std::make_unique<SlowSession>(model_, 512),
                                           serverOptions(), o);
  }
  // A prompt of about `words` tokens.
  static std::string longPrompt(int words) {
    std::string text;
    for (int i = 0; i < words; ++i) text += i % 2 ? "dream " : "sky ";
    return text;
  }

  // Leaves after `tokens` generated tokens (0: while the prompt is computed, after two
  // steps): the request ends within a few steps, its slot free.
  void leaveAt(bool stream, int tokens) {
    auto s = slowServer();
    const std::string prompt = tokens == 0 ? longPrompt(40) : "I dreamed";
    RawClient client(s->port, chatBody(prompt, 200, stream));
    QVERIFY(client.ok());
    engine::Scheduler& sched = *s->scheduler;
    QVERIFY(waitFor([&] { return sched.metrics().running == 1; }));
    if (tokens == 0)
      QVERIFY(waitFor([&] { return sched.metrics().steps >= 2; }));
    else
      QVERIFY(waitFor([&] { return sched.metrics().generation_tokens >= uint64_t(tokens); }));
    const auto at = sched.metrics();
    if (tokens == 0) QCOMPARE(at.generation_tokens, uint64_t(0));  // still in its prompt
    client.close();
    QVERIFY2(waitFor([&] { return sched.metrics().running == 0; }),
             "the abandoned request still runs");
    const auto after = sched.metrics();
    // The watch looks every 10 ms, a step takes 20: a few steps at most, not the 200
    // tokens (or the prompt's 13 steps) it asked for.
    QVERIFY2(after.steps - at.steps <= 10,
             qPrintable(QString("%1 steps after the client left").arg(after.steps - at.steps)));
    QVERIFY(after.generation_tokens < 200);
    if (tokens == 0) QCOMPARE(after.generation_tokens, uint64_t(0));
    QCOMPARE(after.requests_finished, uint64_t(1));
    QCOMPARE(after.kv_blocks_used, 0);
    QVERIFY(waitFor([&] { return s->server->admittedRequests() == 0; }));
    QCOMPARE(s->server->completedRequests(), 0);
  }

 private slots:
  void initTestCase() { TS_LOAD_AIDREAMS_OR_SKIP(model_); }

  void wholeAnswerLeftWhileDecoding() { leaveAt(false, 3); }
  void streamLeftWhileDecoding() { leaveAt(true, 3); }
  void wholeAnswerLeftDuringThePrompt() { leaveAt(false, 0); }
  void streamLeftDuringThePrompt() { leaveAt(true, 0); }

  // One running, two waiting behind it (one streamed, one not): each waiting client that
  // leaves is out of the queue while the first still runs; the first then completes.
  void waitingRequestsLeftInTheQueue() {
    auto s = slowServer(1);
    engine::Scheduler& sched = *s->scheduler;
    std::string first;
    std::thread runner([&] {
      httplib::Client c("127.0.0.1", s->port);
      c.set_read_timeout(60, 0);
      if (auto r =
              c.Post("/v1/chat/completions", chatBody("I dreamed", 40, false), "application/json"))
        first = r->body;
    });
    QVERIFY(waitFor([&] { return sched.metrics().running == 1; }));
    RawClient whole(s->port, chatBody("I dreamed of", 40, false));
    RawClient streamed(s->port, chatBody("I dreamed of a", 40, true));
    QVERIFY(whole.ok() && streamed.ok());
    QVERIFY(waitFor([&] { return sched.metrics().waiting == 2; }));
    whole.close();
    QVERIFY(waitFor([&] { return sched.metrics().waiting == 1; }));
    streamed.close();
    QVERIFY(waitFor([&] { return sched.metrics().waiting == 0; }));
    QCOMPARE(sched.metrics().running, 1);  // the first still runs: they left from the queue
    QVERIFY(waitFor([&] { return s->server->admittedRequests() <= 1; }));
    runner.join();
    QVERIFY2(QString::fromStdString(first).contains("\"completion_tokens\":40"), first.c_str());
    QCOMPARE(sched.metrics().requests_finished, uint64_t(3));  // each once
  }

  // cancelAll (Serve off): every request, running or waiting, ends within a step; new ones
  // get 503; stop() then returns.
  void cancelAllEndsEverything() {
    auto s = slowServer(2);
    engine::Scheduler& sched = *s->scheduler;
    std::vector<std::unique_ptr<RawClient>> clients;
    for (int i = 0; i < 4; ++i)
      clients.push_back(std::make_unique<RawClient>(s->port, chatBody("I dreamed", 200, i % 2)));
    QVERIFY(waitFor([&] { return sched.metrics().running == 2 && sched.metrics().waiting == 2; }));
    const auto at = sched.metrics();
    s->server->cancelAll();
    QVERIFY(waitFor([&] { return sched.metrics().running == 0 && sched.metrics().waiting == 0; }));
    QVERIFY(sched.metrics().steps - at.steps <= 3);
    httplib::Client c("127.0.0.1", s->port);
    auto refused =
        c.Post("/v1/chat/completions", chatBody("I dreamed", 4, false), "application/json");
    QVERIFY(refused);
    QCOMPARE(refused->status, 503);
    QCOMPARE(errorOf(refused->body).value("code").toString(), QString("server_stopping"));
    s->server->stop();
    QCOMPARE(s->server->admittedRequests(), 0);
  }

  // A client that sends its request a byte now and then (each read waits up to httplib's
  // 5 s) and an idle keep-alive connection do not hold up a stop after cancelAll.
  void aTricklingClientDoesNotHoldTheStop() {
    auto s = slowServer();
    std::atomic<bool> stopped{false}, gave_up{false};
    std::thread trickler([&] {
      RawClient c(s->port, "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n", true);
      c.send("X-Slow: ");
      for (int i = 0; i < 60 && !stopped; ++i) {  // up to a minute of one byte every second
        if (!c.send("a")) break;                  // the server shut the connection
        std::this_thread::sleep_for(std::chrono::seconds(1));
      }
      gave_up = !stopped;
    });
    httplib::Client idle("127.0.0.1", s->port);  // one request, then kept alive
    auto health = idle.Get("/health");
    QVERIFY(health && health->status == 200);
    QVERIFY(waitFor([&] { return s->scheduler->metrics().running == 0; }));
    s->server->cancelAll();
    s->server->stop();  // returns while the trickler is still sending
    stopped = true;
    trickler.join();
    QVERIFY(!gave_up);
  }
};

QTEST_GUILESS_MAIN(TestServerDisconnect)
#include "test_server_disconnect.moc"
