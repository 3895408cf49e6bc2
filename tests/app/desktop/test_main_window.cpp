// The window as a user drives it (offscreen): type, send, watch the answer and the
// metric labels fill, stop mid-stream, read an error. A real server on 127.0.0.1.
#include <httplib.h>

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QFontInfo>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTimer>

#include <QAction>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QFontMetricsF>
#include <QLineSeries>
#include <QStandardItemModel>
#include <QTableWidget>
#include <QValueAxis>
#include <cmath>
#include "app/config/config_files.h"
#include "app/desktop/app_controller.h"
#include "app/local/loaded_models.h"
#include "app/local/model_paths.h"
#include "inference/engine/backend/backend_loader.h"
#include "tests/support/hub_mirror.h"
#include "tests/support/openai_test_server.h"
#include "ui/acceptance_chart.h"
#include "ui/benchmark_dialog.h"
#include "ui/chat_panel.h"
#include "ui/comparison_view.h"
#include "ui/download_dialog.h"
#include "ui/history_dialog.h"
#include "ui/latency_chart.h"
#include "ui/main_window.h"
#include "ui/model_manager_dialog.h"
#include "ui/parameter_panel.h"
#include "ui/providers_dialog.h"
#include "ui/sweep_chart.h"
#include "ui/table_dialog.h"
#include "ui/tradeoff_chart.h"

using namespace ts;
using ts::testing::OpenAiTestServer;
using ts::testing::ServerScript;

namespace {

// Every chart shown under `root`, as laid out now: its value axes tick on round numbers (a step of
// 1, 2, 2.5 or 5 x 10^k, both ends on ticks) and each axis title fits the side it is written
// along (Qt Charts cuts a longer one to "inter-token latency …"). "" or what is wrong.
QString chartAxesProblem(QWidget* root) {
  for (QChartView* view : root->findChildren<QChartView*>()) {
    if (!view->isVisible()) continue;
    QChart* chart = view->chart();
    for (QAbstractAxis* axis : chart->axes()) {
      const QString where = chart->title() + " / " + axis->titleText() + ": ";
      if (auto* values = qobject_cast<QValueAxis*>(axis)) {
        const double step = (values->max() - values->min()) / (values->tickCount() - 1);
        const double magnitude = std::pow(10.0, std::floor(std::log10(step) + 1e-12)),
                     mantissa = step / magnitude;
        bool round = false;
        for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) round = round || std::abs(mantissa - m) < 1e-9;
        const double ticks_to_min = values->min() / step;
        if (!round || std::abs(ticks_to_min - std::round(ticks_to_min)) > 1e-6)
          return where + QString("ticks from %1 every %2").arg(values->min()).arg(step);
      }
      if (axis->titleText().isEmpty() || !axis->isVisible()) continue;
      const double room = axis->orientation() == Qt::Vertical ? chart->plotArea().height()
                                                              : chart->plotArea().width();
      const double needs = QFontMetricsF(axis->titleFont()).horizontalAdvance(axis->titleText());
      if (needs > room)
        return where + QString("title needs %1 px along an axis of %2").arg(needs).arg(room);
    }
  }
  return {};
}

}  // namespace

class TestMainWindow : public QObject {
  Q_OBJECT
  OpenAiTestServer server_;
  QTemporaryDir dir_;
  std::unique_ptr<ui::MainWindow> window_;
  std::unique_ptr<AppController> controller_;

  QString label(const char* name) const { return window_->findChild<QLabel*>(name)->text(); }
  void typeAndSend(const QString& text) {
    auto* input = window_->findChild<QPlainTextEdit*>("input");
    input->setFocus();
    QTest::keyClicks(input, text);
    QTest::mouseClick(window_->findChild<QPushButton*>("sendButton"), Qt::LeftButton);
  }
  QString shared_ = qEnvironmentVariable("TOKENSCOPE_SHARED_DIR", "../shared") + "/models";
  QString localModel() const { return shared_ + "/aidreams260K/aidreams260K.gguf"; }
  void setLocalProvider(const QString& path) {
    window_->setProviders({{"Local", path.toStdString(), "aidreams260K", "", 60, 0,
                            KeySource::Environment, ProviderKind::LocalEngine}},
                          0);
  }
  void setProvider(const std::string& key_env = "") {
    window_->setProviders({{"Test server", server_.baseUrl(), "test-model", key_env, 5, 0}}, 0);
  }
  // Provider → Benchmark on the local provider, its sweep axis set to `kind` (a scheduler
  // sweep: the concurrency field enabled); null when something is missing.
  ui::BenchmarkDialog* openLocalBenchmark(ui::SweepKind kind) {
    setLocalProvider(localModel());
    window_->findChild<QAction*>("benchmarkAction")->trigger();
    ui::BenchmarkDialog* dialog = controller_->benchmark();
    if (!dialog || !dialog->isVisible()) return nullptr;
    auto* axis = dialog->findChild<QComboBox*>("benchAxis");
    const int at = axis->findData(static_cast<int>(kind));
    if (at < 0) return nullptr;
    axis->setCurrentIndex(at);
    return dialog->findChild<QSpinBox*>("benchConcurrency")->isEnabled() ? dialog : nullptr;
  }

  // Two requests per step at concurrency 2, no warm-up, 4 tokens each: true once the sweep
  // over `values` has ended uncancelled.
  bool runSmallSweep(ui::BenchmarkDialog* dialog, const QString& values) {
    dialog->findChild<QLineEdit*>("benchValues")->setText(values);
    dialog->findChild<QSpinBox*>("benchConcurrency")->setValue(2);
    dialog->findChild<QSpinBox*>("benchRequests")->setValue(2);
    dialog->findChild<QSpinBox*>("benchWarmup")->setValue(0);
    dialog->findChild<QSpinBox*>("benchMaxTokens")->setValue(4);
    QSignalSpy done(dialog, &ui::BenchmarkDialog::sweepFinished);
    QTest::mouseClick(dialog->findChild<QPushButton*>("benchStart"), Qt::LeftButton);
    return done.wait(60000) && !done.at(0).at(0).toBool();
  }

 private slots:
  void initTestCase() {
    qputenv("TOKENSCOPE_CONFIG_DIR", dir_.filePath("config").toUtf8());  // ui.ini: recent models
    QVERIFY(server_.start() > 0);
  }
  void cleanupTestCase() { server_.stop(); }
  void init() {
    window_ = std::make_unique<ui::MainWindow>();
    controller_ = std::make_unique<AppController>(
        window_.get(), ProviderStore(dir_.filePath("providers.json")), dir_.filePath("logs"), true);
    controller_->setRunStore(std::make_unique<RunStore>(dir_.filePath("runs.sqlite")));
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
  }
  void cleanup() {
    controller_.reset();
    window_.reset();
  }

  void sendStreamsTextAndFillsMetrics() {
    ServerScript s;
    s.ttft_ms = 50;
    s.gap_ms = 4;
    s.chunks = 30;
    server_.setScript(s);
    setProvider();
    QSignalSpy shown(window_.get(), &ui::MainWindow::runDisplayed);
    typeAndSend("Hello there");
    QVERIFY(window_->isRunning());
    QVERIFY(!window_->findChild<QPushButton*>("sendButton")->isEnabled());
    QVERIFY(shown.wait(10000));
    const QString expected = QString::fromStdString(OpenAiTestServer::expectedText(s));
    QCOMPARE(window_->chatPanel()->lastAssistantText(), expected);
    QVERIFY(window_->chatPanel()->transcriptText().contains("Hello there"));
    QVERIFY(window_->chatPanel()->transcriptText().contains(expected));
    QVERIFY2(label("ttftValue").endsWith(" ms"), qPrintable(label("ttftValue")));
    QVERIFY(label("ttftValue").split(' ').first().toDouble() >= 50);
    QVERIFY(label("tpotValue").endsWith(" ms"));
    QVERIFY(label("decodeRateValue").endsWith("tok/s"));
    QCOMPARE(label("outputTokensValue"), QString("30 (usage)"));
    QVERIFY(label("itlValue").contains(" / "));
    QVERIFY(!window_->acceptanceChart()->isVisible());  // no speculative sampling here
    QCOMPARE(window_->latencyChart()->pointCount(), 29);
    QTRY_COMPARE(chartAxesProblem(window_.get()), QString());  // round ticks, whole titles
    QVERIFY(window_->findChild<QPushButton*>("sendButton")->isEnabled());
    // The request carried the panel's parameters, and the run was logged.
    const auto body =
        QJsonDocument::fromJson(QByteArray::fromStdString(server_.requests().back().body)).object();
    QCOMPARE(body.value("temperature").toDouble(), 0.7);
    QCOMPARE(body.value("messages").toArray().last().toObject().value("content").toString(),
             QString("Hello there"));
    QTRY_VERIFY(!QDir(dir_.filePath("logs")).entryList({"*.jsonl"}).isEmpty());
  }

  void secondTurnSendsTheConversation() {
    server_.setScript(ServerScript{});
    setProvider();
    QSignalSpy shown(window_.get(), &ui::MainWindow::runDisplayed);
    typeAndSend("first");
    QVERIFY(shown.wait(10000));
    typeAndSend("second");
    QVERIFY(shown.wait(10000));
    const auto messages =
        QJsonDocument::fromJson(QByteArray::fromStdString(server_.requests().back().body))
            .object()
            .value("messages")
            .toArray();
    QCOMPARE(messages.size(), 3);  // user, assistant, user
    QCOMPARE(messages[1].toObject().value("role").toString(), QString("assistant"));
  }

  void slidersMoveTheValuesSent() {
    server_.setScript(ServerScript{});
    setProvider();
    window_->findChild<QSlider*>("temperatureSlider")->setValue(25);
    QCOMPARE(window_->findChild<QDoubleSpinBox*>("temperatureSpin")->value(), 0.25);
    QSignalSpy shown(window_.get(), &ui::MainWindow::runDisplayed);
    typeAndSend("x");
    QVERIFY(shown.wait(10000));
    const auto body =
        QJsonDocument::fromJson(QByteArray::fromStdString(server_.requests().back().body)).object();
    QCOMPARE(body.value("temperature").toDouble(), 0.25);
  }

  // Every run lands in the run store as it streams: the request, the provider, the events,
  // the metrics the strip shows; a stopped run keeps its partial answer as "cancelled".
  void everyRunIsRecordedInTheStore() {
    ServerScript s;
    s.chunks = 12;
    s.gap_ms = 2;
    server_.setScript(s);
    setProvider();
    QSignalSpy shown(window_.get(), &ui::MainWindow::runDisplayed);
    typeAndSend("store me");
    QVERIFY(shown.wait(10000));
    const QList<StoredRun> runs = controller_->runStore()->list({"", "", "", "store me"});
    QCOMPARE(runs.size(), 1);
    QCOMPARE(runs[0].status, QString("finished"));
    QCOMPARE(runs[0].context.provider, QString("Test server"));
    QCOMPARE(runs[0].context.base_url, QString::fromStdString(server_.baseUrl()));
    QCOMPARE(runs[0].text, window_->chatPanel()->lastAssistantText());
    QCOMPARE(runs[0].metrics.value("output_tokens").toInt(), 12);
    const std::optional<StoredRun> full = controller_->runStore()->load(runs[0].id);
    QCOMPARE(full->run.events.size(), window_->currentRun().events.size());
    QCOMPARE(computeMetrics(full->run).ttft_ns, computeMetrics(window_->currentRun()).ttft_ns);
  }

  // View → Run history: search in prompts, tags and notes edited in place (saved), Run
  // again sends the same request, Delete (confirmed) removes, and importing the run log
  // adds nothing twice.
  void historyFiltersEditsRerunsDeletesAndImports() {
    ServerScript s;
    s.chunks = 5;
    server_.setScript(s);
    setProvider();
    QSignalSpy shown(window_.get(), &ui::MainWindow::runDisplayed);
    for (const char* prompt : {"alpha history", "beta history"}) {
      window_->newChat();  // separate conversations: the second does not carry the first
      typeAndSend(prompt);
      QVERIFY(shown.wait(10000));
    }
    window_->findChild<QAction*>("historyAction")->trigger();
    ui::HistoryDialog* dialog = controller_->history().dialog();
    QVERIFY(dialog && dialog->isVisible());
    dialog->findChild<QLineEdit*>("historySearch")->setText("alpha history");
    QCOMPARE(dialog->rowCount(), 1);
    auto* table = dialog->findChild<QTableView*>("historyTable");
    auto* rows = table->model();
    QCOMPARE(rows->data(rows->index(0, 4)).toString(), QString("alpha history"));
    QCOMPARE(rows->data(rows->index(0, 8)).toString(), QString("5"));
    rows->setData(rows->index(0, 9), "fast, baseline");
    rows->setData(rows->index(0, 10), "first try");
    const QList<StoredRun> alpha = controller_->runStore()->list({"", "", "", "alpha history"});
    QCOMPARE(alpha.value(0).context.tags, (QStringList{"fast", "baseline"}));
    QCOMPARE(alpha.value(0).note, QString("first try"));
    dialog->findChild<QLineEdit*>("historySearch")->clear();
    dialog->findChild<QLineEdit*>("historyTag")->setText("baseline");
    QCOMPARE(dialog->rowCount(), 1);
    dialog->findChild<QLineEdit*>("historyTag")->clear();
    auto* since = dialog->findChild<QComboBox*>("historySince");
    since->setCurrentIndex(since->findData(3600));  // last hour: both runs
    dialog->findChild<QLineEdit*>("historySearch")->setText("history");
    QCOMPARE(dialog->rowCount(), 2);
    since->setCurrentIndex(0);

    // Run again: the same request through the window.
    dialog->findChild<QLineEdit*>("historySearch")->setText("alpha history");
    table->selectRow(0);
    QTest::mouseClick(dialog->findChild<QPushButton*>("runAgainButton"), Qt::LeftButton);
    QVERIFY(shown.wait(10000));
    const auto body =
        QJsonDocument::fromJson(QByteArray::fromStdString(server_.requests().back().body)).object();
    QCOMPARE(body.value("messages").toArray().last().toObject().value("content").toString(),
             QString("alpha history"));
    QCOMPARE(controller_->runStore()->list({"", "", "", "alpha history"}).size(), 2);
    QTRY_COMPARE(dialog->rowCount(), 2);  // an open history shows new runs as they end

    // Delete, confirmed in the message box.
    dialog->findChild<QLineEdit*>("historySearch")->setText("beta history");
    table->selectRow(0);
    QTimer::singleShot(0, this, [] {
      if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget()))
        box->button(QMessageBox::Yes)->click();
    });
    QTest::mouseClick(dialog->findChild<QPushButton*>("deleteRunsButton"), Qt::LeftButton);
    QCOMPARE(controller_->runStore()->list({"", "", "", "beta history"}).size(), 0);
    QCOMPARE(dialog->rowCount(), 0);

    // The run log holds these runs already: importing it adds none of them again.
    const int before = controller_->runStore()->list().size();
    for (const QFileInfo& log : QDir(dir_.filePath("logs")).entryInfoList({"*.jsonl"}))
      emit dialog->importRequested(log.filePath());
    const int after = controller_->runStore()->list().size();
    QVERIFY2(after == before + 1,  // only the deleted "beta" comes back from the log
             qPrintable(QString("%1 -> %2: %3")
                            .arg(before)
                            .arg(after)
                            .arg(dialog->findChild<QLabel*>("historyMessage")->text())));
    dialog->close();
  }

  // Ctrl+Shift+C compares the last two runs; History → select two stored runs → Compare:
  // the view shows both series, and exports a PNG of itself and the numbers as CSV (and
  // SVG, JSON).
  void comparisonViewOpensForTwoRunsAndExports() {
    controller_->setRunStore(std::make_unique<RunStore>(dir_.filePath("compare.sqlite")));
    window_->findChild<QAction*>("compareLatestAction")->trigger();  // nothing to compare yet
    QVERIFY(!controller_->history().comparison());
    QVERIFY(window_->statusBar()->currentMessage().contains("two runs"));
    for (auto [ttft, chunks] : {std::pair{30, 6}, std::pair{60, 9}}) {
      ServerScript s;
      s.ttft_ms = ttft;
      s.chunks = chunks;
      server_.setScript(s);
      setProvider();
      window_->newChat();
      QSignalSpy shown(window_.get(), &ui::MainWindow::runDisplayed);
      typeAndSend(QString("compare me %1").arg(ttft));
      QVERIFY(shown.wait(10000));
    }
    // From the main window, Ctrl+Shift+C: the last two runs side by side, older first.
    QTest::keyClick(window_.get(), Qt::Key_C, Qt::ControlModifier | Qt::ShiftModifier);
    QTRY_VERIFY(controller_->history().comparison() &&
                controller_->history().comparison()->isVisible());
    {
      auto* latest =
          controller_->history().comparison()->findChild<QTableWidget*>("comparisonTable");
      QCOMPARE(latest->columnCount(), 2);
      QVERIFY(latest->item(0, 0)->text().toDouble() >= 30);
      QVERIFY(latest->item(0, 1)->text().toDouble() >= 60);
      controller_->history().comparison()->close();
    }
    window_->findChild<QAction*>("historyAction")->trigger();
    ui::HistoryDialog* history = controller_->history().dialog();
    history->findChild<QLineEdit*>("historySearch")->setText("compare me");
    QCOMPARE(history->rowCount(), 2);
    history->findChild<QTableView*>("historyTable")->selectAll();
    QTest::mouseClick(history->findChild<QPushButton*>("compareButton"), Qt::LeftButton);
    ui::ComparisonView* view = controller_->history().comparison();
    QVERIFY(view && view->isVisible());
    QVERIFY(QTest::qWaitForWindowExposed(view));
    // round ticks and whole axis titles, at the size it opens with and on an 800 x 600 screen
    QTRY_COMPARE(chartAxesProblem(view), QString());
    const QSize opened = view->size();
    view->resize(800, 600);
    QTRY_COMPARE(chartAxesProblem(view), QString());
    view->resize(opened);
    auto* table = view->findChild<QTableWidget*>("comparisonTable");
    QCOMPARE(table->columnCount(), 2);
    QCOMPARE(table->verticalHeaderItem(0)->text(), QString("TTFT p50 (ms)"));
    QVERIFY(table->verticalHeaderItem(0)->toolTip().contains("first non-empty content chunk"));
    const double a = table->item(0, 0)->text().toDouble(), b = table->item(0, 1)->text().toDouble();
    QVERIFY2(qMin(a, b) >= 30 && qMax(a, b) >= 60,
             qPrintable(QString("%1 %2 | %3 | %4")
                            .arg(a)
                            .arg(b)
                            .arg(table->horizontalHeaderItem(0)->text(),
                                 table->horizontalHeaderItem(1)->text())));
    const QString png = dir_.filePath("compare.png"), csv = dir_.filePath("compare.csv");
    QCOMPARE(view->exportPng(png), QString());
    QCOMPARE(view->exportCsv(csv), QString());
    QCOMPARE(view->exportSvg(dir_.filePath("compare.svg")), QString());
    QCOMPARE(view->exportJson(dir_.filePath("compare.json")), QString());
    const QImage image(png);
    QVERIFY(!image.isNull() && image.width() > 400 && image.height() > 300);
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(f.readAll());
    QVERIFY2(text.startsWith("series,metric,mean,p50,p90,p99,count") &&
                 text.count(",ttft_ms,") == 2 && text.count(",tpot_ms,") == 2,
             qPrintable(text));
    QVERIFY(QFileInfo(dir_.filePath("compare.svg")).size() > 1000);
    view->close();
    history->close();
  }

  // Provider → Benchmark: a concurrency sweep 1, 2 against the test server fills one row
  // and one chart point per step with the SLO line drawn, records each step as a group in
  // the store (which the history compares as groups), and saves the sweep as JSON.
  void benchmarkSweepFillsTheTableChartAndStore() {
    ServerScript s;
    s.ttft_ms = 15;
    s.gap_ms = 2;
    s.chunks = 4;
    server_.setScript(s);
    setProvider();
    window_->findChild<QAction*>("benchmarkAction")->trigger();
    ui::BenchmarkDialog* dialog = controller_->benchmark();
    QVERIFY(dialog && dialog->isVisible());
    dialog->findChild<QLineEdit*>("benchValues")->setText("1,2");
    dialog->findChild<QSpinBox*>("benchRequests")->setValue(3);
    dialog->findChild<QSpinBox*>("benchWarmup")->setValue(0);
    dialog->findChild<QSpinBox*>("benchMaxTokens")->setValue(4);
    dialog->findChild<QDoubleSpinBox*>("benchSloTtft")->setValue(1000);
    QSignalSpy done(dialog, &ui::BenchmarkDialog::sweepFinished);
    QTest::mouseClick(dialog->findChild<QPushButton*>("benchStart"), Qt::LeftButton);
    QVERIFY(done.wait(30000));
    QCOMPARE(done.at(0).at(0).toBool(), false);
    auto* table = dialog->findChild<QTableWidget*>("benchTable");
    QCOMPARE(table->rowCount(), 2);
    QCOMPARE(table->item(1, 0)->text(), QString("2"));
    QCOMPARE(table->item(1, 1)->text(), QString("3"));
    QVERIFY(table->item(0, 4)->text().toDouble() >= 15);  // TTFT p99 over the script's 15 ms
    QCOMPARE(dialog->findChild<QProgressBar*>("benchProgress")->value(), 6);
    const QList<QPointF> ttft = dialog->chart()->points("ttft");
    QCOMPARE(ttft.size(), 2);
    QCOMPARE(ttft[1].x(), 2.0);
    QCOMPARE(dialog->chart()->points("slo_ttft").value(0).y(), 1000.0);
    QVERIFY(dialog->chart()->points("slo_tpot").isEmpty());
    QTRY_COMPARE(chartAxesProblem(dialog), QString());  // round ticks, whole titles
    // the trade-off: one labelled point per step at (TPOT p99, TTFT p99), as in the table
    ui::TradeoffChart* tradeoff = dialog->tradeoffChart();
    QCOMPARE(tradeoff->labels(), QStringList({"concurrency 1", "concurrency 2"}));
    const QList<QPointF> trade = tradeoff->points();
    QCOMPARE(trade.size(), 2);
    for (int row = 0; row < 2; ++row) {
      QCOMPARE(QString::number(trade[row].y(), 'f', 1), table->item(row, 4)->text());  // TTFT
      QCOMPARE(QString::number(trade[row].x(), 'f', 1), table->item(row, 6)->text());  // TPOT
    }
    // the scripted gateway answers both steps alike: the two labels are stacked, not printed
    // over each other
    const QList<QRectF> rects = tradeoff->labelRects();
    QCOMPARE(rects.size(), 2);
    QVERIFY2(!rects[0].intersects(rects[1]), qPrintable(QString("%1,%2 / %3,%4")
                                                            .arg(rects[0].x())
                                                            .arg(rects[0].y())
                                                            .arg(rects[1].x())
                                                            .arg(rects[1].y())));
    const QList<StoredRun> runs = controller_->runStore()->list({"", "", "bench"});
    QCOMPARE(runs.size(), 6);
    QVERIFY(runs[0].context.group.endsWith("concurrency=2"));
    QVERIFY(runs[5].context.group.endsWith("concurrency=1"));
    const QString json = dir_.filePath("sweep.json");
    QCOMPARE(dialog->saveJson(json), QString());
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject sweep = QJsonDocument::fromJson(f.readAll()).object();
    QCOMPARE(sweep.value("axis").toString(), QString("concurrency"));
    QCOMPARE(sweep.value("steps").toArray().size(), 2);
    QCOMPARE(sweep.value("steps").toArray()[1].toObject().value("requests_completed").toInt(), 3);
    dialog->close();
    // Compared as groups: one series per step, each with its 3 runs.
    ui::ComparisonView* view = controller_->history().compare({runs[0].id, runs[5].id}, true);
    QVERIFY(view);
    auto* figures = view->findChild<QTableWidget*>("comparisonTable");
    QCOMPARE(figures->columnCount(), 2);
    QVERIFY2(figures->horizontalHeaderItem(0)->text().endsWith("(3 runs)"),
             qPrintable(figures->horizontalHeaderItem(0)->text()));
    view->close();
  }

  // File → Export chat writes the conversation as Markdown or JSON; the window layout
  // (size, splitters) survives into the next window; Help → About names the versions.
  void chatExportLayoutAndAbout() {
    ServerScript s;
    s.chunks = 3;
    server_.setScript(s);
    setProvider();
    window_->newChat();
    QSignalSpy shown(window_.get(), &ui::MainWindow::runDisplayed);
    typeAndSend("export me");
    QVERIFY(shown.wait(10000));
    const QString md = dir_.filePath("chat.md"), json = dir_.filePath("chat.json");
    QCOMPARE(controller_->conversation().exportChat(md), QString());
    QCOMPARE(controller_->conversation().exportChat(json), QString());
    QFile f(md);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(f.readAll());
    QVERIFY2(text.startsWith("**You**\n\nexport me\n\n**Assistant**\n\n" +
                             window_->chatPanel()->lastAssistantText()),
             qPrintable(text));
    QFile j(json);
    QVERIFY(j.open(QIODevice::ReadOnly));
    const QJsonObject o = QJsonDocument::fromJson(j.readAll()).object();
    QCOMPARE(o.value("provider").toString(), QString("Test server"));
    QCOMPARE(o.value("messages").toArray().size(), 2);
    QCOMPARE(o.value("messages").toArray()[1].toObject().value("role").toString(),
             QString("assistant"));

    // A size that fits the screen (the offscreen one may be smaller than 1111 × 777).
    const QSize remembered = QSize(1111, 777).boundedTo(window_->screen()->availableSize());
    window_->resize(remembered);
    const auto horizontal = [](QWidget* w) {
      for (QSplitter* sp : w->findChildren<QSplitter*>())
        if (sp->orientation() == Qt::Horizontal) return sp;
      return static_cast<QSplitter*>(nullptr);
    };
    const auto share = [](QSplitter* sp) {
      return static_cast<double>(sp->sizes()[0]) / (sp->sizes()[0] + sp->sizes()[1]);
    };
    horizontal(window_.get())->setSizes({45, 55});  // the chat narrower than the default 3:2
    const double chat_share = share(horizontal(window_.get()));
    const QByteArray layout = window_->saveLayout();
    ui::MainWindow again;
    again.restoreLayout(layout);
    again.show();
    QVERIFY(QTest::qWaitForWindowExposed(&again));
    QCOMPARE(again.size(), remembered);
    QVERIFY2(qAbs(share(horizontal(&again)) - chat_share) < 0.03,
             qPrintable(QString("%1 vs %2").arg(share(horizontal(&again))).arg(chat_share)));
    QVERIFY2(chat_share < 0.55, qPrintable(QString::number(chat_share)));  // not the default 3:2
    // A damaged layout is ignored.
    again.restoreLayout("damaged");
    QCOMPARE(again.size(), remembered);

    window_->findChild<QAction*>("aboutAction")->trigger();
    auto* about = window_->findChild<QMessageBox*>("aboutBox");
    QVERIFY(about);
    QVERIFY2(about->text().contains(TOKENSCOPE_VERSION) &&
                 about->informativeText().contains(qVersion()) &&
                 about->informativeText().contains("sentencepiece") &&
                 about->informativeText().contains("CUDA"),
             qPrintable(about->informativeText()));
    about->close();
  }

  void stopKeepsThePartialAnswer() {
    ServerScript s;
    s.chunks = 3000;
    s.gap_ms = 5;
    server_.setScript(s);
    setProvider();
    QSignalSpy shown(window_.get(), &ui::MainWindow::runDisplayed);
    typeAndSend("long answer please");
    QTRY_VERIFY_WITH_TIMEOUT(window_->chatPanel()->lastAssistantText().size() > 20, 5000);
    QElapsedTimer clock;
    clock.start();
    QTest::mouseClick(window_->findChild<QPushButton*>("stopButton"), Qt::LeftButton);
    QVERIFY(shown.wait(5000));
    QVERIFY2(clock.elapsed() < 100, qPrintable(QString("stop took %1 ms").arg(clock.elapsed())));
    const QString partial = window_->chatPanel()->lastAssistantText();
    QVERIFY(!partial.isEmpty());
    QVERIFY(partial.size() < static_cast<int>(OpenAiTestServer::expectedText(s).size()));
    QVERIFY(window_->chatPanel()->transcriptText().contains("partial answer is kept"));
    QCOMPARE(window_->currentRun().terminal()->text, std::string("cancelled"));
    const QList<StoredRun> stored = controller_->runStore()->list({"", "", "", "long answer"});
    QCOMPARE(stored.value(0).status, QString("cancelled"));
    QCOMPARE(stored.value(0).text, partial);
  }

  // The in-process engine through the same window: aidreams260K completes "I dreamed" at
  // temperature 0 with exactly its reference text, and the metric labels fill.
  void localModelGeneratesTheReferenceText() {
    if (!QFile::exists(localModel())) QSKIP("the shared fixtures are absent");
    QFile f(shared_ + "/aidreams260K/reference/I_dreamed.json");
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject ref = QJsonDocument::fromJson(f.readAll()).object();
    const int n = ref.value("generated_ids").toArray().size();
    setLocalProvider(localModel());
    window_->findChild<QSlider*>("temperatureSlider")->setValue(0);
    window_->findChild<QSpinBox*>("maxTokensSpin")->setValue(n);
    QSignalSpy shown(window_.get(), &ui::MainWindow::runDisplayed);
    typeAndSend("I dreamed");
    QVERIFY(shown.wait(30000));
    QCOMPARE(window_->chatPanel()->lastAssistantText(), ref.value("generated_text").toString());
    QVERIFY2(label("ttftValue").endsWith(" ms"), qPrintable(label("ttftValue")));
    QVERIFY(label("tpotValue").endsWith(" ms"));
    QVERIFY(label("decodeRateValue").endsWith("tok/s"));
    QCOMPARE(label("outputTokensValue"), QString("%1 (usage)").arg(n));
    QCOMPARE(window_->latencyChart()->pointCount(), n - 1);
    QCOMPARE(window_->currentRun().terminal()->text, std::string("length"));
    QVERIFY2(label("promptValue").contains("tok · prefill") && label("promptValue").endsWith("ms"),
             qPrintable(label("promptValue")));
    // The next turn keeps the first one's KV rows: the strip says how many were cached.
    typeAndSend("and then");
    QVERIFY(shown.wait(30000));
    QVERIFY2(label("promptValue").contains(" cached · prefill"), qPrintable(label("promptValue")));
    const QList<StoredRun> stored = controller_->runStore()->list({"", "", "", ""});
    QVERIFY(stored.size() >= 2);
    // Compared, the two local turns show the scheduler's batch size at each token: the chat
    // ran alone, so every step held one request.
    ui::ComparisonView* view = controller_->history().compare({stored[0].id, stored[1].id}, false);
    QVERIFY(view);
    auto* batches = view->findChild<QChartView*>("comparisonBatchChart");
    QVERIFY(batches);
    int points = 0;
    for (QAbstractSeries* series : batches->chart()->series())
      for (const QPointF& p : qobject_cast<QLineSeries*>(series)->points()) {
        QCOMPARE(p.y(), 1.0);
        ++points;
      }
    QVERIFY(points >= 2 * n - 1);
    QTRY_COMPARE(chartAxesProblem(view), QString());
    view->close();
  }

  // Provider → Benchmark on a local provider: no Serve needed; a prefill-chunk sweep serves
  // the model anew per step with that chunk, and the trade-off chart labels each setting.
  void aLocalBenchmarkSweepsThePrefillChunk() {
    if (!QFile::exists(localModel())) QSKIP("the shared fixtures are absent");
    ui::BenchmarkDialog* dialog = openLocalBenchmark(ui::SweepKind::PrefillChunk);
    QVERIFY(dialog);
    QVERIFY(dialog->findChild<QCheckBox*>("benchDistinct")->isChecked());
    QVERIFY(runSmallSweep(dialog, "16,0"));
    auto* table = dialog->findChild<QTableWidget*>("benchTable");
    QCOMPARE(table->rowCount(), 2);
    QCOMPARE(table->item(1, 0)->text(), QString("0"));
    QCOMPARE(table->item(0, 1)->text(), QString("2"));  // both requests of each step done
    QCOMPARE(table->item(1, 1)->text(), QString("2"));
    QCOMPARE(dialog->tradeoffChart()->labels(), QStringList({"chunk 16", "whole prompts"}));
    const QList<StoredRun> runs = controller_->runStore()->list({"", "", "bench"});
    QVERIFY(runs.size() >= 4);
    QVERIFY2(runs[0].context.group.endsWith("prefill_chunk=0"), qPrintable(runs[0].context.group));
    // Numbered prompts: each was read in full, none served from another's cache beyond the
    // few tokens they all begin with.
    for (int i = 0; i < 4; ++i) {
      const std::optional<StoredRun> run = controller_->runStore()->load(runs[i].id);
      QVERIFY(run);
      const RunMetrics m = computeMetrics(run->run);
      QVERIFY2(m.cached_tokens && *m.cached_tokens < 4 && m.prompt_tokens && *m.prompt_tokens > 8,
               qPrintable(QString("cached %1 of %2")
                              .arg(m.cached_tokens.value_or(-1))
                              .arg(m.prompt_tokens.value_or(-1))));
    }
    dialog->close();
  }

  // The TPOT-target sweep: each step served with prompts paced to its value (0: unpaced);
  // a value that is not whole milliseconds is refused before anything runs.
  void aLocalBenchmarkSweepsTheTpotTarget() {
    if (!QFile::exists(localModel())) QSKIP("the shared fixtures are absent");
    ui::BenchmarkDialog* dialog = openLocalBenchmark(ui::SweepKind::TpotTarget);
    QVERIFY(dialog);
    auto* values = dialog->findChild<QLineEdit*>("benchValues");
    QCOMPARE(values->text(), QString("0,100,50,25"));
    values->setText("0,2.5");
    QTest::mouseClick(dialog->findChild<QPushButton*>("benchStart"), Qt::LeftButton);
    QCOMPARE(dialog->findChild<QLabel*>("benchStatus")->text(),
             QString("TPOT target (ms): expected a whole number from 0 to 60000, found 2.5"));
    QVERIFY(runSmallSweep(dialog, "0,30"));
    QCOMPARE(dialog->findChild<QTableWidget*>("benchTable")->rowCount(), 2);
    // along the lever: paced, then unpaced (no limit) at the far end
    QCOMPARE(dialog->tradeoffChart()->labels(), QStringList({"paced to 30 ms", "unpaced"}));
    const QStringList served = controller_->benchmarks().stepSchedulings();
    QCOMPARE(served.size(), 2);
    QVERIFY2(!served[0].contains("paced") && served[1].contains("paced to 30 ms per output token"),
             qPrintable(served.join(" | ")));
    const QList<StoredRun> runs = controller_->runStore()->list({"", "", "bench"});
    QVERIFY2(runs[0].context.group.endsWith("tpot_target_ms=30"),
             qPrintable(runs[0].context.group));
    dialog->close();
  }

  // Every sweep value has the engine's upper bound (serving_limits.h, as the CLI checks it):
  // 100000 running sequences would make the server start ~100k threads. A value beyond is
  // refused with the CLI's message shape, and nothing runs.
  void aSweepValueBeyondItsBoundIsRefused() {
    ui::BenchmarkDialog* dialog = openLocalBenchmark(ui::SweepKind::MaxRunning);
    QVERIFY(dialog);
    QSignalSpy starts(dialog, &ui::BenchmarkDialog::startRequested);
    auto* values = dialog->findChild<QLineEdit*>("benchValues");
    auto* status = dialog->findChild<QLabel*>("benchStatus");
    auto* start = dialog->findChild<QPushButton*>("benchStart");
    values->setText("1,8,100000");
    QTest::mouseClick(start, Qt::LeftButton);
    QCOMPARE(status->text(),
             QString("Running sequences: expected a whole number from 1 to 256, found 100000"));
    values->setText("0");
    QTest::mouseClick(start, Qt::LeftButton);
    QCOMPARE(status->text(),
             QString("Running sequences: expected a whole number from 1 to 256, found 0"));
    auto* axis = dialog->findChild<QComboBox*>("benchAxis");
    axis->setCurrentIndex(axis->findData(static_cast<int>(ui::SweepKind::PrefillChunk)));
    values->setText("16, 70000");
    QTest::mouseClick(start, Qt::LeftButton);
    QCOMPARE(status->text(),
             QString("Prefill chunk: expected a whole number from 0 to 65536, found 70000"));
    axis->setCurrentIndex(axis->findData(static_cast<int>(ui::SweepKind::Concurrency)));
    values->setText("1,2,5000");
    QTest::mouseClick(start, Qt::LeftButton);
    QCOMPARE(status->text(),
             QString("Concurrency: expected a whole number from 1 to 4096, found 5000"));
    // The scheduler sweeps' requests in flight: the same bound, as the spin box's range.
    QCOMPARE(dialog->findChild<QSpinBox*>("benchConcurrency")->maximum(), 4096);
    QCOMPARE(starts.count(), 0);
    QVERIFY(start->isEnabled());
    QVERIFY(controller_->benchmarks().stepSchedulings().isEmpty());
    dialog->close();
  }

  // Provider → Serve the local model: other tools reach it over the OpenAI API until the
  // action is unchecked, on the same engine (and prefix cache) as the chat.
  void theAppServesTheLocalModel() {
    if (!QFile::exists(localModel())) QSKIP("the shared fixtures are absent");
    setLocalProvider(localModel());
    auto* action = window_->findChild<QAction*>("serveAction");
    action->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(controller_->serving().isServing(), 15000);
    QVERIFY(action->isChecked());
    // By default: this computer only, no key, and no warning.
    QVERIFY2(window_->statusBar()->currentMessage().contains("for this computer only"),
             qPrintable(window_->statusBar()->currentMessage()));
    auto* warning = window_->findChild<QLabel*>("serveWarningLabel");
    QVERIFY(!warning || !warning->isVisible());
    const int port = controller_->serving().port();
    httplib::Client c("127.0.0.1", port);
    auto models = c.Get("/v1/models");
    QVERIFY(models && models->status == 200);
    QVERIFY(QString::fromStdString(models->body).contains("aidreams260K"));
    // The chat runs on the same engine: its turn is in the prefix cache the served request
    // finds (one scheduler per loaded model).
    window_->findChild<QSlider*>("temperatureSlider")->setValue(0);
    QSignalSpy shown(window_.get(), &ui::MainWindow::runDisplayed);
    typeAndSend("I dreamed");
    QVERIFY(shown.wait(30000));
    auto answer =
        c.Post("/v1/chat/completions",
               R"({"model": "aidreams260K", "messages": [{"role": "user", "content": "I dreamed"}],
                             "temperature": 0, "max_tokens": 5})",
               "application/json");
    QVERIFY(answer && answer->status == 200);
    QVERIFY2(QString::fromStdString(answer->body).contains("\"completion_tokens\":5"),
             answer->body.c_str());
    const QJsonObject usage = QJsonDocument::fromJson(QByteArray::fromStdString(answer->body))
                                  .object()
                                  .value("usage")
                                  .toObject();
    const int prompt_tokens = usage.value("prompt_tokens").toInt();
    QVERIFY2(usage.value("prompt_tokens_details").toObject().value("cached_tokens").toInt() ==
                 prompt_tokens - 1,
             answer->body.c_str());
    action->trigger();  // off: returns at once, the server stops on its own thread
    QVERIFY(!controller_->serving().isServing());
    QVERIFY(!action->isChecked());
    QVERIFY2(action->text().endsWith("stopping…"), qPrintable(action->text()));
    QTRY_COMPARE_WITH_TIMEOUT(controller_->serving().state(), LocalServing::State::Off, 15000);
    QVERIFY2(!action->text().contains("stopping"), qPrintable(action->text()));
    QCOMPARE(window_->statusBar()->currentMessage(), QString("Stopped serving the local model."));
    httplib::Client after("127.0.0.1", port);
    QVERIFY(!after.Get("/v1/models"));
  }

  // Speculative sampling from the parameter panel: prompt lookup at temperature 0 gives the
  // same text as plain greedy decoding, and the strip shows the acceptance.
  void speculativeLookupKeepsTheGreedyText() {
    if (!QFile::exists(localModel())) QSKIP("the shared fixtures are absent");
    QFile f(shared_ + "/aidreams260K/reference/I_dreamed.json");
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject ref = QJsonDocument::fromJson(f.readAll()).object();
    setLocalProvider(localModel());
    window_->findChild<QSlider*>("temperatureSlider")->setValue(0);
    window_->findChild<QSpinBox*>("maxTokensSpin")
        ->setValue(ref.value("generated_ids").toArray().size());
    auto* spec = window_->findChild<QComboBox*>("speculativeCombo");
    spec->setCurrentIndex(spec->findData(QString("lookup")));
    window_->findChild<QSpinBox*>("draftKSpin")->setValue(4);
    QSignalSpy shown(window_.get(), &ui::MainWindow::runDisplayed);
    typeAndSend("I dreamed");
    QVERIFY(shown.wait(30000));
    QCOMPARE(window_->chatPanel()->lastAssistantText(), ref.value("generated_text").toString());
    QVERIFY2(label("acceptanceValue").contains("%") && label("acceptanceValue").contains("/"),
             qPrintable(label("acceptanceValue")));
    QVERIFY(window_->acceptanceChart()->isVisible());
    spec->setCurrentIndex(0);  // off again for the other tests
  }

  // Speculative runs mark which tokens were accepted drafts: the chunks flagged drafted are
  // exactly the accepted count, and View → Mark accepted draft tokens paints those (and only
  // those) on green, and unpaints them again.
  void acceptedDraftTokensCanBeMarked() {
    if (!QFile::exists(localModel())) QSKIP("the shared fixtures are absent");
    setLocalProvider(localModel());
    window_->findChild<QSlider*>("temperatureSlider")->setValue(0);
    window_->findChild<QSpinBox*>("maxTokensSpin")->setValue(60);
    auto* spec = window_->findChild<QComboBox*>("speculativeCombo");
    spec->setCurrentIndex(spec->findData(QString("self-int4")));
    QSignalSpy shown(window_.get(), &ui::MainWindow::runDisplayed);
    typeAndSend("I dreamed");
    QVERIFY(shown.wait(30000));
    spec->setCurrentIndex(0);
    int drafted = 0;
    int64_t accepted = -1;
    QString drafted_text;
    for (const StreamEvent& e : window_->currentRun().events) {
      if (e.kind == EventKind::TokenChunk && e.drafted) {
        ++drafted;
        drafted_text += QString::fromStdString(e.text);
      }
      if (e.kind == EventKind::Usage) accepted = e.accepted_tokens;
    }
    QVERIFY2(drafted > 0 && drafted == accepted,
             qPrintable(QString("%1 drafted chunks, %2 accepted").arg(drafted).arg(accepted)));
    QCOMPARE(window_->chatPanel()->draftedText(), drafted_text);
    // The accepted-length histogram chart shows the same steps as the usage record.
    QVERIFY(window_->acceptanceChart()->isVisible());
    QList<qreal> bars;
    qreal accepted_from_bars = 0;
    for (const StreamEvent& e : window_->currentRun().events)
      if (e.kind == EventKind::Usage)
        for (int32_t n : e.accepted_histogram) bars << n;
    QCOMPARE(window_->acceptanceChart()->bars(), bars);
    QTRY_COMPARE(chartAxesProblem(window_.get()), QString());  // whole-number step counts
    for (int n = 0; n < bars.size(); ++n) accepted_from_bars += n * bars[n];
    QCOMPARE(accepted_from_bars, static_cast<qreal>(accepted));
    const auto painted = [this] {
      QString out;
      const QTextDocument* doc = window_->findChild<QTextBrowser*>("transcript")->document();
      for (QTextBlock b = doc->begin(); b.isValid(); b = b.next())
        for (auto it = b.begin(); !it.atEnd(); ++it)
          if (it.fragment().charFormat().background().style() != Qt::NoBrush)
            out += it.fragment().text();
      return out;
    };
    QVERIFY(painted().isEmpty());
    auto* mark = window_->findChild<QAction*>("markDraftedAction");
    mark->trigger();
    QCOMPARE(painted(), drafted_text);
    QVERIFY(drafted_text.size() < window_->chatPanel()->lastAssistantText().size());
    mark->trigger();
    QVERIFY(painted().isEmpty());
  }

  // A local Baichuan2 folder's generation_config.json: the parameter panel shows its
  // suggested settings and "Use the model's defaults" sets them; top_k and the repetition
  // penalty reach the request; a provider without suggestions hides the line.
  void theModelsSuggestedSettingsAreOffered() {
    const QString folder = shared_ + "/baichuan2-tiny/7b-bf16";
    if (!QFile::exists(folder + "/generation_config.json")) QSKIP("baichuan2-tiny is absent");
    setLocalProvider(folder);
    auto* row = window_->findChild<QWidget*>("modelSuggestions");
    const QString text = window_->findChild<QLabel*>("modelSuggestionsText")->text();
    QVERIFY(row && !row->isHidden());
    for (const char* part :
         {"temperature 0.3", "top-k 5", "top-p 0.85", "repetition penalty 1.05", "max tokens 2048"})
      QVERIFY2(text.contains(part), qPrintable(text));
    QTest::mouseClick(window_->findChild<QPushButton*>("useModelDefaultsButton"), Qt::LeftButton);
    const SamplingParams p = window_->parameterPanel()->params();
    QCOMPARE(p.temperature, 0.3);
    QCOMPARE(p.top_p, 0.85);
    QCOMPARE(p.top_k, 5);
    QCOMPARE(p.repetition_penalty, 1.05);
    QCOMPARE(p.max_tokens, 2048);
    setProvider();
    QVERIFY(row->isHidden());
  }

  // The model manager on Baichuan2 as published: a PyTorch checkpoint, its NormHead.
  void modelManagerShowsABaichuan2Checkpoint() {
    const QString folder = shared_ + "/baichuan2-tiny/7b-bf16";
    if (!QFile::exists(folder + "/pytorch_model.bin")) QSKIP("baichuan2-tiny is absent");
    window_->findChild<QAction*>("openLocalModelAction")->trigger();
    ui::ModelManagerDialog* dialog = controller_->modelManager().dialog();
    QVERIFY(dialog);
    dialog->setPath(folder);
    const QString facts = dialog->factsText();
    for (const char* part :
         {"Format: PyTorch checkpoint (.bin)", "Classifier: NormHead, normalized at load",
          "BF16 × 227", "Vocabulary: 125696 tokens", "Positions: RoPE"})
      QVERIFY2(facts.contains(part), qPrintable(part + QString(" not in ") + facts));
    QVERIFY(dialog->findChild<QPushButton*>("loadButton")->isEnabled());
    dialog->close();
  }

  // Provider → Open a local model: the facts of the file before loading, the memory the
  // settings take, Cancel during the load changes nothing, a finished load becomes the
  // current provider with its settings, is remembered, and the chat uses that very copy.
  void modelManagerInspectsLoadsAndCancels() {
    const QString model = shared_ + "/baichuan-tiny-rope/baichuan-tiny-rope-32L-f32.gguf";
    if (!QFile::exists(model)) QSKIP("the shared fixtures are absent");
    const QByteArray cache_home = qgetenv("XDG_CACHE_HOME");
    qputenv("XDG_CACHE_HOME", dir_.filePath("cache").toUtf8());  // this test's own cache
    setProvider();
    window_->findChild<QAction*>("openLocalModelAction")->trigger();
    ui::ModelManagerDialog* dialog = controller_->modelManager().dialog();
    QVERIFY(dialog && dialog->isVisible());
    auto* cache = dialog->findChild<QLabel*>("conversionCache");
    auto* clear = dialog->findChild<QPushButton*>("clearCacheButton");
    QVERIFY2(cache->text().startsWith("Conversion cache: empty") && !clear->isEnabled(),
             qPrintable(cache->text()));
    dialog->setPath(model);
    const QString facts = dialog->factsText();
    for (const char* part : {"baichuan", "Layers: 32", "4096 tokens", "F32 × "})
      QVERIFY2(facts.contains(part), qPrintable(part + QString(" not in ") + facts));
    QCOMPARE(dialog->findChild<QSpinBox*>("contextSpin")->value(), 4096);
    auto* weights = dialog->findChild<QComboBox*>("weightsCombo");
    weights->setCurrentIndex(weights->findData(QString("int8")));
    dialog->findChild<QSpinBox*>("contextSpin")->setValue(512);
    const QString estimate = dialog->findChild<QLabel*>("memoryEstimate")->text();
    QVERIFY2(estimate.contains("weights") && estimate.contains("KV cache") &&
                 estimate.contains("available"),
             qPrintable(estimate));
    auto* load = dialog->findChild<QPushButton*>("loadButton");
    auto* cancel = dialog->findChild<QPushButton*>("cancelLoadButton");
    auto* status = dialog->findChild<QLabel*>("loadStatus");
    QVERIFY(load->isEnabled() && !cancel->isEnabled());

    // Cancel before the load's result reaches the window: nothing changes.
    const int loads = LoadedModels::loadsFromFiles();
    QTest::mouseClick(load, Qt::LeftButton);
    QVERIFY(cancel->isEnabled() && !load->isEnabled());
    QTest::mouseClick(cancel, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(status->text().contains("cancelled"), 20000);
    QCOMPARE(window_->providers().size(), size_t{1});
    QCOMPARE(window_->providers()[0].kind, ProviderKind::Remote);
    QVERIFY(load->isEnabled());

    QTest::mouseClick(load, Qt::LeftButton);
    // A successful load closes the dialog; the status bar says the model is ready.
    QTRY_VERIFY_WITH_TIMEOUT(!controller_->modelManager().dialog(), 20000);
    QVERIFY2(window_->statusBar()->currentMessage().contains("loaded"),
             qPrintable(window_->statusBar()->currentMessage()));
    const auto current = window_->currentProviderSettings();
    QVERIFY(current && current->kind == ProviderKind::LocalEngine);
    QCOMPARE(current->base_url, model.toStdString());
    QCOMPARE(current->local.weights, std::string("int8"));
    QCOMPARE(current->local.context, 512);
    QCOMPARE(ModelManager::recentModels().value(0), model);
    // The int8 conversion went to the cache: the dialog shows it when it is opened anew, and
    // Clear empties it.
    window_->findChild<QAction*>("openLocalModelAction")->trigger();
    dialog = controller_->modelManager().dialog();
    QCOMPARE(dialog->findChild<QListWidget*>("recentModels")->count(), 1);
    cache = dialog->findChild<QLabel*>("conversionCache");
    clear = dialog->findChild<QPushButton*>("clearCacheButton");
    QVERIFY2(cache->text().contains("in 1 file(s)") && cache->text().contains(dir_.path()) &&
                 clear->isEnabled(),
             qPrintable(cache->text()));
    QTest::mouseClick(clear, Qt::LeftButton);
    QVERIFY2(cache->text().startsWith("Conversion cache: empty") && !clear->isEnabled(),
             qPrintable(cache->text()));
    QCOMPARE(QDir(dir_.filePath("cache/tokenscope")).entryList({"*.tsq"}).size(), 0);
    qputenv("XDG_CACHE_HOME", cache_home);
    const int after_load = LoadedModels::loadsFromFiles();
    QVERIFY(after_load > loads);
    // The provider and its engine settings are saved.
    const ProviderList saved = ProviderStore(dir_.filePath("providers.json")).load();
    QCOMPARE(saved.providers.at(saved.current).local.weights, std::string("int8"));

    dialog->close();
    window_->findChild<QSlider*>("temperatureSlider")->setValue(0);
    window_->findChild<QSpinBox*>("maxTokensSpin")->setValue(8);
    QSignalSpy shown(window_.get(), &ui::MainWindow::runDisplayed);
    typeAndSend("hello");
    QVERIFY(shown.wait(30000));
    QCOMPARE(window_->currentRun().terminal()->text, std::string("length"));
    QCOMPARE(LoadedModels::loadsFromFiles(), after_load);  // the chat used the loaded copy
    // Serving it to other tools shares the same copy too.
    auto* serve = window_->findChild<QAction*>("serveAction");
    serve->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(controller_->serving().isServing(), 15000);
    QCOMPARE(LoadedModels::loadsFromFiles(), after_load);
    serve->trigger();
    QVERIFY(!controller_->serving().isServing());
    QTRY_COMPARE_WITH_TIMEOUT(controller_->serving().state(), LocalServing::State::Off, 15000);
  }

  // Stop during a local generation ends it within a token, keeping the partial answer; a
  // local provider whose file is gone says so.
  void localGenerationStopsAndMissingModelIsExplained() {
    const QString model = shared_ + "/baichuan-tiny-rope/baichuan-tiny-rope-32L-f32.gguf";
    if (!QFile::exists(model)) QSKIP("the shared fixtures are absent");
    setLocalProvider(model);
    window_->findChild<QSlider*>("temperatureSlider")->setValue(0);  // greedy: repeatable
    window_->findChild<QSpinBox*>("maxTokensSpin")->setValue(100000);
    QSignalSpy shown(window_.get(), &ui::MainWindow::runDisplayed);
    typeAndSend("tell me everything");
    QTRY_VERIFY_WITH_TIMEOUT(!window_->chatPanel()->lastAssistantText().isEmpty(), 20000);
    QTest::mouseClick(window_->findChild<QPushButton*>("stopButton"), Qt::LeftButton);
    QVERIFY(shown.wait(5000));
    QCOMPARE(window_->currentRun().terminal()->text, std::string("cancelled"));
    QVERIFY(!window_->chatPanel()->lastAssistantText().isEmpty());
    setLocalProvider("/nonexistent/model.gguf");
    typeAndSend("hello");
    QVERIFY(shown.wait(10000));
    const QString transcript = window_->chatPanel()->transcriptText();
    QVERIFY2(transcript.contains("The local model cannot run") &&
                 transcript.contains("/nonexistent/model.gguf"),
             qPrintable(transcript));
  }

  // A local provider that asks for CUDA where none is usable runs on the CPU and says why
  // once, in the status bar; the answers' transcript carries no note.
  void cudaUnavailableIsSaidOnceNotWithEveryAnswer() {
    const QString model = shared_ + "/baichuan-tiny-rope/baichuan-tiny-rope-32L-f32.gguf";
    if (!QFile::exists(model)) QSKIP("the shared fixtures are absent");
    setLocalProvider(model);
    ProviderSettings p = *window_->currentProviderSettings();
    p.local.backend = "auto";
    window_->replaceProvider(p);
    window_->findChild<QSpinBox*>("maxTokensSpin")->setValue(4);
    QSignalSpy noted(&controller_->session(), &ChatSession::localBackendNote);
    QSignalSpy shown(window_.get(), &ui::MainWindow::runDisplayed);
    if (engine::probeCuda().usable) QSKIP("CUDA is usable here: the local model runs on it");
    typeAndSend("first");
    QVERIFY(shown.wait(20000));
    QCOMPARE(noted.count(), 1);
    const QString note = noted.at(0).at(0).toString();
    QVERIFY(!note.isEmpty());
    auto* mark = window_->findChild<QLabel*>("cpuFallbackLabel");
    QVERIFY(mark && mark->isVisible());
    QCOMPARE(mark->toolTip(), note);
    for (const char* text : {"second", "third"}) {
      typeAndSend(text);
      QVERIFY(shown.wait(20000));
    }
    QCOMPARE(noted.count(), 1);
    QVERIFY2(!window_->chatPanel()->transcriptText().contains(note),
             qPrintable(window_->chatPanel()->transcriptText()));
    p.local.backend = "cpu";  // as asked: the mark goes
    window_->replaceProvider(p);
    typeAndSend("fourth");
    QVERIFY(shown.wait(20000));
    QCOMPARE(noted.count(), 2);
    QVERIFY(!mark->isVisible());
  }

  // Provider → Download a model: a file from a hub mirror lands in the models folder with
  // its sha256 verified; "Use this model" adds a local provider that answers at once.
  void downloadDialogFetchesAModelAndUsesIt() {
    if (!QFile::exists(localModel())) QSKIP("the shared fixtures are absent");
    QStandardPaths::setTestModeEnabled(true);
    QDir(modelsDir()).removeRecursively();
    ts::testing::HubMirror mirror;
    QVERIFY(mirror.start() > 0);
    mirror.serve("karpathy/aidreams", "aidreams260K.gguf", localModel().toStdString());
    controller_->setDownloadHub(QString::fromStdString(mirror.baseUrl()));
    emit window_->downloadRequested();
    auto* dialog = window_->findChild<ui::DownloadDialog*>("downloadDialog");
    QVERIFY(dialog);
    QCOMPARE(dialog->findChild<QListWidget*>("downloadSuggestions")->count(), 6);
    dialog->findChild<QLineEdit*>("downloadRepo")->setText("karpathy/aidreams");
    dialog->findChild<QLineEdit*>("downloadFile")->setText("aidreams260K.gguf");
    QTest::mouseClick(dialog->findChild<QPushButton*>("downloadStart"), Qt::LeftButton);
    auto* use = dialog->findChild<QPushButton*>("downloadUse");
    QTRY_VERIFY_WITH_TIMEOUT(use->isEnabled(), 20000);
    QVERIFY2(dialog->findChild<QLabel*>("downloadStatus")->text().contains("sha256 verified"),
             qPrintable(dialog->findChild<QLabel*>("downloadStatus")->text()));
    QCOMPARE(dialog->findChild<QProgressBar*>("downloadProgress")->value(), 1000);
    QTest::mouseClick(use, Qt::LeftButton);
    const auto providers = window_->providers();
    QCOMPARE(providers.back().kind, ProviderKind::LocalEngine);
    QCOMPARE(QString::fromStdString(providers.back().base_url), modelsDir() + "/aidreams260K.gguf");
    window_->findChild<QSlider*>("temperatureSlider")->setValue(0);
    window_->findChild<QSpinBox*>("maxTokensSpin")->setValue(8);
    QSignalSpy shown(window_.get(), &ui::MainWindow::runDisplayed);
    typeAndSend("I dreamed");
    QVERIFY(shown.wait(30000));
    QCOMPARE(label("outputTokensValue"), QString("8 (usage)"));
    QDir(modelsDir()).removeRecursively();
  }

  // The Baichuan2-7B-Chat suggestion (Baichuan's own repository, no file named) downloads the
  // whole folder; "Use this model" makes it a local provider whose suggested settings the
  // parameter panel offers, and it answers in its chat format.
  void downloadDialogFetchesABaichuan2Repository() {
    const QString src = shared_ + "/baichuan2-tiny/7b-bf16";
    if (!QFile::exists(src + "/pytorch_model.bin")) QSKIP("baichuan2-tiny is absent");
    QStandardPaths::setTestModeEnabled(true);
    QDir(modelsDir()).removeRecursively();
    ts::testing::HubMirror mirror;
    QVERIFY(mirror.start() > 0);
    for (const char* f : {"config.json", "generation_config.json", "tokenizer.model",
                          "tokenizer_config.json", "special_tokens_map.json", "pytorch_model.bin"})
      mirror.serve("baichuan-inc/Baichuan2-7B-Chat", f, (src + "/" + f).toStdString());
    controller_->setDownloadHub(QString::fromStdString(mirror.baseUrl()));
    emit window_->downloadRequested();
    auto* dialog = window_->findChild<ui::DownloadDialog*>("downloadDialog");
    QVERIFY(dialog);
    auto* list = dialog->findChild<QListWidget*>("downloadSuggestions");
    const auto found = list->findItems("Baichuan2-7B-Chat from Baichuan", Qt::MatchStartsWith);
    QCOMPARE(found.size(), 1);
    list->setCurrentItem(found.first());
    QCOMPARE(dialog->findChild<QLineEdit*>("downloadRepo")->text(),
             QString("baichuan-inc/Baichuan2-7B-Chat"));
    QVERIFY(dialog->findChild<QLineEdit*>("downloadFile")->text().isEmpty());
    QTest::mouseClick(dialog->findChild<QPushButton*>("downloadStart"), Qt::LeftButton);
    auto* use = dialog->findChild<QPushButton*>("downloadUse");
    QTRY_VERIFY_WITH_TIMEOUT(use->isEnabled(), 30000);
    const QString status = dialog->findChild<QLabel*>("downloadStatus")->text();
    QVERIFY2(status.contains("6 file(s), sha256 verified"), qPrintable(status));
    QTest::mouseClick(use, Qt::LeftButton);
    const QString folder = modelsDir() + "/Baichuan2-7B-Chat";
    QCOMPARE(QString::fromStdString(window_->providers().back().base_url), folder);
    QVERIFY(!window_->findChild<QWidget*>("modelSuggestions")->isHidden());
    window_->findChild<QSlider*>("temperatureSlider")->setValue(0);
    window_->findChild<QSpinBox*>("maxTokensSpin")->setValue(4);
    QSignalSpy shown(window_.get(), &ui::MainWindow::runDisplayed);
    typeAndSend("Hello");
    QVERIFY(shown.wait(60000));
    QVERIFY2(label("outputTokensValue").endsWith("(usage)"),
             qPrintable(label("outputTokensValue")));
    QDir(modelsDir()).removeRecursively();
  }

  // A finished answer is rendered as Markdown (bold, a code block in a fixed font), each
  // message has a Copy button and so does the code block; clicking them puts the Markdown
  // source, or the code alone, on the clipboard. Turned off, answers are plain text again.
  void answersRenderAsMarkdownWithCopyButtons() {
    const std::string answer =
        "Here is **bold** text.\n\n```cpp\nint main() { return 0; }\n```\n\nDone.";
    ServerScript s;
    s.pieces = OpenAiTestServer::piecesOf(answer);
    s.chunks = static_cast<int>(s.pieces.size());
    server_.setScript(s);
    setProvider();
    QSignalSpy shown(window_.get(), &ui::MainWindow::runDisplayed);
    typeAndSend("show me code");
    QVERIFY(shown.wait(10000));
    QCOMPARE(window_->chatPanel()->lastAssistantText(), QString::fromStdString(answer));
    auto* transcript = window_->findChild<QTextBrowser*>("transcript");
    const QTextDocument* doc = transcript->document();
    QVERIFY2(!doc->toPlainText().contains("**") && !doc->toPlainText().contains("```"),
             qPrintable(doc->toPlainText()));
    bool bold = false, code = false;
    for (QTextBlock b = doc->begin(); b.isValid(); b = b.next())
      for (auto it = b.begin(); !it.atEnd(); ++it) {
        const QTextCharFormat f = it.fragment().charFormat();
        bold = bold || (it.fragment().text() == "bold" && f.fontWeight() == QFont::Bold);
        code = code ||
               (it.fragment().text().contains("int main()") &&
                (f.fontFixedPitch() || QFontInfo(f.font()).fixedPitch() ||
                 f.fontFamilies().toStringList().join(',').contains("mono", Qt::CaseInsensitive)));
      }
    QVERIFY(bold);
    QVERIFY(code);
    QCOMPARE(window_->chatPanel()->copyLinks(),
             QStringList({"copy:message/0", "copy:message/1", "copy:code/1/0"}));
    // Click where each Copy button is drawn.
    const auto clickLink = [&](const QString& href) {
      for (QTextBlock b = doc->begin(); b.isValid(); b = b.next())
        for (auto it = b.begin(); !it.atEnd(); ++it)
          if (it.fragment().charFormat().anchorHref() == href) {
            QTextCursor c(transcript->document());
            c.setPosition(it.fragment().position() + 1);
            const QPoint at = transcript->cursorRect(c).center();
            QTest::mouseClick(transcript->viewport(), Qt::LeftButton, {}, at);
            return true;
          }
      return false;
    };
    QGuiApplication::clipboard()->clear();
    QVERIFY(clickLink("copy:code/1/0"));
    QTRY_COMPARE(QGuiApplication::clipboard()->text(), QString("int main() { return 0; }"));
    QVERIFY(window_->statusBar()->currentMessage().contains("code block"));
    QVERIFY(clickLink("copy:message/1"));
    QTRY_COMPARE(QGuiApplication::clipboard()->text(), QString::fromStdString(answer));
    QVERIFY(clickLink("copy:message/0"));
    QTRY_COMPARE(QGuiApplication::clipboard()->text(), QString("show me code"));
    window_->findChild<QAction*>("renderMarkdownAction")->trigger();
    QVERIFY(doc->toPlainText().contains("**bold**"));
    QCOMPARE(window_->chatPanel()->copyLinks(), QStringList({"copy:message/0", "copy:message/1"}));
    window_->findChild<QAction*>("renderMarkdownAction")->trigger();
    QVERIFY(!doc->toPlainText().contains("**bold**"));
  }

  // View toggles survive into the next window (ui.ini).
  void viewTogglesAreRemembered() {
    auto* markdown = window_->findChild<QAction*>("renderMarkdownAction");
    QVERIFY(markdown->isChecked());
    markdown->trigger();
    window_->findChild<QAction*>("markDraftedAction")->trigger();
    cleanup();
    init();
    QVERIFY(!window_->findChild<QAction*>("renderMarkdownAction")->isChecked());
    QVERIFY(window_->findChild<QAction*>("markDraftedAction")->isChecked());
    QVERIFY(window_->chatPanel()->marksDrafted());
    window_->findChild<QAction*>("renderMarkdownAction")->trigger();  // as the others expect
    window_->findChild<QAction*>("markDraftedAction")->trigger();
  }

  // Help → Keyboard shortcuts (Ctrl+/) lists the keys, read from the menus themselves.
  void shortcutsAreListed() {
    QTest::keyClick(window_.get(), Qt::Key_Slash, Qt::ControlModifier);
    QTRY_VERIFY(window_->findChild<QDialog*>("shortcutsDialog"));
    auto* table = window_->findChild<QDialog*>("shortcutsDialog")->findChild<QTableWidget*>();
    QVERIFY(table);
    QStringList rows;
    for (int r = 0; r < table->rowCount(); ++r)
      rows << table->item(r, 0)->text() + " = " + table->item(r, 1)->text();
    const QString all = rows.join('\n');
    for (const QString& expected :
         {QString("Ctrl+Return = Send the message"), QString("Esc = Stop generating"),
          QString("Ctrl+N = File → New chat"), QString("Ctrl+Shift+P = View → Focus parameters"),
          QString("Ctrl+Shift+C = View → Compare the last two runs"),
          QString("Ctrl+/ or F1 = Help → Keyboard shortcuts")})
      QVERIFY2(all.contains(expected), qPrintable(expected + " not in:\n" + all));
    window_->findChild<QDialog*>("shortcutsDialog")->close();
  }

  void errorIsShownWithTheFix() {
    ServerScript s;
    s.required_key = "sk-right";
    server_.setScript(s);
    qunsetenv("TS_GUI_TEST_KEY");
    setProvider("TS_GUI_TEST_KEY");
    QSignalSpy shown(window_.get(), &ui::MainWindow::runDisplayed);
    typeAndSend("hi");
    QVERIFY(shown.wait(10000));
    const QString transcript = window_->chatPanel()->transcriptText();
    QVERIFY2(transcript.contains("HTTP 401") && transcript.contains("TS_GUI_TEST_KEY is not set"),
             qPrintable(transcript));
    QCOMPARE(label("ttftValue"), QString("—"));
    QVERIFY(window_->findChild<QPushButton*>("sendButton")->isEnabled());
  }

  void providerDialogPreviewsTheUrlAndTheKeyVariable() {
    qunsetenv("TS_DIALOG_KEY");
    ui::ProviderDialog dialog(
        {"Gateway", "https://taotoken.net/api/v1/", "baichuan", "TS_DIALOG_KEY", 60, 2},
        &previewBaseUrl);
    auto* note = dialog.findChild<QLabel*>("providerUrlNote");
    QVERIFY2(note->text().contains("https://taotoken.net/api/v1/chat/completions"),
             qPrintable(note->text()));
    QVERIFY(note->text().contains("removed a trailing /v1"));
    QVERIFY(
        dialog.findChild<QLabel*>("providerKeyNote")->text().contains("TS_DIALOG_KEY is not set"));
    auto* ok = dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
    QVERIFY(ok->isEnabled());
    auto* url = dialog.findChild<QLineEdit*>("providerBaseUrl");
    url->setText("ftp://nope");
    QVERIFY(!ok->isEnabled());
    QVERIFY(note->text().contains("expected http or https"));
    auto* kind = dialog.findChild<QComboBox*>("providerKind");
    QCOMPARE(kind->count(), 2);
    // A local provider names a model file that must exist; no key, no URL preview.
    kind->setCurrentIndex(1);
    url->setText("/nonexistent/model.gguf");
    QVERIFY(!ok->isEnabled());
    QVERIFY(note->text().contains("exists on this machine"));
    if (QFile::exists(localModel())) {  // the shared fixtures: a model file that exists
      url->setText(localModel());
      QVERIFY(ok->isEnabled());
      QVERIFY2(note->text().contains("Runs ") && note->text().contains("aidreams260K.gguf"),
               qPrintable(note->text()));
      QCOMPARE(dialog.settings().kind, ProviderKind::LocalEngine);
      QCOMPARE(dialog.settings().base_url, localModel().toStdString());
    }
    kind->setCurrentIndex(0);
    url->setText("  https://taotoken.net/api  ");
    const ProviderSettings s = dialog.settings();
    QCOMPARE(s.base_url, std::string("https://taotoken.net/api"));
    QCOMPARE(s.api_key_env, std::string("TS_DIALOG_KEY"));
    QCOMPARE(s.kind, ProviderKind::Remote);
  }

  void importingAConfigSelectsItsProviderAndValues() {
    const QString path = dir_.filePath("import.toml");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QString("[provider]\nname = \"imported\"\nbase_url = \"%1\"\napi_key_env = \"\"\n"
                    "[model]\ndefault = \"test-model\"\n[inference]\ntemperature = 0.15\n"
                    "max_tokens = 4\n")
                .arg(QString::fromStdString(server_.baseUrl()))
                .toUtf8());
    f.close();
    QCOMPARE(controller_->importConfig(path), QString());
    QCOMPARE(window_->currentProviderSettings()->name, std::string("imported"));
    QCOMPARE(window_->findChild<QDoubleSpinBox*>("temperatureSpin")->value(), 0.15);
    server_.setScript(ServerScript{});
    QSignalSpy shown(window_.get(), &ui::MainWindow::runDisplayed);
    typeAndSend("hi");
    QVERIFY(shown.wait(10000));
    QCOMPARE(window_->chatPanel()->lastAssistantText(),
             QString::fromStdString(OpenAiTestServer::expectedText(ServerScript{}, 4)));
    // The effective configuration names the file, and what the UI changed.
    window_->findChild<QDoubleSpinBox*>("temperatureSpin")->setValue(0.5);
    const config::EffectiveConfig effective = controller_->effectiveConfig();
    QCOMPARE(effective.describeSource("default_model"), "config file " + path);
    QCOMPARE(effective.describeSource("inference.temperature"), QString("set in the UI"));
    QCOMPARE(effective.value("inference.temperature").toDouble(), 0.5);
    // Export what is in effect, import it again: the same values.
    const QString out = dir_.filePath("exported.json");
    QCOMPARE(controller_->exportConfig(out), QString());
    const config::ConfigFile back = config::readConfigFile(out);
    QVERIFY2(back.ok(), qPrintable(back.errorText()));
    QCOMPARE(back.values, effective.values());
  }

  void importingABadConfigChangesNothingAndSaysWhere() {
    setProvider();
    const QString path = dir_.filePath("bad.json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\n  \"inference\": {\"top_p\": 3}\n}");
    f.close();
    const QString error = controller_->importConfig(path);
    QVERIFY2(
        error.contains(path + ":2:17: inference.top_p: expected a number from 0 to 1, found 3"),
        qPrintable(error));
    QCOMPARE(window_->currentProviderSettings()->name, std::string("Test server"));
    QCOMPARE(window_->findChild<QDoubleSpinBox*>("topPSpin")->value(), 0.9);
  }

  void doctorDialogShowsEveryStep() {
    server_.setScript(ServerScript{});
    setProvider();
    emit window_->doctorRequested(*window_->currentProviderSettings());
    ui::TableDialog* dialog = nullptr;
    QTRY_VERIFY((dialog = window_->findChild<ui::TableDialog*>("doctorDialog")) != nullptr);
    auto* summary = dialog->findChild<QLabel*>("tableDialogSummary");
    QTRY_VERIFY_WITH_TIMEOUT(summary->text().startsWith("All steps passed"), 10000);
    QCOMPARE(dialog->table()->rowCount(), 4);
    QCOMPARE(dialog->table()->item(0, 0)->text(), QString("connect"));
    QCOMPARE(dialog->table()->item(2, 1)->text(), QString("pass"));
    QVERIFY(summary->text().contains("usage chunk: sent"));
    dialog->close();
  }

  void providersCanBeAddedDuplicatedRenamedReorderedDeleted() {
    ProviderSettings a{"A", "http://127.0.0.1:1", "m", "KEY_A", 60, 2, KeySource::Keychain};
    a.id = "id-a";
    ProviderSettings b{"B", "http://127.0.0.1:2", "m", "", 60, 2};
    b.id = "id-b";
    ui::ProvidersDialog d({a, b}, 0, ProviderStore::presets().providers, &previewBaseUrl);
    d.duplicateCurrent();
    QCOMPARE(d.providers().size(), size_t{3});
    QCOMPARE(d.providers()[1].name, std::string("A copy"));
    QVERIFY(d.providers()[1].id != "id-a" && !d.providers()[1].id.empty());
    QCOMPARE(d.providers()[1].key_source, KeySource::Environment);  // the key stays with A
    QString error;
    QVERIFY(!d.renameCurrent("b", &error));
    QVERIFY(error.contains("already exists"));
    QVERIFY(d.renameCurrent("Staging", &error));
    d.moveCurrent(+1);
    QCOMPARE(d.providers()[2].name, std::string("Staging"));
    QCOMPARE(d.current(), 2);
    d.moveCurrent(+1);  // already last: nothing moves
    QCOMPARE(d.providers()[2].name, std::string("Staging"));
    d.removeCurrent();
    QCOMPARE(d.providers().size(), size_t{2});
    d.addProvider(ProviderStore::presets().providers[0]);
    QCOMPARE(d.providers().back().name, std::string("TaoToken"));
    QCOMPARE(d.providers().back().base_url, std::string("https://taotoken.net/api"));
    d.addProvider(ProviderStore::presets().providers[0]);
    QCOMPARE(d.providers().back().name, std::string("TaoToken (2)"));
    QCOMPARE(d.providers()[0].id, std::string("id-a"));  // ids survive every edit
  }

  void modelPickerIsFilledFromTheEndpoint() {
    ServerScript s;
    s.models = {"test-model", "baichuan2-13b-chat", "qwen"};
    server_.setScript(s);
    setProvider();
    window_->findChild<QAction*>("refreshModelsAction")->trigger();
    auto* combo = window_->findChild<QComboBox*>("modelCombo");
    QTRY_COMPARE_WITH_TIMEOUT(combo->count(), 3, 5000);
    QCOMPARE(window_->model(), QString("test-model"));  // what was typed stays
    combo->setEditText("an-unlisted-id");               // free text still works
    QCOMPARE(window_->model(), QString("an-unlisted-id"));
  }

  void emptyMessageIsNotSent() {
    setProvider();
    server_.clearRequests();
    QTest::mouseClick(window_->findChild<QPushButton*>("sendButton"), Qt::LeftButton);
    QVERIFY(!window_->isRunning());
    QVERIFY(server_.requests().empty());
  }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
