// The ready default: a first start opens on a local provider; with no downloaded model it
// is the demo model (random weights, a tokenizer trained by sentencepiece on the README),
// created at its first message, which then streams tokens like any provider.
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <atomic>
#include <memory>
#include <thread>

#include "app/desktop/chat_session.h"
#include "app/local/demo_model.h"
#include "app/local/loaded_models.h"
#include "app/local/local_engine_worker.h"
#include "app/local/local_engines.h"
#include "app/local/local_serving.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/model/model.h"
#include "inference/engine/tokenizer/tokenizer.h"

using namespace ts;

class TestDemoModel : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);  // ~/.qttest: never the user's own data
    QDir(modelsDir()).removeRecursively();
  }
  void cleanupTestCase() { QDir(modelsDir()).removeRecursively(); }

  void firstStartOffersTheDemoModel() {
    const ProviderSettings p = readyDefaultProvider();
    QCOMPARE(p.kind, ProviderKind::LocalEngine);
    QVERIFY2(QString::fromStdString(p.name).contains("random weights"), p.name.c_str());
    QCOMPARE(QString::fromStdString(p.base_url), demoModelPath());
    QVERIFY(p.api_key_env.empty());
  }

  void theDemoModelIsABaichuanWithATrainedTokenizer() {
    QTemporaryDir dir;
    const QString path = dir.filePath("demo.gguf");
    QCOMPARE(ensureDemoModel(path), QString());
    QVERIFY(QFile::exists(path));
    const qint64 size = QFileInfo(path).size();
    QCOMPARE(ensureDemoModel(path), QString());  // made once: a second call keeps the file
    QCOMPARE(QFileInfo(path).size(), size);
    auto model = engine::loadModel(path.toStdString());
    QVERIFY2(model.ok(), model.ok() ? "" : model.error().c_str());
    const engine::ModelConfig& c = model.value()->config;
    QCOMPARE(QString::fromStdString(c.architecture), QString("baichuan"));
    QCOMPARE(c.n_layers, 4);
    QCOMPARE(c.vocab, 1000);
    engine::Tokenizer tokenizer(model.value()->vocab);
    const std::string text = "TokenScope measures the time to first token";
    const auto ids = tokenizer.encode(text, false);
    QVERIFY2(ids.size() < text.size() / 2, "the tokenizer learned the project's words");
    std::string back;
    for (int id : ids) back += tokenizer.piece(id);
    QCOMPARE(QString::fromStdString(back).trimmed(), QString::fromStdString(text));
  }

  void theDemoProviderStreamsTokens() {
    ChatSession session;
    std::vector<StreamEvent> events;
    connect(&session, &ChatSession::eventReady, this,
            [&](const StreamEvent& e) { events.push_back(e); });
    QSignalSpy done(&session, &ChatSession::runFinished);
    GenerationRequest request;
    request.messages = {{"user", "Hello"}};
    request.params.max_tokens = 12;
    request.params.temperature = 0;
    session.startLocal(localSpecFor(readyDefaultProvider()), request);
    QVERIFY(done.wait(60000));
    QVERIFY(QFile::exists(demoModelPath()));
    QVERIFY(!events.empty());
    QCOMPARE(events.back().kind, EventKind::Finished);
    int tokens = 0;
    for (const StreamEvent& e : events) tokens += e.kind == EventKind::TokenChunk ? e.n_tokens : 0;
    QVERIFY2(tokens > 0 && tokens <= 12, qPrintable(QString::number(tokens)));
  }

  // A chat's second turn prefills only what is new: the first turn's KV rows are kept in
  // the engine's prefix cache (usage.cached_tokens, the metrics strip's "N cached"), and the
  // answer at temperature 0 is the one a fresh engine gives after the same turns (the turn
  // goes on from the first answer's exact ids, which its text need not re-encode to).
  void aSecondTurnPrefillsOnlyTheNewTokens() {
    const auto turn = [](ChatSession& session, const std::vector<ChatMessage>& messages,
                         StreamEvent& usage, std::string& text) {
      QSignalSpy done(&session, &ChatSession::runFinished);
      auto connection =
          connect(&session, &ChatSession::eventReady, &session, [&](const StreamEvent& e) {
            if (e.kind == EventKind::Usage) usage = e;
            if (e.kind == EventKind::TokenChunk) text += e.text;
          });
      GenerationRequest request;
      request.messages = messages;
      request.params.max_tokens = 10;
      request.params.temperature = 0;
      session.startLocal(localSpecFor(readyDefaultProvider()), request);
      const bool finished = done.wait(60000);
      disconnect(connection);
      return finished;
    };
    auto session = std::make_unique<ChatSession>();
    StreamEvent first, second, alone;
    std::string answer, next, fresh_next;
    QVERIFY(turn(*session, {{"user", "Hello"}}, first, answer));
    QCOMPARE(first.cached_tokens, 0);
    const std::vector<ChatMessage> conversation = {
        {"user", "Hello"}, {"assistant", answer}, {"user", "Tell me more"}};
    QVERIFY(turn(*session, conversation, second, next));
    QVERIFY2(
        second.cached_tokens >= first.prompt_tokens && second.cached_tokens < second.prompt_tokens,
        qPrintable(QString("cached %1 of %2 (the first prompt: %3)")
                       .arg(second.cached_tokens)
                       .arg(second.prompt_tokens)
                       .arg(first.prompt_tokens)));
    // A fresh engine (and prefix cache; the only holder of the first one goes away) given the
    // same two turns answers the same: the reuse changes what is computed, not the answer.
    session.reset();
    ChatSession fresh;
    StreamEvent fresh_first;
    std::string fresh_answer;
    QVERIFY(turn(fresh, {{"user", "Hello"}}, fresh_first, fresh_answer));
    QCOMPARE(QString::fromStdString(fresh_answer), QString::fromStdString(answer));
    QVERIFY(turn(fresh, conversation, alone, fresh_next));
    QCOMPARE(alone.cached_tokens, second.cached_tokens);
    QCOMPARE(QString::fromStdString(next), QString::fromStdString(fresh_next));
  }

  // The chat says what a long first-use preparation does (the status bar shows it): the
  // speculative draft's conversion, with its percent, then "" when done, before the answer.
  void theChatSaysWhileTheDraftIsConverted() {
    QTemporaryDir dir;
    const QString path = dir.filePath("demo.gguf");
    QCOMPARE(ensureDemoModel(path), QString());
    ChatSession session;
    QSignalSpy preparing(&session, &ChatSession::localPreparing);
    QSignalSpy done(&session, &ChatSession::runFinished);
    GenerationRequest request;
    request.messages = {{"user", "Hello"}};
    request.params.max_tokens = 4;
    request.params.temperature = 0;
    request.params.draft = "self-layers:2";
    session.startLocal(LocalEngineSpec{path, {}}, request);
    QVERIFY(done.wait(60000));
    QVERIFY2(preparing.count() >= 3, qPrintable(QString::number(preparing.count())));
    QCOMPARE(preparing.first().at(0).toString(),
             QString("Converting the speculative draft (self-layers:2)…"));
    QCOMPARE(preparing.first().at(1).toInt(), 0);
    QCOMPARE(preparing.at(preparing.count() - 2).at(1).toInt(), 100);
    QCOMPARE(preparing.last().at(0).toString(), QString());  // done
  }

  // Stop while a local provider's model is still loading cancels the load: the run ends
  // "cancelled" without an error, and nothing is kept loaded. A second provider with the
  // same file and weight format then shares the model the first one loaded.
  void stopWhileLoadingCancelsTheLoadAndLoadedModelsAreShared() {
    QTemporaryDir dir;
    const QString path = dir.filePath("demo.gguf");
    QCOMPARE(ensureDemoModel(path), QString());
    LocalEngineSpec spec{path, {}};
    spec.engine.weights = "q8_0";
    GenerationRequest request;
    request.messages = {{"user", "Hello"}};
    request.params.max_tokens = 4;
    request.params.temperature = 0;
    std::atomic<bool> stop{true};  // Stop already pressed when the load begins
    LocalEngineWorker worker(&stop);
    QSignalSpy progress(&worker, &LocalEngineWorker::loadProgress);
    QSignalSpy finished(&worker, &LocalEngineWorker::runFinished);
    const int loads = LoadedModels::loadsFromFiles();
    worker.start(spec, request);
    QCOMPARE(finished.count(), 1);
    const auto result = finished.at(0).at(0).value<RemoteResult>();
    QVERIFY(result.cancelled);
    QCOMPARE(result.run.events.back().kind, EventKind::Finished);
    QCOMPARE(result.run.events.back().text, std::string("cancelled"));
    QVERIFY(progress.count() >= 1);
    QCOMPARE(LoadedModels::loadsFromFiles(), loads);
    QVERIFY(!LoadedModels::find(path, "q8_0"));

    stop = false;
    worker.start(spec, request);
    QCOMPARE(finished.count(), 2);
    QCOMPARE(finished.at(1).at(0).value<RemoteResult>().run.events.back().text,
             std::string("length"));
    QCOMPARE(LoadedModels::loadsFromFiles(), loads + 1);
    std::atomic<bool> no{false};
    LocalEngineWorker other(&no);  // e.g. serving from the app: the same copy
    QSignalSpy other_done(&other, &LocalEngineWorker::runFinished);
    other.start(spec, request);
    QCOMPARE(other_done.count(), 1);
    QCOMPARE(LoadedModels::loadsFromFiles(), loads + 1);
    QVERIFY(LoadedModels::find(path, "q8_0"));
  }

  // Stop on a chat turn that waits behind others (here: the session held by an exclusive
  // caller, as a speculative run holds it) ends the turn at once, cancelled, while they
  // still run.
  void stopOnAQueuedChatTurnEndsIt() {
    QTemporaryDir dir;
    const QString path = dir.filePath("demo.gguf");
    QCOMPARE(ensureDemoModel(path), QString());
    const LocalEngineSpec spec{path, {}};
    QString error;
    const auto engine = sharedLocalEngine(spec, error);
    QVERIFY2(engine, qPrintable(error));
    std::atomic<bool> held{false}, release{false}, stop{false};
    std::thread holder([&] {
      (void)engine->scheduler->exclusive([&](engine::DecodeSession&) {
        held = true;
        while (!release) std::this_thread::yield();
      });
    });
    QTRY_VERIFY(held.load());
    GenerationRequest request;
    request.messages = {{"user", "Hello"}};
    request.params.max_tokens = 8;
    request.params.temperature = 0;
    LocalEngineWorker worker(&stop);
    std::atomic<bool> done{false};
    RemoteResult result;
    connect(
        &worker, &LocalEngineWorker::runFinished, this,
        [&](const RemoteResult& r) {
          result = r;
          done = true;
        },
        Qt::DirectConnection);
    std::thread turn([&] { worker.start(spec, request); });
    QTRY_COMPARE(engine->scheduler->metrics().waiting, 1);  // the turn waits
    stop = true;
    QTRY_VERIFY(done.load());  // ended while the session is still held
    QVERIFY(!release.load());
    QVERIFY(result.cancelled);
    QCOMPARE(result.run.events.back().text, std::string("cancelled"));
    QCOMPARE(engine->scheduler->metrics().waiting, 0);
    release = true;
    holder.join();
    turn.join();
  }

  void aDownloadedModelIsPreferred() {
    const QString shared = qEnvironmentVariable("TOKENSCOPE_SHARED_DIR", "../shared") + "/models";
    const QString real = shared + "/aidreams260K/aidreams260K.gguf";
    if (!QFile::exists(real)) QSKIP("the shared fixtures are absent");
    QDir(modelsDir()).removeRecursively();  // this function's own start: an empty folder
    QVERIFY(QDir().mkpath(modelsDir()));
    QVERIFY(QFile::copy(real, modelsDir() + "/aidreams260K.gguf"));
    const ProviderSettings p = readyDefaultProvider();
    QCOMPARE(QString::fromStdString(p.base_url), modelsDir() + "/aidreams260K.gguf");
    QCOMPARE(p.default_model, std::string("aidreams260K"));
    QVERIFY(!QString::fromStdString(p.name).contains("random"));
  }

  // Provider -> Serve the local model switched off while the model loads, and right after
  // the server started, many times: the calling (GUI) thread never hangs on the server's
  // thread, and nothing keeps serving after off.
  void servingSwitchedOnAndAtOnceOffNeverHangs() {
    QTemporaryDir dir;
    const QString path = dir.filePath("demo.gguf");
    QCOMPARE(ensureDemoModel(path), QString());
    const LocalEngineSpec spec{path, {}};
    LocalServing serving;
    QSignalSpy started(&serving, &LocalServing::started);
    QSignalSpy stopped(&serving, &LocalServing::stopped);
    QSignalSpy failed(&serving, &LocalServing::failed);
    for (int i = 1; i <= 10; ++i) {  // off while the model is still loading: never serves
      serving.start(spec, "demo");
      serving.stop();
      QTRY_COMPARE_WITH_TIMEOUT(stopped.count(), i, 60000);
      QVERIFY(!serving.isServing());
    }
    QCOMPARE(started.count(), 0);
    for (int i = 1; i <= 30; ++i) {  // off the moment it serves
      serving.start(spec, "demo");
      QTRY_COMPARE_WITH_TIMEOUT(started.count(), i, 60000);
      QVERIFY(serving.isServing());
      serving.stop();  // returns at once; the server stops on a thread of its own
      QVERIFY(!serving.isServing());
      QTRY_COMPARE_WITH_TIMEOUT(stopped.count(), 10 + i, 30000);
    }
    QCOMPARE(failed.count(), 0);
  }
};

QTEST_GUILESS_MAIN(TestDemoModel)
#include "test_demo_model.moc"
