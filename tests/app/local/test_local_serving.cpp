// Provider → Serve the local model, as the app runs it (LocalServing): Serve off with eight
// generations running cancels them while the GUI thread keeps answering events; a start
// while the old server is still stopping serves once it has gone; off twice, and the
// destructor at quit, end everything within a bound. Real HTTP on 127.0.0.1.
#include <httplib.h>

#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "app/local/demo_model.h"
#include "app/local/local_engines.h"
#include "app/local/local_serving.h"

using namespace ts;

namespace {

constexpr int kStreams = 8;          // the scheduler's default max_running: all of them run
constexpr qint64 kAnswerMs = 200;    // the GUI event loop answers within this while stopping
constexpr qint64 kStoppedMs = 5000;  // cancelled requests end within a step: stopped() soon

// Streaming chat completions on their own threads (not the GUI thread being measured), each
// on its own connection, reading every byte until the server ends the stream.
class Streams {
 public:
  Streams(int port, int n, int max_tokens) : bytes_(n), done_(n) {
    const std::string body =
        R"({"messages": [{"role": "user", "content": "Once upon a time"}], "stream": true, )"
        R"("temperature": 0, "max_tokens": )" +
        std::to_string(max_tokens) + "}";
    for (int i = 0; i < n; ++i)
      threads_.emplace_back([this, port, body, i] {
        httplib::Request req;
        req.method = "POST";
        req.path = "/v1/chat/completions";
        req.headers = {{"Content-Type", "application/json"}};
        req.body = body;
        req.content_receiver = [this, i](const char* data, size_t n, uint64_t, uint64_t) {
          bytes_[i] += static_cast<long>(n);
          // QJsonDocument's compact form, as the server writes it
          if (std::string_view(data, n).find(R"("finish_reason":"length")") !=
              std::string_view::npos)
            ran_to_length_++;
          return true;
        };
        httplib::Client client("127.0.0.1", port);
        client.set_read_timeout(120, 0);
        client.send(req);
        done_[i] = true;
      });
  }
  ~Streams() { join(); }
  void join() {
    for (std::thread& t : threads_)
      if (t.joinable()) t.join();
  }
  bool allEnded() const {
    for (const auto& d : done_)
      if (!d) return false;
    return true;
  }
  int ranToLength() const { return ran_to_length_; }  // not cut short: max_tokens reached

 private:
  std::vector<std::atomic<long>> bytes_;
  std::vector<std::atomic<bool>> done_;
  std::atomic<int> ran_to_length_{0};
  std::vector<std::thread> threads_;
};

}  // namespace

class TestLocalServing : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString demo_;
  QString shared_ = qEnvironmentVariable("TOKENSCOPE_SHARED_DIR", "../shared") + "/models";

  // Nearly the whole context: far more tokens than a stop lets through (seconds of work).
  static int longAnswer(const LocalEngineSpec& spec) { return spec.engine.context - 100; }

  // A model slow enough that eight long generations are still running when Serve goes off:
  // the 32-layer tiny Baichuan of the shared fixtures, else the demo model.
  LocalEngineSpec slowSpec() const {
    const QString tiny = shared_ + "/baichuan-tiny-rope/baichuan-tiny-rope-32L-f32.gguf";
    const bool found = QFile::exists(tiny);
    LocalEngineSpec spec{found ? tiny : demo_, {}};
    spec.engine.context = found ? 2048 : 1024;
    return spec;
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    demo_ = dir_.filePath("demo.gguf");
    QCOMPARE(ensureDemoModel(demo_), QString());
  }

  // The issue's check: Serve off with 8 running generations; the GUI event loop answers a
  // posted event within 200 ms while they are cancelled, and stopped() follows.
  void serveOffWithEightRunningGenerationsKeepsTheGuiResponsive() {
    const LocalEngineSpec spec = slowSpec();
    QString error;
    std::shared_ptr<SharedEngine> engine = sharedLocalEngine(spec, error);  // the one served
    QVERIFY2(engine, qPrintable(error));
    LocalServing serving;
    QSignalSpy started(&serving, &LocalServing::started);
    QSignalSpy stopped(&serving, &LocalServing::stopped);
    serving.start(spec, "slow");
    QVERIFY(started.wait(60000));
    QCOMPARE(serving.state(), LocalServing::State::Serving);
    Streams streams(serving.port(), kStreams, longAnswer(spec));
    QTRY_COMPARE_WITH_TIMEOUT(engine->scheduler->metrics().running, kStreams, 60000);

    // The event loop's worst gap while the server stops: a 10 ms timer's ticks.
    QElapsedTimer since_tick;
    qint64 worst_gap = 0;
    QTimer tick;
    tick.setInterval(10);
    connect(&tick, &QTimer::timeout, this,
            [&] { worst_gap = std::max(worst_gap, since_tick.restart()); });
    QElapsedTimer clock;
    clock.start();
    serving.stop();
    const qint64 stop_returned = clock.elapsed();
    qint64 answered = -1;
    QTimer::singleShot(0, this, [&] { answered = clock.elapsed(); });
    since_tick.start();
    tick.start();
    QCOMPARE(serving.state(), LocalServing::State::Stopping);
    QVERIFY(!serving.isServing());
    QVERIFY(stopped.wait(30000));
    const qint64 stopped_after = clock.elapsed();
    tick.stop();
    QVERIFY2(answered >= 0 && answered < kAnswerMs,
             qPrintable(QString("the posted event ran %1 ms after stop() (which returned after "
                                "%2 ms)")
                            .arg(answered)
                            .arg(stop_returned)));
    QVERIFY2(worst_gap < kAnswerMs,
             qPrintable(QString("the event loop stalled %1 ms while stopping").arg(worst_gap)));
    QCOMPARE(serving.state(), LocalServing::State::Off);
    // Cancelled, not run to their end: each stream was cut short, within a step or so.
    QTRY_VERIFY_WITH_TIMEOUT(streams.allEnded(), 10000);
    QCOMPARE(streams.ranToLength(), 0);
    QVERIFY2(stopped_after < kStoppedMs,
             qPrintable(QString("stopped() came %1 ms after stop()").arg(stopped_after)));
    QTRY_COMPARE_WITH_TIMEOUT(engine->scheduler->metrics().running, 0, 10000);
  }

  // On again while the old server still stops: it serves once that has ended (the port is
  // free again), with no stopped() between; off twice stops once.
  void startWhileStoppingServesAfterTheStop() {
    const LocalEngineSpec spec{demo_, {}};
    LocalServing serving;
    QSignalSpy started(&serving, &LocalServing::started);
    QSignalSpy stopped(&serving, &LocalServing::stopped);
    QSignalSpy failed(&serving, &LocalServing::failed);
    serving.start(spec, "demo");
    QVERIFY(started.wait(60000));
    const int port = serving.port();
    serving.stop();
    QCOMPARE(serving.state(), LocalServing::State::Stopping);
    serving.start(spec, "demo");
    QCOMPARE(serving.state(), LocalServing::State::Starting);
    QTRY_COMPARE_WITH_TIMEOUT(started.count(), 2, 60000);
    QCOMPARE(stopped.count(), 0);
    QCOMPARE(failed.count(), 0);
    QCOMPARE(serving.port(), port);  // the same port: the old server had let it go
    httplib::Client client("127.0.0.1", port);
    auto models = client.Get("/v1/models");
    QVERIFY(models && models->status == 200);

    serving.stop();
    serving.stop();  // harmless
    QVERIFY(stopped.wait(30000));
    QCOMPARE(serving.state(), LocalServing::State::Off);
    QVERIFY(!httplib::Client("127.0.0.1", port).Get("/v1/models"));
    // On and off again while stopping: the queued start is withdrawn.
    serving.start(spec, "demo");
    QTRY_COMPARE_WITH_TIMEOUT(started.count(), 3, 60000);
    serving.stop();
    serving.start(spec, "demo");
    serving.stop();
    QTRY_COMPARE_WITH_TIMEOUT(stopped.count(), 2, 30000);
    QCOMPARE(started.count(), 3);
    QCOMPARE(serving.state(), LocalServing::State::Off);
  }

  // Quit while generations run: the destructor cancels them and waits for the server's
  // stop, which is bounded because nothing runs any more.
  void quitWhileGeneratingEndsWithinABound() {
    const LocalEngineSpec spec = slowSpec();
    QString error;
    std::shared_ptr<SharedEngine> engine = sharedLocalEngine(spec, error);
    QVERIFY2(engine, qPrintable(error));
    auto serving = std::make_unique<LocalServing>();
    QSignalSpy started(serving.get(), &LocalServing::started);
    serving->start(spec, "slow");
    QVERIFY(started.wait(60000));
    Streams streams(serving->port(), 4, longAnswer(spec));
    QTRY_COMPARE_WITH_TIMEOUT(engine->scheduler->metrics().running, 4, 60000);
    QElapsedTimer clock;
    clock.start();
    serving.reset();
    QVERIFY2(clock.elapsed() < kStoppedMs,
             qPrintable(QString("the destructor took %1 ms").arg(clock.elapsed())));
    QTRY_VERIFY_WITH_TIMEOUT(streams.allEnded(), 10000);
    QCOMPARE(streams.ranToLength(), 0);
  }
};

QTEST_GUILESS_MAIN(TestLocalServing)
#include "test_local_serving.moc"
