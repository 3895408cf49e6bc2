// A local chat's turns as issue 42 found them: the fourth turn of a chat with a random model
// showed "707 tok, 10 cached" (its prompt rebuilt from the answers' text, which does not
// re-tokenize to the ids generated), and the first speculative message spent seconds
// converting its draft with nothing said, after which speculative turns reused no cached
// prompt tokens. The demo model (random weights: noise, invalid UTF-8) on the engine worker
// as the app's chat runs it, reading what the metrics strip shows: "N tok, M cached".
#include <QSet>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <atomic>

#include "app/local/demo_model.h"
#include "app/local/local_engine_worker.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/model/kv_cache.h"
#include "inference/engine/tokenizer/tokenizer.h"

using namespace ts;

namespace {

// One turn's outcome: the Usage event and the answer as a chat keeps it (each chunk decoded
// as it arrives).
struct Turn {
  StreamEvent usage;
  QString answer;
  bool finished = false;
};

}  // namespace

class TestLocalChat : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);  // ~/.qttest: never the user's own data
    QVERIFY(dir_.isValid());
    path_ = dir_.filePath("demo.gguf");
    QCOMPARE(ensureDemoModel(path_), QString());
  }

  void turnFiveOfAChatPrefillsOnlyTheNewTokens() {
    auto model = engine::loadModel(path_.toStdString());
    QVERIFY(model.ok());
    const engine::Tokenizer tokenizer(model.value()->vocab);
    std::atomic<bool> stop{false};
    LocalEngineWorker worker(&stop);
    std::vector<ChatMessage> messages;
    const QStringList asks = {"Hello", "Tell me more about TTFT", "And the KV cache?",
                              "How does speculative sampling work", "Thanks, one last thing"};
    StreamEvent previous, first;
    bool some_answer_reencodes_differently = false;
    for (int t = 0; t < asks.size(); ++t) {
      messages.push_back({"user", asks[t].toStdString()});
      GenerationRequest request;
      request.messages = messages;
      request.params.max_tokens = 24;
      request.params.temperature = 1.0;
      request.params.seed = 42 + t;
      const Turn turn = run(worker, request);
      QVERIFY(turn.finished);
      const StreamEvent& usage = turn.usage;
      const QString seen = QString("turn %1: %2 tok, %3 cached (before: %4 prompt + %5 answer)")
                               .arg(t + 1)
                               .arg(usage.prompt_tokens)
                               .arg(usage.cached_tokens)
                               .arg(previous.prompt_tokens)
                               .arg(previous.completion_tokens);
      qInfo("%s", qPrintable(seen));
      if (t > 0) {
        // All of the previous turn (its last answer token may not have been run) ...
        QVERIFY2(usage.cached_tokens >= previous.prompt_tokens + previous.completion_tokens - 1,
                 qPrintable(seen));
        // ... and nothing else but the new message with its role tokens.
        const int fresh = static_cast<int>(usage.prompt_tokens - usage.cached_tokens);
        const int asked = static_cast<int>(tokenizer.encode(asks[t].toStdString(), false).size());
        QVERIFY2(fresh <= asked + 3, qPrintable(seen));
      }
      const std::string text = turn.answer.toStdString();
      if (static_cast<int64_t>(tokenizer.encode(text, false).size()) != usage.completion_tokens)
        some_answer_reencodes_differently = true;
      if (!turn.answer.isEmpty()) messages.push_back({"assistant", text});
      if (t == 0) first = usage;
      previous = usage;
    }
    // The case of the issue: answers whose text does not give back the ids they came from.
    QVERIFY(some_answer_reencodes_differently);

    // An edited earlier message invalidates from there: what precedes it is reused (turn 1's
    // prompt and answer, the user token), it and everything after are prefilled.
    QVERIFY(messages.size() >= 4 && messages[1].role == "assistant");
    messages[2].content = "An edited question";
    messages.resize(3);
    GenerationRequest edited;
    edited.messages = messages;
    edited.params.max_tokens = 4;
    edited.params.temperature = 0;
    const Turn after_edit = run(worker, edited);
    QVERIFY(after_edit.finished);
    const int64_t turn_one = first.prompt_tokens + first.completion_tokens;
    QVERIFY2(after_edit.usage.cached_tokens >= turn_one &&
                 after_edit.usage.cached_tokens <= turn_one + 3,
             qPrintable(QString("cached %1 of %2 after editing the second question (turn 1: %3)")
                            .arg(after_edit.usage.cached_tokens)
                            .arg(after_edit.usage.prompt_tokens)
                            .arg(turn_one)));
  }

  void aSpeculativeChatSaysWhatItPreparesAndReusesItsCache() {
    std::atomic<bool> stop{false};
    LocalEngineWorker worker(&stop);
    QStringList order;  // "prepare WHAT PERCENT" and "token", as they happened
    QList<int> percents;
    // Direct: the conversion reports from its threads, one at a time, while the run waits.
    connect(
        &worker, &LocalEngineWorker::localPreparing, this,
        [&](const QString& what, int percent) {
          order << QString("prepare %1 %2").arg(what).arg(percent);
          if (!what.isEmpty()) percents << percent;
        },
        Qt::DirectConnection);
    connect(
        &worker, &LocalEngineWorker::eventReady, this,
        [&](const StreamEvent& e) {
          if (e.kind == EventKind::TokenChunk) order << "token";
        },
        Qt::DirectConnection);
    const auto request = [](const std::vector<ChatMessage>& messages, const std::string& draft) {
      GenerationRequest r;
      r.messages = messages;
      r.params.max_tokens = 12;
      r.params.temperature = 0;
      r.params.draft = draft;
      return r;
    };
    const Turn first = run(worker, request({{"user", "Hello"}}, "self-int4"));
    QVERIFY(first.finished);
    const QString said = order.join(" | ");
    QVERIFY2(order.size() >= 4 && order.first().startsWith("prepare Converting") &&
                 order.first().contains("self-int4"),
             qPrintable(said));
    const int tokens_from = static_cast<int>(order.indexOf("token"));
    QVERIFY2(tokens_from > 0 && order.at(tokens_from - 1).startsWith("prepare  "),  // "": done
             qPrintable(said));
    QVERIFY2(!order.mid(tokens_from).join(" ").contains("prepare"), qPrintable(said));
    QVERIFY2(std::is_sorted(percents.begin(), percents.end()) && percents.last() == 100 &&
                 QSet<int>(percents.begin(), percents.end()).size() >= 5,
             qPrintable(said));
    QVERIFY(first.usage.drafted_tokens > 0);
    QCOMPARE(first.usage.cached_tokens, 0);

    order.clear();
    const std::vector<ChatMessage> conversation = {
        {"user", "Hello"}, {"assistant", first.answer.toStdString()}, {"user", "Tell me more"}};
    const Turn second = run(worker, request(conversation, "self-int4"));
    QVERIFY(second.finished);
    const QString cached = QString("cached %1 of %2 (turn 1: %3 prompt + %4 answer)")
                               .arg(second.usage.cached_tokens)
                               .arg(second.usage.prompt_tokens)
                               .arg(first.usage.prompt_tokens)
                               .arg(first.usage.completion_tokens);
    qInfo("speculative turn 2: %s", qPrintable(cached));
    QVERIFY2(second.usage.cached_tokens >=
                     first.usage.prompt_tokens + first.usage.completion_tokens - 1 &&
                 second.usage.cached_tokens < second.usage.prompt_tokens,
             qPrintable(cached));
    QVERIFY2(!order.join(" ").contains("prepare"), "the draft is made once");
    // Greedy speculative sampling answers exactly what the target alone answers.
    const Turn plain = run(worker, request(conversation, ""));
    QVERIFY(plain.finished);
    QCOMPARE(plain.usage.prompt_tokens, second.usage.prompt_tokens);
    QCOMPARE(second.answer, plain.answer);
  }

  // Stop while the draft is converted ends the run there, cancelled, with the preparation
  // said to be over; nothing is kept half made.
  void stopWhileTheDraftIsConvertedCancelsTheRun() {
    std::atomic<bool> stop{false};
    LocalEngineWorker worker(&stop);
    QStringList whats;
    bool pressed = false;
    connect(
        &worker, &LocalEngineWorker::localPreparing, this,
        [&](const QString& what, int percent) {
          whats << what;
          if (percent >= 10 && !pressed) stop = pressed = true;  // Stop during the conversion
        },
        Qt::DirectConnection);
    GenerationRequest r;
    r.messages = {{"user", "Hello"}};
    r.params.max_tokens = 4;
    r.params.draft = "self-int4";
    QSignalSpy finished(&worker, &LocalEngineWorker::runFinished);
    worker.start(LocalEngineSpec{path_, {}}, r);
    QCOMPARE(finished.count(), 1);
    const auto result = finished.at(0).at(0).value<RemoteResult>();
    QVERIFY(result.cancelled);
    QCOMPARE(result.run.events.back().text, std::string("cancelled"));
    QVERIFY(!whats.isEmpty() && whats.last().isEmpty());
    stop = false;  // the next run makes the draft again, whole
    whats.clear();
    worker.start(LocalEngineSpec{path_, {}}, r);
    QCOMPARE(finished.count(), 2);
    QVERIFY(!finished.at(1).at(0).value<RemoteResult>().cancelled);
    QVERIFY(whats.size() >= 2);
  }

  // Memory running out for the prompt's KV cache (every block allocation fails, through the
  // pool's test hook) is the engine's error value: the chat shows "The engine failed: ..."
  // with what to do, and the next message, with the memory there again, is answered.
  void memoryOutShowsTheEngineFailedAndTheChatGoesOn() {
    std::atomic<bool> stop{false};
    LocalEngineWorker worker(&stop);
    GenerationRequest r;
    r.messages = {{"user", "Hello"}};
    r.params.max_tokens = 4;
    r.params.temperature = 0;
    QSignalSpy finished(&worker, &LocalEngineWorker::runFinished);
    engine::testing::failKvBlockAllocations(1 << 20);
    worker.start(LocalEngineSpec{path_, {}}, r);
    engine::testing::failKvBlockAllocations(0);
    QCOMPARE(finished.count(), 1);
    const StreamEvent failed = finished.at(0).at(0).value<RemoteResult>().run.events.back();
    QCOMPARE(failed.kind, EventKind::Failed);
    const QString message = QString::fromStdString(failed.text);
    QVERIFY2(message.startsWith("The engine failed: no memory left for the KV cache") &&
                 message.contains("run fewer sequences at once, a smaller context or a smaller "
                                  "KV cache format"),
             qPrintable(message));
    const Turn next = run(worker, r);
    QVERIFY(next.finished);
    QVERIFY(next.usage.prompt_tokens > 0);  // a whole turn: its Usage before Finished
  }

  // A CUDA pass failing mid-answer (the fault-injecting plugin: the first session's second
  // pass faults as an illegal address does): the chat shows the failure with what to do,
  // the scheduler lets the broken session go and opens another, and the next message is
  // answered on it (a kept session would refuse it: "this session failed earlier").
  void aCudaFailureClosesTheSessionAndTheNextMessageOpensANewOne() {
    qputenv("TOKENSCOPE_CUDA_PLUGIN", TOKENSCOPE_FAULT_PLUGIN_FILE);
    qputenv("TOKENSCOPE_FAULT_AT_FORWARD", "2");
    qputenv("TOKENSCOPE_FAULT_SESSIONS", "1");  // the session opened in its place runs
    std::atomic<bool> stop{false};
    LocalEngineWorker worker(&stop);
    LocalEngineSpec spec{path_, {}};
    spec.engine.backend = "cuda";
    GenerationRequest r;
    r.messages = {{"user", "Hello"}};
    r.params.max_tokens = 4;
    r.params.temperature = 0;
    QSignalSpy finished(&worker, &LocalEngineWorker::runFinished);
    worker.start(spec, r);
    QCOMPARE(finished.count(), 1);
    const StreamEvent failed = finished.at(0).at(0).value<RemoteResult>().run.events.back();
    QCOMPARE(failed.kind, EventKind::Failed);
    const QString message = QString::fromStdString(failed.text);
    QVERIFY2(message.startsWith("The engine failed: CUDA: cudaStreamSynchronize(stream_): an "
                                "illegal memory access was encountered") &&
                 message.contains("failing one. The CUDA session was closed: the next message "
                                  "opens a new one. To run on the CPU instead, choose Backend: "
                                  "CPU"),
             qPrintable(message));
    worker.start(spec, r);
    QCOMPARE(finished.count(), 2);
    const RemoteResult next = finished.at(1).at(0).value<RemoteResult>();
    qunsetenv("TOKENSCOPE_CUDA_PLUGIN");
    qunsetenv("TOKENSCOPE_FAULT_AT_FORWARD");
    qunsetenv("TOKENSCOPE_FAULT_SESSIONS");
    QVERIFY2(next.run.events.back().kind == EventKind::Finished,
             next.run.events.back().text.c_str());
  }

 private:
  // One request on the worker (it runs on this thread), as the chat sees it.
  Turn run(LocalEngineWorker& worker, const GenerationRequest& request) {
    Turn turn;
    auto events = connect(
        &worker, &LocalEngineWorker::eventReady, this,
        [&](const StreamEvent& e) {
          if (e.kind == EventKind::Usage) turn.usage = e;
          if (e.kind == EventKind::TokenChunk) turn.answer += QString::fromStdString(e.text);
        },
        Qt::DirectConnection);
    auto done = connect(
        &worker, &LocalEngineWorker::runFinished, this,
        [&](const RemoteResult& r) {
          turn.finished = !r.run.events.empty() && r.run.events.back().kind == EventKind::Finished;
        },
        Qt::DirectConnection);
    worker.start(LocalEngineSpec{path_, {}}, request);
    disconnect(events);
    disconnect(done);
    return turn;
  }

  QTemporaryDir dir_;
  QString path_;
};

QTEST_GUILESS_MAIN(TestLocalChat)
#include "test_local_chat.moc"
