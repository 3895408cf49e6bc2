// Issue 42, item 5: the window tour of the records — History (many runs: chats, benchmark
// steps, long provider and model names), the comparison (two runs; two benchmark groups; a
// speculative run against a plain one; a plain run against one with other weights and
// speculative sampling, whose banner offers the single-lever commands) and the benchmark
// dialog (a finished concurrency sweep 1, 2, 4, 8 and a prefill-chunk sweep) — on a
// 1024 × 700 and a 1600 × 1000 screen, in English and in Chinese. Each window opens at its
// default size, which must lie on the screen, and shows no text cut
// (tests/support/text_fit.h), no scrollbar on the comparison's tables, a History without a
// horizontal scrollbar that still shows usual names and dates whole, chart and axis titles
// that fit, and trade-off labels that neither overlap nor leave
// the plot.
//
// The screen is the offscreen platform's, sized by a config file, so main() runs this test
// once per screen size as a child process (TOKENSCOPE_TOUR_SCREEN=WxH); the languages are
// rows of each test. Where TOKENSCOPE_TOUR_SHOTS names a folder, every window's grab() is
// saved there as <window>-<lang>-<W>x<H>.png.
#include <QAbstractItemModel>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QGraphicsTextItem>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QScreen>
#include <QScrollBar>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTranslator>
#include <QValueAxis>
#include <cmath>

#include "app/desktop/history_controller.h"
#include "app/desktop/language.h"
#include "app/store/run_store.h"
#include "tests/support/text_fit.h"
#include "ui/benchmark_dialog.h"
#include "ui/comparison_view.h"
#include "ui/history_dialog.h"
#include "ui/main_window.h"
#include "ui/sweep_chart.h"
#include "ui/tradeoff_chart.h"

using namespace ts;

namespace {

const QString kLongModel = "bench-7b-shape-Q4_K_M-with-a-long-file-name.gguf";

// The UI language for one test row: Chinese installs the app's translations (as the app
// does at start); leaving removes them again.
class Language {
 public:
  explicit Language(const QString& code) {
    qputenv("TOKENSCOPE_LANGUAGE", code.toUtf8());
    ts::installTranslations(*qApp);
  }
  ~Language() {
    for (QTranslator* t : qApp->findChildren<QTranslator*>()) {
      QCoreApplication::removeTranslator(t);
      delete t;
    }
    qunsetenv("TOKENSCOPE_LANGUAGE");
  }
};

// One finished run of `chunks` chunks `gap_ms` apart after `ttft_ms`. Local runs (a
// backend set) carry the scheduler's batch per chunk, a prefill and, when speculative, the
// drafted and accepted tokens.
qint64 storeRun(RunStore& store, RunContext context, const QString& prompt, double temperature,
                int ttft_ms, int gap_ms, int chunks) {
  GenerationRequest request;
  request.messages = {{"user", prompt.toStdString()}};
  request.params.temperature = temperature;
  request.params.max_tokens = 256;
  if (!context.speculative.isEmpty()) request.params.draft = "self-int4";
  const bool local = !context.backend.isEmpty();
  RecordedRun run;
  run.start_ns = 0;
  run.events.push_back(StreamEvent::started(0));
  for (int i = 0; i < chunks; ++i) {
    StreamEvent chunk =
        StreamEvent::chunk((ttft_ms + int64_t(gap_ms) * i) * 1000000LL, " token", local ? 1 : 0);
    if (local) chunk.batch = 1 + i % 3;
    chunk.drafted = !context.speculative.isEmpty() && i % 2 == 1;
    run.events.push_back(chunk);
  }
  const int64_t end_ns = (ttft_ms + int64_t(gap_ms) * chunks) * 1000000LL;
  StreamEvent usage = StreamEvent::usage(end_ns, 412, chunks);
  if (local) usage.prefill_ns = int64_t(ttft_ms) * 800000LL;
  if (!context.speculative.isEmpty()) {
    usage.drafted_tokens = chunks;
    usage.accepted_tokens = chunks / 2;
  }
  run.events.push_back(usage);
  run.events.push_back(StreamEvent::finished(end_ns, "stop"));
  RunStoreWriter writer(store, request, context);
  writer.finish(run);
  return writer.id();
}

struct Runs {
  QList<qint64> chats;   // two chats on two providers
  QList<qint64> steps;   // one run of concurrency 2 and one of concurrency 8
  QList<qint64> local;   // a plain and a speculative local run
  QList<qint64> levers;  // the plain one and one with other weights and speculative sampling
};

// A store as a month of use leaves it: chats on a gateway and on a local model, benchmark
// steps of a concurrency sweep and of a prefill-chunk sweep, served requests.
Runs fillStore(RunStore& store) {
  Runs runs;
  const RunContext gateway{"TaoToken gateway", "https://api.taotoken.example/v1", "gpt-4o-mini"};
  RunContext local{"Local", "/home/user/models/" + kLongModel, kLongModel, "cpu", "q4_k_m", "f16"};
  RunContext speculative = local;
  speculative.speculative = "self-int4, K 4";
  const QString question =
      "Explain the difference between prefill and decode in a transformer, with an example "
      "of a long prompt and a short answer";
  for (int i = 0; i < 6; ++i) {
    RunContext chat = gateway;
    chat.tags = i % 2 ? QStringList{"latency", "gateway"} : QStringList{};
    const qint64 id = storeRun(store, chat, question, 0.2 + 0.1 * i, 240 + 10 * i, 14, 40);
    if (i >= 4) runs.chats << id;
    if (i == 5) store.setNote(id, "slow first token in the evening");
  }
  runs.chats.front() = storeRun(store, {"DeepSeek", "https://api.deepseek.com/v1", "deepseek-chat"},
                                question, 0.7, 410, 21, 40);
  for (const char* step : {"concurrency=1", "concurrency=2", "concurrency=4", "concurrency=8"})
    for (int r = 0; r < 3; ++r) {
      RunContext bench{"tokenscope-cli bench", "http://127.0.0.1:8080/v1", kLongModel};
      bench.group = QString("bench 2026-12-06T10:00:00Z ") + step;
      const int c = QString(step).section('=', 1).toInt();
      const qint64 id =
          storeRun(store, bench, "Write a short story about a robot who learns to paint.", 0.7,
                   90 + 40 * c + r, 7 + c, 32);
      if (r == 0 && (c == 2 || c == 8)) runs.steps << id;
    }
  for (const char* chunk : {"prefill_chunk=16", "prefill_chunk=256"}) {
    RunContext bench = local;
    bench.group = QString("bench 2026-12-06T11:00:00Z ") + chunk;
    storeRun(store, bench, "Summarise the attached report in three sentences.", 0.7, 900, 30, 24);
  }
  runs.local << storeRun(store, local, question, 0.7, 1300, 45, 48)
             << storeRun(store, speculative, question, 0.7, 1350, 28, 48);
  RunContext two_levers = speculative;
  two_levers.weights = "q8_0";
  runs.levers << runs.local.front() << storeRun(store, two_levers, question, 0.7, 1400, 30, 48);
  RunContext served = local;
  served.tags = {"served"};
  storeRun(store, served, "What is the capital of France?", 0.7, 300, 40, 8);
  return runs;
}

// A step's figures as BenchResult::json gives them (ms).
QJsonObject stepFigures(double value, double ttft_p99, double tpot_p99) {
  const auto stat = [](double p99) {
    return QJsonObject{{"mean", p99 * 0.8}, {"p50", p99 * 0.7}, {"p90", p99 * 0.9}, {"p99", p99}};
  };
  return {{"value", value},
          {"requests_completed", 20},
          {"requests_failed", 0},
          {"duration_s", 12.5},
          {"ttft_ms", stat(ttft_p99)},
          {"tpot_ms", stat(tpot_p99)},
          {"itl_ms", stat(tpot_p99)},
          {"e2e_ms", stat(ttft_p99 + 127 * tpot_p99)},
          {"output_throughput_tok_s", 1234.5},
          {"goodput_req_s", 12.25}};
}

// Chart and axis titles under `root` that do not fit (Qt Charts cuts them to "inter-token
// latency …"): a chart's title against the chart's width, an axis title against the side of
// the plot it is written along; ticks on round numbers (1, 2, 2.5 or 5 × 10^k, both ends on a
// tick). One line per problem.
QStringList chartProblems(const QWidget* root) {
  QStringList out;
  for (QChartView* view : root->findChildren<QChartView*>()) {
    if (!view->isVisibleTo(root)) continue;
    QChart* chart = view->chart();
    const QFontMetricsF title(chart->titleFont());
    const double margins = chart->margins().left() + chart->margins().right();
    if (title.horizontalAdvance(chart->title()) > chart->size().width() - margins)
      out << QString("chart title '%1' needs %2 px, has %3")
                 .arg(chart->title())
                 .arg(title.horizontalAdvance(chart->title()))
                 .arg(chart->size().width() - margins);
    // what Qt Charts drew cut ("inter-token latency ...", "bench 2026-12-0..."), rotated
    // titles included: the text it measures with the fallback font for Chinese
    for (const QGraphicsItem* item : view->scene()->items()) {
      const auto* text = dynamic_cast<const QGraphicsTextItem*>(item);
      if (text && text->isVisible() &&
          (text->toPlainText().endsWith("...") || text->toPlainText().endsWith(QChar(0x2026))))
        out << QString("'%1' drawn cut in '%2'").arg(text->toPlainText(), chart->title());
    }
    for (QAbstractAxis* axis : chart->axes()) {
      const QString where = chart->title() + " / " + axis->titleText() + ": ";
      if (auto* values = qobject_cast<QValueAxis*>(axis)) {
        const double step = (values->max() - values->min()) / (values->tickCount() - 1);
        const double magnitude = std::pow(10.0, std::floor(std::log10(step) + 1e-12));
        bool round = false;
        for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
          round = round || std::abs(step / magnitude - m) < 1e-9;
        const double ticks_to_min = values->min() / step;
        if (!round || std::abs(ticks_to_min - std::round(ticks_to_min)) > 1e-6)
          out << where + QString("ticks from %1 every %2").arg(values->min()).arg(step);
      }
      if (axis->titleText().isEmpty() || !axis->isVisible()) continue;
      const double room = axis->orientation() == Qt::Vertical ? chart->plotArea().height()
                                                              : chart->plotArea().width();
      const double needs = QFontMetricsF(axis->titleFont()).horizontalAdvance(axis->titleText());
      if (needs > room) out << where + QString("title needs %1 px, has %2").arg(needs).arg(room);
    }
  }
  return out;
}

// The trade-off's shown labels: inside the plot, none over another. One line per problem.
QStringList tradeoffProblems(const ui::TradeoffChart* chart) {
  QStringList out;
  const QList<QRectF> rects = chart->labelRects();
  const QStringList shown = chart->shownLabels();
  for (int i = 0; i < rects.size(); ++i) {
    if (!chart->plotArea().contains(rects[i])) out << "'" + shown.value(i) + "' leaves the plot";
    for (int j = i + 1; j < rects.size(); ++j)
      if (rects[i].intersects(rects[j]))
        out << "'" + shown.value(i) + "' over '" + shown.value(j) + "'";
  }
  return out;
}

}  // namespace

class TestRecordsTour : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QSize screen_;
  std::unique_ptr<RunStore> store_;
  Runs runs_;

  QString shotName(const QString& window) const {
    return QString("%1-%2-%3x%4.png")
        .arg(window, QTest::currentDataTag())
        .arg(screen_.width())
        .arg(screen_.height());
  }

  // The main window as the app shows it, which the dialogs open over.
  void showMainWindow(ui::MainWindow& window) {
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
  }

  // What every window must be: on the screen at its default size, shrinkable to 1024 × 700,
  // no text cut, whole chart titles. Saves its shot first where asked.
  void checkWindow(QWidget* window, const QString& name) {
    QVERIFY(QTest::qWaitForWindowExposed(window));
    QApplication::processEvents();
    // the shot first: it shows what a failure below is about
    const QString shots = qEnvironmentVariable("TOKENSCOPE_TOUR_SHOTS");
    if (!shots.isEmpty()) {
      QDir().mkpath(shots);
      QVERIFY(window->grab().save(QDir(shots).filePath(shotName(name))));
    }
    // the whole window, frame included, fits the screen (where on it is the window
    // manager's choice: Qt's centring leaves a frame's border off the edge)
    const QRect screen = window->screen()->availableGeometry();
    const QSize frame = window->frameGeometry().size();
    QVERIFY2(frame.width() <= screen.width() && frame.height() <= screen.height(),
             qPrintable(QString("%1 is %2 × %3 on a %4 × %5 screen")
                            .arg(name)
                            .arg(frame.width())
                            .arg(frame.height())
                            .arg(screen.width())
                            .arg(screen.height())));
    const QSize least = window->minimumSizeHint().expandedTo(window->minimumSize());
    QVERIFY2(least.width() <= 1024 && least.height() <= 700,
             qPrintable(
                 QString("%1: minimum %2 × %3").arg(name).arg(least.width()).arg(least.height())));
    QTRY_COMPARE(ts::testing::clippedTexts(window).join("\n"), QString());
    QTRY_COMPARE(ts::testing::clippedPlaceholders(window).join("\n"), QString());
    QTRY_COMPARE(chartProblems(window).join("\n"), QString());
  }

  // The benchmark dialog as the app opens it, after a finished sweep of `kind` over `values`
  // whose steps had these (TTFT p99, TPOT p99) in ms.
  void checkSweep(ui::MainWindow& window, bool local, ui::SweepKind kind, const QString& values,
                  const QList<QPointF>& latencies, const QString& name) {
    auto* dialog = new ui::BenchmarkDialog(
        local ? QCoreApplication::translate("ts::BenchmarkController",
                                            "the local model, served on 127.0.0.1 for each step")
              : QString("http://127.0.0.1:8080/v1"),
        kLongModel, &window, local);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
    auto* axis = dialog->findChild<QComboBox*>("benchAxis");
    axis->setCurrentIndex(axis->findData(static_cast<int>(kind)));
    dialog->findChild<QLineEdit*>("benchValues")->setText(values);
    dialog->findChild<QPushButton*>("benchStart")->click();
    QJsonArray steps;
    const QStringList typed = values.split(',');
    for (int i = 0; i < typed.size(); ++i) {
      const QJsonObject f = stepFigures(typed[i].toDouble(), latencies[i].x(), latencies[i].y());
      dialog->onProgress(i, int(typed.size()), 20, 20);
      dialog->onStepFinished(typed[i].toDouble(), f);
      steps.append(f);
    }
    dialog->onFinished(false, int(typed.size()),
                       {{"axis", "concurrency"}, {"steps", steps}, {"slo", QJsonObject{}}});
    checkWindow(dialog, name);
    // the steps' table shows its four rows without a scrollbar (nor does anything else)
    QCOMPARE(ts::testing::visibleScrollBars(dialog).join(", "), QString());
    QTRY_COMPARE(tradeoffProblems(dialog->tradeoffChart()).join("\n"), QString());
    // every point named where the points do not crowd (these are well apart)
    QCOMPARE(dialog->tradeoffChart()->shownLabels().size(), typed.size());
    dialog->close();
  }

  // The comparison of `ids` as History opens it: the checks of every window, and its tables
  // whole without scrollbars; the banner that the runs differ in two levers where `banner`.
  void checkComparison(HistoryController& history, const QList<qint64>& ids, bool groups,
                       const QString& name, bool banner = false) {
    ui::ComparisonView* view = history.compare(ids, groups);
    QVERIFY(view);
    QCOMPARE(view->findChild<QWidget*>("attributionBanner") != nullptr, banner);
    checkWindow(view, name);
    // the tables (and the charts) on the page: none with a scrollbar of its own
    QWidget* page = view->findChild<QWidget*>("comparisonContent");
    QVERIFY(page);
    for (const char* table : {"comparisonTable", "settingsDiffTable"})
      QVERIFY(page->findChild<QTableWidget*>(table));
    QCOMPARE(ts::testing::visibleScrollBars(page).join(", "), QString());
    view->close();
  }

 private slots:
  void initTestCase() {
    qputenv("TOKENSCOPE_CONFIG_DIR", dir_.filePath("config").toUtf8());
    const QStringList size = qEnvironmentVariable("TOKENSCOPE_TOUR_SCREEN").split('x');
    screen_ = QSize(size.value(0).toInt(), size.value(1).toInt());
    QCOMPARE(QGuiApplication::primaryScreen()->size(), screen_);
    store_ = std::make_unique<RunStore>(dir_.filePath("runs.sqlite"));
    QVERIFY(store_->isOpen());
    runs_ = fillStore(*store_);
  }

  void languages_data() {
    QTest::addColumn<QString>("language");
    QTest::newRow("en") << "en";
    QTest::newRow("zh_CN") << "zh_CN";
  }

  void history_data() { languages_data(); }
  // Every run on one line, no horizontal scrollbar, usual names and dates whole, a long
  // model name elided with the whole name in its tooltip.
  void history() {
    QFETCH(QString, language);
    Language speaking(language);
    ui::MainWindow window;
    showMainWindow(window);
    HistoryController history(&window);
    history.setStore(store_.get());
    ui::HistoryDialog* dialog = history.open();
    QVERIFY(dialog);
    QCOMPARE(dialog->rowCount(), 25);
    checkWindow(dialog, "history");
    auto* table = dialog->findChild<QTableView*>("historyTable");
    QVERIFY(!table->horizontalScrollBar()->isVisible());
    const QAbstractItemModel* rows = table->model();
    QHeaderView* header = table->horizontalHeader();
    const QFontMetrics metrics(table->font());
    const int margin = 2 * (table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin) + 1);
    bool long_name = false;
    for (int r = 0; r < rows->rowCount(); ++r)
      for (int c = 0; c < rows->columnCount(); ++c) {
        const QString text = rows->index(r, c).data().toString();
        const bool usual = text == "TaoToken gateway" || text == "gpt-4o-mini" ||
                           text.contains(QRegularExpression("^\\d{4}-\\d\\d-\\d\\d \\d\\d:"));
        if (usual)
          QVERIFY2(metrics.horizontalAdvance(text) + margin <= header->sectionSize(c),
                   qPrintable(QString("'%1' needs %2 px, its column has %3")
                                  .arg(text)
                                  .arg(metrics.horizontalAdvance(text) + margin)
                                  .arg(header->sectionSize(c))));
        if (text == kLongModel) {
          long_name = true;
          QCOMPARE(rows->index(r, c).data(Qt::ToolTipRole).toString(), kLongModel);
        }
      }
    QVERIFY(long_name);
    dialog->close();
  }

  void comparison_data() { languages_data(); }
  // Two chats; two benchmark steps as groups; a speculative run against a plain one; two
  // levers at once (the warning banner with its buttons above the tables).
  void comparison() {
    QFETCH(QString, language);
    Language speaking(language);
    ui::MainWindow window;
    showMainWindow(window);
    HistoryController history(&window);
    history.setStore(store_.get());
    checkComparison(history, runs_.chats, false, "comparison-runs");
    checkComparison(history, runs_.steps, true, "comparison-groups");
    checkComparison(history, runs_.local, false, "comparison-speculative");
    checkComparison(history, runs_.levers, false, "comparison-two-levers", true);
  }

  void benchmark_data() { languages_data(); }
  // A concurrency sweep 1, 2, 4, 8 on a gateway and a prefill-chunk sweep on a local model.
  void benchmark() {
    QFETCH(QString, language);
    Language speaking(language);
    ui::MainWindow window;
    showMainWindow(window);
    checkSweep(window, false, ui::SweepKind::Concurrency, "1,2,4,8",
               {{120, 9}, {180, 11}, {320, 15}, {650, 24}}, "benchmark-concurrency");
    checkSweep(window, true, ui::SweepKind::PrefillChunk, "16,64,256,0",
               {{2400, 30}, {1300, 45}, {900, 70}, {800, 110}}, "benchmark-prefill");
  }
};

// Without TOKENSCOPE_TOUR_SCREEN: runs itself once per screen size on an offscreen screen
// of that size (the arguments passed on), and fails when either run fails.
int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("TOKENSCOPE_TOUR_SCREEN")) {
    QCoreApplication app(argc, argv);
    QTemporaryDir dir;
    int failed = 0;
    for (const QSize size : {QSize(1024, 700), QSize(1600, 1000)}) {
      const QString config = dir.filePath(QString("screen-%1.json").arg(size.width()));
      QFile file(config);
      const QJsonObject screen{{"name", "tour"},
                               {"x", 0},
                               {"y", 0},
                               {"width", size.width()},
                               {"height", size.height()},
                               {"logicalDpi", 96},
                               {"logicalBaseDpi", 96},
                               {"dpr", 1}};
      if (!file.open(QIODevice::WriteOnly) ||
          file.write(QJsonDocument(QJsonObject{{"screens", QJsonArray{screen}}}).toJson()) < 0)
        return 2;
      file.close();
      QProcess child;
      QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
      env.insert("QT_QPA_PLATFORM", "offscreen:configfile=" + config);
      env.insert("TOKENSCOPE_TOUR_SCREEN", QString("%1x%2").arg(size.width()).arg(size.height()));
      child.setProcessEnvironment(env);
      child.setProcessChannelMode(QProcess::ForwardedChannels);
      child.start(QCoreApplication::applicationFilePath(), app.arguments().mid(1));
      if (!child.waitForFinished(-1) || child.exitStatus() != QProcess::NormalExit ||
          child.exitCode() != 0)
        ++failed;
    }
    return failed;
  }
  QApplication app(argc, argv);
  TestRecordsTour tour;
  return QTest::qExec(&tour, argc, argv);
}

#include "test_records_tour.moc"
