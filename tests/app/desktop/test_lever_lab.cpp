// Issue 43, the Lever lab window as a user drives it (offscreen), over the demo model as the
// local provider: Tools → Lever lab… with a remote provider says to choose the local engine
// (and Provider → Try a lever… is off); a KV lever run fills the table (every metric row,
// intervals, the decode prediction), the progress bar ends at 100, the report is in the run
// store and the error chart has a point; Cancel stops a run (Run comes back, nothing
// stored); closing the window or the controller mid-run neither crashes nor hangs.
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include "app/desktop/app_controller.h"
#include "app/local/demo_model.h"
#include "app/local/model_paths.h"
#include "ui/elided_label.h"
#include "ui/lab_error_chart.h"
#include "ui/lever_lab_dialog.h"

using namespace ts;

namespace {
constexpr int kRunMs = 180000;  // a small lab on the demo model takes seconds; a loaded CI more
}

class TestLeverLab : public QObject {
  Q_OBJECT
  QTemporaryDir home_;
  std::unique_ptr<ui::MainWindow> window_;
  std::unique_ptr<AppController> controller_;

  ProviderSettings remote() const { return {"Remote", "http://127.0.0.1:9", "m", "", 5, 0}; }
  ProviderSettings local() const {
    ProviderSettings p{"Demo (local)",         demoModelPath().toStdString(), "demo", "", 60, 0,
                       KeySource::Environment, ProviderKind::LocalEngine};
    p.local.threads = 2;
    return p;
  }
  QAction* action(const char* name) const { return window_->findChild<QAction*>(name); }
  ui::LeverLabDialog* openLab() {
    action("leverLabAction")->trigger();
    ui::LeverLabDialog* d = controller_->lab().dialog();
    return d && QTest::qWaitForWindowExposed(d) ? d : nullptr;
  }
  template <typename T>
  T* child(QWidget* d, const char* name) {
    return d->findChild<T*>(name);
  }
  // A KV lever: int8 against the baseline's f16, `repeat` runs each of the lengths given.
  void chooseKv(ui::LeverLabDialog* d, int repeat, int prompt, int gen) {
    d->setLever("kv");
    QVERIFY(child<QCheckBox>(d, "value_int8")->isChecked());
    QVERIFY(!child<QCheckBox>(d, "value_f16")->isEnabled());  // the baseline's own
    child<QSpinBox>(d, "labRepeat")->setValue(repeat);
    child<QSpinBox>(d, "labPromptTokens")->setValue(prompt);
    child<QSpinBox>(d, "labGenTokens")->setValue(gen);
  }
  int storedReports() { return static_cast<int>(controller_->runStore()->labReports().size()); }

 private slots:
  void initTestCase() {
    qputenv("HOME", home_.path().toUtf8());
    qputenv("XDG_CACHE_HOME", home_.filePath("cache").toUtf8());  // the machine's rates
    qputenv("TOKENSCOPE_CONFIG_DIR", home_.filePath("config").toUtf8());
    QStandardPaths::setTestModeEnabled(true);
    const QString made = ensureDemoModel(demoModelPath());
    QVERIFY2(made.isEmpty(), qPrintable(made));
  }
  void init() {
    window_ = std::make_unique<ui::MainWindow>();
    window_->setProviders({remote(), local()}, 1);
    controller_ = std::make_unique<AppController>(window_.get(),
                                                  ProviderStore(home_.filePath("providers.json")),
                                                  home_.filePath("logs"), true);
    controller_->setRunStore(std::make_unique<RunStore>(home_.filePath("runs.sqlite")));
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
  }
  void cleanup() {
    controller_.reset();
    window_.reset();
  }

  // A remote provider has no levers to pull: the window says so instead of offering Run,
  // and Try a lever… is off until the local engine is chosen.
  void aRemoteProviderIsSentToTheLocalEngine() {
    window_->setProviders({remote(), local()}, 0);
    QVERIFY(!action("tryLeverAction")->isEnabled());
    ui::LeverLabDialog* d = openLab();
    QVERIFY(d);
    auto* why = child<QLabel>(d, "labUnavailable");
    QVERIFY(why->isVisible());
    QVERIFY2(why->text().contains("choose the local engine as provider"), qPrintable(why->text()));
    QVERIFY(!child<QPushButton>(d, "labRun")->isVisible());
    QVERIFY(!child<QComboBox>(d, "labLever")->isEnabled());
    window_->setProviders({remote(), local()}, 1);
    QVERIFY(action("tryLeverAction")->isEnabled());
    QVERIFY(!why->isVisible());
    QVERIFY(child<QPushButton>(d, "labRun")->isVisible());
    QVERIFY(child<QPushButton>(d, "labRun")->isEnabled());
    QVERIFY(child<QComboBox>(d, "labLever")->isEnabled());
    QVERIFY(!child<QProgressBar>(d, "labProgress")->isVisible());  // no "0%" before a run
    const QString baseline = child<ui::ElidedLabel>(d, "labBaseline")->text();
    QVERIFY2(baseline.contains(QFileInfo(demoModelPath()).fileName()) &&
                 baseline.contains("KV f16") && baseline.contains("2 threads"),
             qPrintable(baseline));
  }

  void aKvLeverFillsTheTableTheStoreAndTheChart() {
    action("tryLeverAction")->trigger();
    ui::LeverLabDialog* d = controller_->lab().dialog();
    QVERIFY(d && QTest::qWaitForWindowExposed(d));
    chooseKv(d, 2, 16, 8);
    auto* run = child<QPushButton>(d, "labRun");
    QVERIFY(run->isEnabled());
    QTest::keyClick(d, Qt::Key_Return, Qt::ControlModifier);  // Ctrl+Return runs
    QVERIFY(!run->isEnabled());
    QVERIFY(child<QPushButton>(d, "labCancel")->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(run->isEnabled(), kRunMs);
    const QString stage = child<ui::ElidedLabel>(d, "labStage")->text();
    QCOMPARE(child<QProgressBar>(d, "labProgress")->value(), 100);
    auto* table = child<QTableWidget>(d, "labTable");
    QCOMPARE(table->rowCount(), 7);  // one variant, every metric
    QStringList metrics;
    for (int r = 0; r < table->rowCount(); ++r) {
      QCOMPARE(table->item(r, 0)->text(), QString("int8"));
      metrics << table->item(r, 1)->text();
      const QString change = table->item(r, 4)->text();
      QVERIFY2((change.contains('[') && change.contains(']')) ||
                   change.contains("no measurable difference"),
               qPrintable(QString("%1: '%2' (%3)").arg(metrics.last(), change, stage)));
    }
    QCOMPARE(metrics, QStringList({"decode tok/s", "prefill tok/s", "TTFT ms", "TPOT ms",
                                   "ITL p50 ms", "ITL p99 ms", "peak memory MB"}));
    QVERIFY2(table->item(0, 5)->text().endsWith('%'), qPrintable(table->item(0, 5)->text()));
    QVERIFY2(table->item(0, 6)->text().endsWith('%'), qPrintable(table->item(0, 6)->text()));
    const QString accuracy = child<QLabel>(d, "labAccuracy")->text();
    QVERIFY2(accuracy.startsWith("int8: top-1 agreement ") && accuracy.contains("over 9 positions"),
             qPrintable(accuracy));
    // Kept in the run store, and the chart of past runs shows it.
    const auto stored = controller_->runStore()->labReports("kv");
    QCOMPARE(stored.size(), 1);
    QCOMPARE(stored.first().report.value("variants").toArray().size(), 1);
    auto* chart = child<ui::LabErrorChart>(d, "labErrorChart");
    QCOMPARE(chart->pointCount(), 1);
    // Copy report: the same rows as Markdown; Export JSON: the lab's JSON.
    QTest::mouseClick(child<QPushButton>(d, "labCopy"), Qt::LeftButton);
    const QString md = QApplication::clipboard()->text();
    QVERIFY2(md.contains("| int8 | decode tok/s |") && md.contains("top-1 agreement"),
             qPrintable(md));
    const QString json = home_.filePath("lab.json");
    QCOMPARE(d->saveJson(json), QString());
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject saved = QJsonDocument::fromJson(f.readAll()).object();
    QCOMPARE(saved.value("variants").toArray().at(0).toObject().value("value").toString(),
             QString("int8"));
    // A second run (Ctrl+Return again): two reports, two points on the chart.
    QTest::keyClick(d, Qt::Key_Return, Qt::ControlModifier);
    QVERIFY(controller_->lab().isRunning());
    QTRY_VERIFY_WITH_TIMEOUT(!controller_->lab().isRunning(), kRunMs);
    QCOMPARE(storedReports(), 2);
    QCOMPARE(chart->pointCount(), 2);
  }

  // Speculative sampling: one variant per draft source and K; its line says whether the
  // greedy output is the baseline's and how many drafts were accepted.
  void aDraftLeverSaysWhetherTheOutputIsIdentical() {
    ui::LeverLabDialog* d = openLab();
    QVERIFY(d);
    d->setLever("draft");
    QVERIFY(child<QCheckBox>(d, "value_self-int4")->isChecked());
    QVERIFY(child<QWidget>(d, "k_2")->isVisible());
    child<QCheckBox>(d, "k_2")->setChecked(true);
    child<QCheckBox>(d, "k_4")->setChecked(false);
    child<QSpinBox>(d, "labRepeat")->setValue(2);
    child<QSpinBox>(d, "labPromptTokens")->setValue(16);
    child<QSpinBox>(d, "labGenTokens")->setValue(16);
    QTest::mouseClick(child<QPushButton>(d, "labRun"), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(child<QPushButton>(d, "labRun")->isEnabled(), kRunMs);
    auto* table = child<QTableWidget>(d, "labTable");
    QCOMPARE(table->rowCount(), 7);
    QVERIFY2(table->item(0, 0)->text() == "self-int4", qPrintable(table->item(0, 0)->text()));
    const QString line = child<QLabel>(d, "labAccuracy")->text();
    QVERIFY2(
        line.startsWith("self-int4: greedy output identical; acceptance ") && line.endsWith('%'),
        qPrintable(line));
  }

  // Run the ladder: three steps (weights, KV, speculative) in the table, each step's lab
  // report kept, the report written as Markdown + JSON + charts, its Markdown on Copy.
  void theLadderWritesItsReport() {
    ui::LeverLabDialog* d = openLab();
    QVERIFY(d);
    child<QSpinBox>(d, "labRepeat")->setValue(2);
    child<QSpinBox>(d, "labPromptTokens")->setValue(16);
    child<QSpinBox>(d, "labGenTokens")->setValue(8);
    const int before = storedReports();
    QTest::mouseClick(child<QPushButton>(d, "labLadder"), Qt::LeftButton);
    QVERIFY(!child<QPushButton>(d, "labLadder")->isEnabled());  // running
    QTRY_VERIFY_WITH_TIMEOUT(child<QPushButton>(d, "labLadder")->isEnabled(), kRunMs);
    QCOMPARE(storedReports(), before + 3);
    auto* table = child<QTableWidget>(d, "labTable");
    QStringList variants;
    for (int r = 0; r < table->rowCount(); ++r)
      if (!variants.contains(table->item(r, 0)->text())) variants << table->item(r, 0)->text();
    QCOMPARE(variants, QStringList({"weights: q8_0", "weights: q4_k", "weights: q4_0", "kv: int8",
                                    "speculative: self-int4"}));
    const QString note = child<ui::ElidedLabel>(d, "labStage")->text();
    QVERIFY2(note.startsWith("The ladder kept: ") && note.endsWith("/ladder.md"), qPrintable(note));
    const QString md_path = note.section("Report: ", 1);
    QFile md(md_path);
    QVERIFY2(md.open(QIODevice::ReadOnly), qPrintable(md_path));
    const QString markdown = QString::fromUtf8(md.readAll());
    QVERIFY(QFile::exists(QFileInfo(md_path).dir().filePath("ladder.json")));
    QVERIFY(QFile::exists(QFileInfo(md_path).dir().filePath("ladder-decode.png")));
    QVERIFY(markdown.contains("| weights | q4_0 |"));
    QTest::mouseClick(child<QPushButton>(d, "labCopy"), Qt::LeftButton);
    QCOMPARE(QApplication::clipboard()->text(), markdown);
  }

  // The prefill lever runs the mixed load: the long prompts' TTFT and the streams' TPOT.
  void thePrefillLeverMeasuresTheMixedLoad() {
    ui::LeverLabDialog* d = openLab();
    QVERIFY(d);
    d->setLever("prefill");
    for (QCheckBox* c : d->findChildren<QCheckBox*>())
      if (c->objectName().startsWith("value_")) c->setChecked(c->objectName() == "value_chunk:64");
    child<QSpinBox>(d, "labRepeat")->setValue(2);
    child<QSpinBox>(d, "labPromptTokens")->setValue(16);
    child<QSpinBox>(d, "labGenTokens")->setValue(8);
    QTest::mouseClick(child<QPushButton>(d, "labRun"), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(child<QPushButton>(d, "labRun")->isEnabled(), kRunMs);
    auto* table = child<QTableWidget>(d, "labTable");
    QStringList metrics;
    for (int r = 0; r < table->rowCount(); ++r) metrics << table->item(r, 1)->text();
    QVERIFY2(
        metrics.contains("long prompts' TTFT p99 ms") && metrics.contains("streams' TPOT p99 ms"),
        qPrintable(metrics.join(", ")));
  }

  // The comparison's "Measure … alone…" opens the lab on that lever with that value only.
  void aComparisonOfferPresetsTheLab() {
    controller_->lab().openWith("weights", "q4_k");
    ui::LeverLabDialog* d = controller_->lab().dialog();
    QVERIFY(d && QTest::qWaitForWindowExposed(d));
    QCOMPARE(d->lever(), QString("weights"));
    QCOMPARE(d->request().values, QStringList({"q4_k"}));
    controller_->lab().openWith("draft", "/models/draft model.gguf");
    QCOMPARE(d->request().values, QStringList({"/models/draft model.gguf"}));
    QCOMPARE(child<QCheckBox>(d, "value_draft model.gguf")->toolTip(),
             QString("/models/draft model.gguf"));
  }

  // While something would disturb its timings (the app says what: the chat answering on
  // the local engine, a benchmark), Run says why and nothing starts.
  void aBusyEngineRefusesToStart() {
    ui::MainWindow window;
    window.setProviders({local()}, 0);
    const QString why = "The chat is answering on the local engine.";
    LabController lab(
        &window, [] { return nullptr; }, [&] { return why; });
    window.findChild<QAction*>("tryLeverAction")->trigger();
    ui::LeverLabDialog* d = lab.dialog();
    QVERIFY(d && QTest::qWaitForWindowExposed(d));
    QTest::mouseClick(child<QPushButton>(d, "labRun"), Qt::LeftButton);
    QVERIFY(!lab.isRunning());
    QCOMPARE(child<ui::ElidedLabel>(d, "labStage")->text(), why);
    QVERIFY(child<QPushButton>(d, "labRun")->isEnabled());
  }

  // Cancel while the interleaved runs go on: Run comes back, nothing is stored.
  void cancelStopsARun() {
    ui::LeverLabDialog* d = openLab();
    QVERIFY(d);
    chooseKv(d, 100, 256, 512);  // long enough to be cancelled mid-way
    const int before = storedReports();
    QTest::mouseClick(child<QPushButton>(d, "labRun"), Qt::LeftButton);
    auto* progress = child<QProgressBar>(d, "labProgress");
    QTRY_VERIFY_WITH_TIMEOUT(progress->value() >= 30, kRunMs);  // measuring A B A B …
    QTest::mouseClick(child<QPushButton>(d, "labCancel"), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(child<QPushButton>(d, "labRun")->isEnabled(), 30000);
    QVERIFY(!controller_->lab().isRunning());
    QVERIFY(!child<QPushButton>(d, "labCancel")->isEnabled());
    QVERIFY2(child<ui::ElidedLabel>(d, "labStage")->text().startsWith("Cancelled"),
             qPrintable(child<ui::ElidedLabel>(d, "labStage")->text()));
    QCOMPARE(storedReports(), before);
  }

  // Esc cancels a run first; closing the window mid-run ends the run; so does the
  // controller going away (a language switch rebuilds it): no crash, no hang, nothing kept.
  void closingMidRunNeitherCrashesNorHangs() {
    QPointer<ui::LeverLabDialog> d = openLab();
    QVERIFY(d);
    chooseKv(d, 100, 256, 512);  // long enough to be cancelled mid-way
    const int before = storedReports();
    QTest::mouseClick(child<QPushButton>(d, "labRun"), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(child<QProgressBar>(d, "labProgress")->value() > 0, kRunMs);
    QTest::keyClick(d, Qt::Key_Escape);
    QTRY_VERIFY_WITH_TIMEOUT(child<QPushButton>(d, "labRun")->isEnabled(), 30000);
    QVERIFY(d->isVisible());  // Esc cancelled; a second Esc closes
    QTest::mouseClick(child<QPushButton>(d, "labRun"), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(child<QProgressBar>(d, "labProgress")->value() > 0, kRunMs);
    d->close();
    QTRY_VERIFY(!d);  // deleted on close
    QTRY_VERIFY_WITH_TIMEOUT(!controller_->lab().isRunning(), 30000);
    QCOMPARE(storedReports(), before);
    // Again, and the controller goes away mid-run: it cancels and joins.
    d = openLab();
    QTest::mouseClick(child<QPushButton>(d, "labRun"), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(child<QProgressBar>(d, "labProgress")->value() > 0, kRunMs);
    QVERIFY(controller_->unfinishedWork().contains("the lever lab's run"));
    QElapsedTimer gone;
    gone.start();
    controller_.reset();
    QVERIFY2(gone.elapsed() < 30000, qPrintable(QString::number(gone.elapsed())));
    QVERIFY(!d);
  }
};

QTEST_MAIN(TestLeverLab)
#include "test_lever_lab.moc"
