// Issue 42, the main window as a user sizes it: long chats and long metric values never
// widen the window past 1024 × 700, the status bar's message never runs under its marks, a
// remembered size larger than the screen is not restored, Ctrl+O opens a model, the shortcut
// table's rows are even, a long wait before a quick answer does not squeeze the latency
// chart, View → Language "No" keeps the language ticked and "Restart" keeps the
// conversation, and the default run log goes to the app's data folder.
#include <QAction>
#include <QApplication>
#include <QChart>
#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
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
#include "app/store/run_log.h"
#include "tests/support/openai_test_server.h"
#include "ui/chat_panel.h"
#include "ui/elided_label.h"
#include "ui/latency_chart.h"
#include "ui/main_window.h"
#include "ui/metrics_strip.h"
#include "ui/table_dialog.h"

using namespace ts;
using ts::testing::OpenAiTestServer;
using ts::testing::ServerScript;

namespace {

// What a long local speculative run shows: many digits, a cache, a prefill, a histogram.
RunMetrics longMetrics() {
  RunMetrics m;
  m.ttft_ns = 123'456'789'012;
  m.e2e_ns = 987'654'321'098;
  m.output_tokens = 123'456'789;
  m.prompt_tokens = 987'654'321;
  m.cached_tokens = 123'456'789;
  m.prefill_ns = 98'765'432'109;
  m.acceptance_rate = 0.4321;
  m.drafted_tokens = 99'999'999;
  m.accepted_tokens = 43'210'000;
  m.accepted_histogram = std::vector<int32_t>(17, 1'234'567);
  m.tpot_ns = 123'456'789.0;
  m.itl_ns = {123'456'789, 987'654'321};
  m.decode_tok_s = 123456.789;
  m.overall_tok_s = 98765.4321;
  return m;
}

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
  bool chat(const QString& text) {
    QSignalSpy shown(window_.get(), &ui::MainWindow::runDisplayed);
    window_->chatPanel()->setInputText(text);
    window_->send();
    return shown.wait(10000);
  }

 private slots:
  void initTestCase() {
    qputenv("TOKENSCOPE_CONFIG_DIR", dir_.filePath("config").toUtf8());
    qunsetenv("TOKENSCOPE_LANGUAGE");
    QVERIFY(server_.start() > 0);
  }
  void init() { makeWindow(dir_.filePath("logs")); }
  void cleanup() {
    controller_.reset();
    window_.reset();
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

  // View → Language: "No" leaves the language shown ticked and stored; "Yes" saves the
  // conversation, which the next start (a new window and controller) shows again.
  void switchingLanguageKeepsTheTickOrTheConversation() {
    setChosenLanguage("en");
    window_->setChosenLanguage("en");
    ServerScript s;
    s.chunks = 3;
    server_.setScript(s);
    QVERIFY(chat("remember me"));
    const QString answer = window_->chatPanel()->lastAssistantText();
    auto* chinese = window_->findChild<QAction*>("language_zh_CN");
    auto* english = window_->findChild<QAction*>("language_en");
    QSignalSpy restart(&controller_->preferences(), &PreferencesController::restartRequested);
    answerNextQuestion(QMessageBox::No);
    chinese->trigger();
    QVERIFY(english->isChecked());
    QVERIFY(!chinese->isChecked());
    QCOMPARE(chosenLanguage(), QString("en"));
    QCOMPARE(restart.count(), 0);

    answerNextQuestion(QMessageBox::Yes);
    chinese->trigger();
    QCOMPARE(restart.count(), 1);
    QCOMPARE(chosenLanguage(), QString("zh_CN"));
    setChosenLanguage("en");            // the rest of this test reads English
    makeWindow(dir_.filePath("logs"));  // the next start
    const QString transcript = window_->chatPanel()->transcriptText();
    QVERIFY2(transcript.contains("remember me") && transcript.contains(answer),
             qPrintable(transcript));
    QCOMPARE(controller_->conversation().turns().size(), size_t(2));
    QVERIFY(!QFile::exists(PreferencesController::restartChatPath()));  // used once
    // The next message carries the restored turns.
    QVERIFY(chat("and now?"));
    QCOMPARE(controller_->conversation().turns().size(), size_t(4));
    QVERIFY(server_.requests().back().body.find("remember me") != std::string::npos);
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
