// Issue 42, the main window as a user sizes it: long chats and long metric values never
// widen the window past 1024 × 700, the status bar's message never runs under its marks, a
// remembered size larger than the screen is not restored, Ctrl+O opens a model, the shortcut
// table's rows are even, a long wait before a quick answer does not squeeze the latency
// chart, View → Language switches at once in a rebuilt window keeping the conversation, a
// running server and the loaded model (and "No" keeps the language when a download would
// stop), and the default run log goes to the app's data folder.
#include <QAction>
#include <QApplication>
#include <QChart>
#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPointer>
#include <QPushButton>
#include <QScreen>
#include <QSignalSpy>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QValueAxis>

#include "app/desktop/app_controller.h"
#include "app/desktop/language.h"
#include "app/desktop/serve_settings.h"
#include "app/desktop/window_session.h"
#include "app/local/loaded_models.h"
#include "app/local/local_engine_loader.h"
#include "app/local/model_paths.h"
#include "app/store/run_log.h"
#include "tests/support/hub_mirror.h"
#include "tests/support/long_metrics.h"
#include "tests/support/openai_test_server.h"
#include "ui/chat_panel.h"
#include "ui/download_dialog.h"
#include "ui/elided_label.h"
#include "ui/latency_chart.h"
#include "ui/main_window.h"
#include "ui/metrics_strip.h"
#include "ui/parameter_panel.h"
#include "ui/provider_bar.h"
#include "ui/server_panel.h"
#include "ui/table_dialog.h"

using namespace ts;
using ts::testing::longMetrics;
using ts::testing::OpenAiTestServer;
using ts::testing::ServerScript;

namespace {

// Answers the next modal question box with `button` once it shows (looking for it every
// 10 ms, for at most 5 s).
void answerNextQuestion(QMessageBox::StandardButton button, int tries = 500) {
  QTimer::singleShot(10, [button, tries] {
    if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget()))
      return box->button(button)->click();
    if (tries > 0) answerNextQuestion(button, tries - 1);
  });
}

}  // namespace

class TestWindowFit : public QObject {
  Q_OBJECT
  OpenAiTestServer server_;
  QTemporaryDir dir_;
  std::unique_ptr<ui::MainWindow> window_;
  std::unique_ptr<AppController> controller_;

  void makeWindow(const QString& log_dir) {
    controller_.reset();
    window_ = std::make_unique<ui::MainWindow>();
    controller_ = std::make_unique<AppController>(
        window_.get(), ProviderStore(dir_.filePath("providers.json")), log_dir, true);
    window_->setProviders({{"Test server", server_.baseUrl(), "test-model", "", 5, 0}}, 0);
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
  }
  bool chat(const QString& text) { return chatIn(window_.get(), text); }
  static bool chatIn(ui::MainWindow* window, const QString& text) {
    QSignalSpy shown(window, &ui::MainWindow::runDisplayed);
    window->chatPanel()->setInputText(text);
    window->send();
    return shown.wait(20000);
  }

  QString localModel() const {
    return qEnvironmentVariable("TOKENSCOPE_SHARED_DIR", "../shared") +
           "/models/aidreams260K/aidreams260K.gguf";
  }
  // The app's window over its lasting state (as main builds it), with the test server and
  // the local model as providers and a run store; shown.
  std::unique_ptr<WindowSession> makeSession() {
    auto state = std::make_unique<AppState>(ProviderStore(dir_.filePath("providers.json")),
                                            dir_.filePath("logs"), true);
    const ProviderSettings local{
        "Local", localModel().toStdString(), "aidreams260K",           "", 60,
        0,       KeySource::Environment,     ProviderKind::LocalEngine};
    const std::vector<ProviderSettings> providers{
        {"Test server", server_.baseUrl(), "test-model", "", 5, 0}, local};
    auto session = std::make_unique<WindowSession>(std::move(state), nullptr, providers, 0);
    session->controller()->setRunStore(std::make_unique<RunStore>(dir_.filePath("session.sqlite")));
    session->window()->show();
    if (!QTest::qWaitForWindowExposed(session->window())) return nullptr;
    return session;
  }
  // View → Language → `code`, until the window built in it has replaced the old one.
  static bool switchTo(WindowSession& session, const QString& code) {
    QSignalSpy rebuilt(&session, &WindowSession::rebuilt);
    session.window()->findChild<QAction*>("language_" + code)->trigger();
    return rebuilt.count() > 0 || rebuilt.wait(20000);
  }
  static QString menuTitle(ui::MainWindow* window) {
    return window->menuBar()->actions().first()->text();
  }
  static QSplitter* verticalSplit(ui::MainWindow* window) {  // parameters / charts
    for (QSplitter* sp : window->findChildren<QSplitter*>())
      if (sp->orientation() == Qt::Vertical) return sp;
    return nullptr;
  }
  // A chat completion from 127.0.0.1:`port` over real HTTP: its status.
  static int askServer(int port) {
    QNetworkAccessManager net;
    QNetworkRequest request(QUrl(QString("http://127.0.0.1:%1/v1/chat/completions").arg(port)));
    request.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
    std::unique_ptr<QNetworkReply> reply(net.post(
        request,
        R"({"model":"local","max_tokens":4,"messages":[{"role":"user","content":"Once"}]})"));
    QSignalSpy done(reply.get(), &QNetworkReply::finished);
    if (!reply->isFinished() && !done.wait(30000)) return -1;
    return reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
  }
  static void useEnglish() {
    setChosenLanguage("en");
    installTranslations(*qApp);
  }

 private slots:
  void initTestCase() {
    qputenv("TOKENSCOPE_CONFIG_DIR", dir_.filePath("config").toUtf8());
    qunsetenv("TOKENSCOPE_LANGUAGE");
    QVERIFY(server_.start() > 0);
  }
  void init() {
    useEnglish();
    makeWindow(dir_.filePath("logs"));
  }
  void cleanup() {
    controller_.reset();
    window_.reset();
    useEnglish();  // the next test reads English
  }
  void cleanupTestCase() { server_.stop(); }

  // 20 long answers, each followed by long metric values: the window still fits 1024 × 700
  // and can be made that size; a cut value shows in full on hover.
  void longChatsDoNotWidenTheWindow() {
    ServerScript s;
    s.chunks = 40;
    s.gap_ms = 0;
    s.pieces = {"a-very-long-unbroken-token-" + std::string(80, 'x') + " ", "and words "};
    server_.setScript(s);
    QSplitter* split = nullptr;
    for (QSplitter* sp : window_->findChildren<QSplitter*>())
      if (sp->orientation() == Qt::Horizontal) split = sp;
    QList<int> sizes;
    for (int i = 0; i < 20; ++i) {
      QVERIFY(chat(QString("turn %1 ").arg(i) + QString(300, 'y')));
      window_->metricsStrip()->showMetrics(longMetrics());
      QApplication::processEvents();
      if (i == 0) sizes = split->sizes();
      QCOMPARE(split->sizes(), sizes);  // the chat | parameters split stays where it was
    }
    const QSize least = window_->minimumSizeHint().expandedTo(window_->minimumSize());
    QVERIFY2(least.width() <= 1024 && least.height() <= 700,
             qPrintable(QString("minimum %1 × %2").arg(least.width()).arg(least.height())));
    window_->resize(1024, 700);
    QTRY_COMPARE(window_->size(), QSize(1024, 700));
    auto* acceptance = window_->findChild<ui::ElidedLabel*>("acceptanceValue");
    QVERIFY(acceptance->isElided());  // drawn cut, its text whole
    QVERIFY(acceptance->text().contains("16:1234567"));
    QVERIFY2(acceptance->toolTip().contains("16:1234567"), qPrintable(acceptance->toolTip()));
    QVERIFY(acceptance->geometry().right() <= acceptance->parentWidget()->width());
    // Shown whole again when there is room.
    window_->metricsStrip()->clear();
    QCOMPARE(acceptance->text(), QString("—"));
    QTRY_VERIFY(!acceptance->isElided());
  }

  // At 1024 px a long error stops (cut with "…") before the CPU and Serve marks.
  void theStatusMessageNeverRunsUnderTheMarks() {
    window_->resize(1024, 700);
    QTRY_COMPARE(window_->width(), 1024);
    window_->setCpuFallback("no CUDA driver");
    window_->setServeWarning("0.0.0.0:8080 without a key");
    const QString error = "Failed: " + QString("the server said something long ").repeated(12);
    window_->showStatus(error);
    QCOMPARE(window_->statusBar()->currentMessage(), error);
    auto* message = window_->statusBar()->findChild<ui::ElidedLabel*>("statusMessage");
    auto* cpu = window_->statusBar()->findChild<QLabel*>("cpuFallbackLabel");
    auto* serve = window_->statusBar()->findChild<QLabel*>("serveWarningLabel");
    QTRY_VERIFY(message->isElided());
    QVERIFY2(message->geometry().right() < std::min(cpu->x(), serve->x()),
             qPrintable(QString("message ends at %1, marks start at %2 and %3")
                            .arg(message->geometry().right())
                            .arg(cpu->x())
                            .arg(serve->x())));
    QVERIFY(cpu->isVisible() && serve->isVisible());
    QCOMPARE(message->toolTip(), error);
    QVERIFY(window_->width() <= 1024);
  }

  // A size remembered from a bigger screen opens within this one.
  void aRememberedSizeLargerThanTheScreenIsNotRestored() {
    const QRect room = window_->screen()->availableGeometry();
    window_->resize(room.width() + 700, room.height() + 500);
    const QByteArray layout = window_->saveLayout();
    ui::MainWindow again;
    again.restoreLayout(layout);
    again.show();
    QVERIFY(QTest::qWaitForWindowExposed(&again));
    QVERIFY2(again.width() <= room.width() && again.height() <= room.height(),
             qPrintable(QString("%1 × %2 on a %3 × %4 screen")
                            .arg(again.width())
                            .arg(again.height())
                            .arg(room.width())
                            .arg(room.height())));
  }

  // Ctrl+O opens a local model (as in LM Studio and Jan); import has its own keys.
  void ctrlOOpensAModel() {
    ui::MainWindow window;  // no controller: the intent alone
    window.show();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QSignalSpy open(&window, &ui::MainWindow::modelManagerRequested);
    QSignalSpy import(&window, &ui::MainWindow::importConfigRequested);
    QTest::keyClick(&window, Qt::Key_O, Qt::ControlModifier);
    QTRY_COMPARE(open.count(), 1);
    QCOMPARE(import.count(), 0);
    auto* import_action = window.findChild<QAction*>("importConfigAction");
    QVERIFY(!import_action->shortcut().isEmpty());
    QVERIFY(import_action->shortcut() != QKeySequence(QKeySequence::Open));
    for (QAction* a : window.findChildren<QAction*>())
      if (a->objectName() != "openLocalModelAction")
        QVERIFY2(!a->shortcuts().contains(QKeySequence(QKeySequence::Open)), qPrintable(a->text()));
  }

  // Help → Keyboard shortcuts: every row the same height (none wraps at the dialog's size).
  void theShortcutRowsAreEven() {
    window_->showShortcuts();
    ui::TableDialog* dialog = nullptr;
    QTRY_VERIFY((dialog = window_->findChild<ui::TableDialog*>("shortcutsDialog")));
    QVERIFY(QTest::qWaitForWindowExposed(dialog));
    auto* table = dialog->findChild<QTableWidget*>();
    QVERIFY2(table->rowCount() > 15, qPrintable(QString::number(table->rowCount())));
    QSet<int> heights;
    for (int r = 0; r < table->rowCount(); ++r) heights.insert(table->rowHeight(r));
    QVERIFY2(heights.size() == 1,
             qPrintable(QString("%1 different row heights").arg(heights.size())));
    dialog->close();
  }

  // A 600 ms wait and then 30 quick chunks: the gaps fill most of the chart's width.
  void aLongWaitBeforeAQuickAnswerDoesNotSqueezeTheChart() {
    ServerScript s;
    s.ttft_ms = 600;
    s.gap_ms = 2;
    s.chunks = 30;
    server_.setScript(s);
    QVERIFY(chat("wait, then hurry"));
    const auto axes = window_->latencyChart()->chart()->axes(Qt::Horizontal);
    auto* x = qobject_cast<QValueAxis*>(axes.first());
    const RecordedRun& run = window_->currentRun();
    double first = -1, last = 0;
    for (const StreamEvent& e : run.events)
      if (e.kind == EventKind::TokenChunk && !e.text.empty()) {
        const double t = (e.t_ns - run.start_ns) / 1e9;
        if (first < 0) first = t;
        last = t;
      }
    const double share = (last - first) / (x->max() - x->min());
    QVERIFY2(share > 0.5, qPrintable(QString("the chunks span %1 of the axis %2..%3 s")
                                         .arg(share)
                                         .arg(x->min())
                                         .arg(x->max())));
    QVERIFY(x->min() <= first);  // the first token (the TTFT line) is on the chart
  }

  // View → Language → 简体中文 switches at once, without a restart: the window is rebuilt in
  // Chinese (the old one destroyed) with its size, split, provider, parameters and typed
  // input; the conversation is there and goes on; a local server started before still
  // answers over HTTP on the same port with its count; the model is not read again and its
  // cache still serves the chat. Back to English works the same way.
  void switchingLanguageKeepsTheConversationServerAndModel() {
    if (!QFile::exists(localModel())) QSKIP("the shared fixtures are absent");
    ServerScript s;
    s.chunks = 3;
    server_.setScript(s);
    saveServeChoice({false, false});  // 127.0.0.1, no key
    auto session = makeSession();
    QVERIFY(session);
    ui::MainWindow* before = session->window();
    QVERIFY(chatIn(before, "remember me"));
    const QString answer = before->chatPanel()->lastAssistantText();
    QVERIFY(before->providerBar()->selectProvider("Local"));
    SamplingParams params = before->parameterPanel()->params();
    params.temperature = 0.25;
    params.max_tokens = 6;
    before->parameterPanel()->setParams(params);
    before->parameterPanel()->setSystemPrompt("Be brief.");
    QVERIFY(chatIn(before, "Once upon a time"));
    const int loads = LoadedModels::loadsFromFiles();
    const LocalEngineSpec spec = localSpecFor(*before->currentProviderSettings());
    const QString weights = QString::fromStdString(spec.engine.weights);
    const std::shared_ptr<engine::Model> model = LoadedModels::find(spec.model_path, weights);
    QVERIFY(model);
    before->findChild<QAction*>("serveAction")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(session->controller()->serving().isServing(), 30000);
    const int port = session->controller()->serving().port();
    QCOMPARE(askServer(port), 200);
    QTRY_COMPARE(before->findChild<ui::ServerPanel*>()->servedCount(), 1);
    // A size of the user's own, within the screen (a larger one is fitted to it).
    const QRect room = before->screen()->availableGeometry();
    const QSize size = QSize(1100, 720)
                           .boundedTo(room.size() - QSize(10, 60))
                           .expandedTo(before->minimumSizeHint());
    before->resize(size);
    QTRY_COMPARE(before->size(), size);
    // The latency chart made shorter than it starts, as a user drags it.
    QSplitter* right = verticalSplit(before);
    QList<int> heights = right->sizes();
    const int chart_before = heights[1];
    heights[0] += heights[1] / 3;
    heights[1] -= heights[1] / 3;
    right->setSizes(heights);
    const QList<int> split = right->sizes();
    QVERIFY2(
        split[1] <= chart_before - 10,
        qPrintable(QString("the chart is %1 px high, was %2").arg(split[1]).arg(chart_before)));
    before->chatPanel()->setInputText("half-typed");
    QPointer<ui::MainWindow> old = before;

    QVERIFY(switchTo(*session, "zh_CN"));
    ui::MainWindow* after = session->window();
    QTRY_VERIFY(old.isNull());
    QVERIFY(after->isVisible());
    QCOMPARE(menuTitle(after), QString("文件(&F)"));
    QVERIFY(after->findChild<QAction*>("language_zh_CN")->isChecked());
    QCOMPARE(chosenLanguage(), QString("zh_CN"));
    const QString transcript = after->chatPanel()->transcriptText();
    QVERIFY2(transcript.contains("remember me") && transcript.contains(answer) &&
                 transcript.contains("Once upon a time"),
             qPrintable(transcript));
    QCOMPARE(session->controller()->conversation().turns().size(), size_t(4));
    QCOMPARE(after->chatPanel()->inputText(), QString("half-typed"));
    QCOMPARE(after->currentProviderSettings()->name, std::string("Local"));
    QCOMPARE(after->parameterPanel()->params().temperature, 0.25);
    QCOMPARE(after->parameterPanel()->params().max_tokens, 6);
    QCOMPARE(after->parameterPanel()->systemPrompt(), QString("Be brief."));
    QCOMPARE(after->size(), size);
    // Within a few pixels: the panels' least sizes differ a little between languages.
    const int moved = verticalSplit(after)->sizes().value(1);
    QVERIFY2(std::abs(moved - split[1]) <= 8,
             qPrintable(QString("chart %1 px high, was %2").arg(moved).arg(split[1])));
    // The server: the same port, answering, its requests counted on; Serve still ticked.
    QVERIFY(session->controller()->serving().isServing());
    QCOMPARE(session->controller()->serving().port(), port);
    QVERIFY(after->findChild<QAction*>("serveAction")->isChecked());
    QCOMPARE(askServer(port), 200);
    QTRY_COMPARE(after->findChild<ui::ServerPanel*>()->servedCount(), 2);
    // The model was not read again, and the chat's next turn reuses the cached prompt.
    QVERIFY(chatIn(after, "and then"));
    QCOMPARE(LoadedModels::find(spec.model_path, weights), model);
    QCOMPARE(LoadedModels::loadsFromFiles(), loads);
    const RunMetrics m = computeMetrics(after->currentRun());
    QVERIFY2(m.cached_tokens.value_or(0) > 0,
             qPrintable(QString::number(m.cached_tokens.value_or(-1))));
    QCOMPARE(session->controller()->conversation().turns().size(), size_t(6));

    QPointer<ui::MainWindow> chinese = after;
    QVERIFY(switchTo(*session, "en"));
    QTRY_VERIFY(chinese.isNull());
    QCOMPARE(menuTitle(session->window()), QString("&File"));
    QVERIFY(session->window()->chatPanel()->transcriptText().contains("and then"));
    QCOMPARE(session->controller()->serving().port(), port);
    QCOMPARE(askServer(port), 200);
    session->window()->findChild<QAction*>("serveAction")->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(session->controller()->serving().state(), LocalServing::State::Off,
                              15000);
  }

  // Switching while an answer streams stops it first (as Stop does): the new window shows
  // the partial answer with its note in the new language, and the next message carries it.
  void aStreamingAnswerStopsBeforeTheSwitch() {
    ServerScript s;
    s.chunks = 400;
    s.gap_ms = 20;
    server_.setScript(s);
    auto session = makeSession();
    QVERIFY(session);
    ui::MainWindow* before = session->window();
    before->chatPanel()->setInputText("talk slowly");
    before->send();
    QTRY_VERIFY(before->currentRun().events.size() > 3);  // streaming
    QVERIFY(switchTo(*session, "zh_CN"));
    ui::MainWindow* after = session->window();
    QCOMPARE(menuTitle(after), QString("文件(&F)"));
    QVERIFY(!after->isRunning());
    const auto& turns = session->controller()->conversation().turns();
    QCOMPARE(turns.size(), size_t(2));  // the question and the partial answer
    QVERIFY(!turns[1].content.empty());
    const QString stopped =
        QCoreApplication::translate("ts::ui::RunDisplay", "Stopped — the partial answer is kept.");
    QVERIFY(stopped != "Stopped — the partial answer is kept.");  // translated
    const QString transcript = after->chatPanel()->transcriptText();
    QVERIFY2(transcript.contains("talk slowly") && transcript.contains(stopped),
             qPrintable(transcript));
    s.chunks = 3;
    s.gap_ms = 0;
    server_.setScript(s);
    QVERIFY(chatIn(after, "and now?"));
    QVERIFY(server_.requests().back().body.find("talk slowly") != std::string::npos);
  }

  // When the switch would stop something (here a download), the user is asked: "No" keeps
  // the language shown, ticked and stored, and the window; "Yes" switches.
  void noKeepsTheLanguageWhenSwitchingWouldStopADownload() {
    if (!QFile::exists(localModel())) QSKIP("the shared fixtures are absent");
    QStandardPaths::setTestModeEnabled(true);
    QDir(modelsDir()).removeRecursively();
    ts::testing::HubMirror mirror;
    QVERIFY(mirror.start() > 0);
    mirror.serve("karpathy/aidreams", "aidreams260K.gguf", localModel().toStdString());
    ts::testing::HubMirrorScript slow;
    slow.delay_per_chunk_ms = 1000;
    mirror.setScript(slow);
    auto session = makeSession();
    QVERIFY(session);
    session->controller()->setDownloadHub(QString::fromStdString(mirror.baseUrl()));
    emit session->window()->downloadRequested();
    auto* dialog = session->window()->findChild<ui::DownloadDialog*>("downloadDialog");
    QVERIFY(dialog);
    dialog->findChild<QLineEdit*>("downloadRepo")->setText("karpathy/aidreams");
    dialog->findChild<QLineEdit*>("downloadFile")->setText("aidreams260K.gguf");
    QTest::mouseClick(dialog->findChild<QPushButton*>("downloadStart"), Qt::LeftButton);
    QTRY_VERIFY(!session->controller()->unfinishedWork().isEmpty());

    ui::MainWindow* before = session->window();
    auto* chinese = before->findChild<QAction*>("language_zh_CN");
    auto* english = before->findChild<QAction*>("language_en");
    QSignalSpy rebuilt(session.get(), &WindowSession::rebuilt);
    answerNextQuestion(QMessageBox::No);
    chinese->trigger();
    QVERIFY(english->isChecked());
    QVERIFY(!chinese->isChecked());
    QCOMPARE(chosenLanguage(), QString("en"));
    QCoreApplication::processEvents();
    QCOMPARE(rebuilt.count(), 0);
    QCOMPARE(session->window(), before);
    QVERIFY(!session->controller()->unfinishedWork().isEmpty());  // still downloading

    answerNextQuestion(QMessageBox::Yes);
    chinese->trigger();
    QVERIFY(rebuilt.count() > 0 || rebuilt.wait(10000));
    QCOMPARE(menuTitle(session->window()), QString("文件(&F)"));
    QVERIFY(session->controller()->unfinishedWork().isEmpty());
    session.reset();
    QDir(modelsDir()).removeRecursively();
    QStandardPaths::setTestModeEnabled(false);
  }

  // The default run log is not ./logs/infer of whatever folder the app started in.
  void theDefaultRunLogGoesToTheAppsDataFolder() {
    QStandardPaths::setTestModeEnabled(true);
    const QString data = QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation);
    QDir(data + "/logs/infer").removeRecursively();
    QTemporaryDir start;
    const QString before = QDir::currentPath();
    QDir::setCurrent(start.path());
    makeWindow(defaultLogDir());
    QVERIFY(QDir(start.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries).isEmpty());
    QSignalSpy logged(controller_.get(), &AppController::runLogged);
    const bool done = chat("where do logs go?");
    QVERIFY(logged.count() > 0 || logged.wait(5000));
    QDir::setCurrent(before);
    QStandardPaths::setTestModeEnabled(false);
    QVERIFY(done);
    QCOMPARE(logged.first().first().toString(), QString());
    QVERIFY(!QDir(start.filePath("logs")).exists());
    QVERIFY2(!QDir(data + "/logs/infer").entryList({"runs-*.jsonl"}).isEmpty(), qPrintable(data));
    QDir(data + "/logs/infer").removeRecursively();
  }
};

QTEST_MAIN(TestWindowFit)
#include "test_window_fit.moc"
