// History and Compare driven through HistoryController on a real run store (issue 42): a
// benchmark run shows its step in History, "Compare the last two" selects both runs there,
// and two benchmark steps compared as groups list their concurrency as the difference,
// with labels that tell them apart; two local runs that differ in weights and speculative
// sampling are flagged, and the banner's button copies the lab command that measures the
// weights alone.
#include <QClipboard>
#include <QGuiApplication>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include "app/desktop/history_controller.h"
#include "app/store/run_store.h"
#include "ui/comparison_view.h"
#include "ui/history_dialog.h"
#include "ui/main_window.h"

using namespace ts;

namespace {

// Stores one finished run of `chunks` chunks in `group` ("" for a chat run); `context` is
// where it ran.
qint64 storeRun(RunStore& store, const QString& group, int chunks,
                RunContext context = {"TaoToken", "https://api.example/v1", "bench-7b"}) {
  GenerationRequest request;
  request.messages = {{"user", "Why is the first token slow?"}};
  context.group = group;
  RecordedRun run;
  run.start_ns = 0;
  run.events.push_back(StreamEvent::started(0));
  for (int i = 0; i < chunks; ++i)
    run.events.push_back(StreamEvent::chunk((100 + 10 * i) * 1000000LL, "t", 1));
  run.events.push_back(StreamEvent::finished((100 + 10 * chunks) * 1000000LL, "stop"));
  RunStoreWriter writer(store, request, context);
  writer.finish(run);
  return writer.id();
}

// A chat on a local model as ChatController records it: the model's path as base URL.
RunContext localRun(const QString& weights, const QString& speculative) {
  return {"Local model", "/home/user/models/bench-7b.gguf", "bench-7b", "cpu", weights, "f16",
          speculative};
}

}  // namespace

class TestHistoryCompare : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

 private slots:
  void historyShowsStepsAndComparesThem() {
    RunStore store(dir_.filePath("runs.sqlite"));
    QVERIFY(store.isOpen());
    for (int i = 0; i < 2; ++i) storeRun(store, "bench 2026-12-06T10:00:00Z concurrency=2", 4);
    for (int i = 0; i < 2; ++i) storeRun(store, "bench 2026-12-06T10:00:00Z concurrency=8", 6);
    ui::MainWindow window;
    HistoryController history(&window);
    history.setStore(&store);
    ui::HistoryDialog* dialog = history.open();
    QVERIFY(dialog);
    QCOMPARE(dialog->rowCount(), 4);
    auto* table = dialog->findChild<QTableView*>("historyTable");
    const QAbstractItemModel* rows = table->model();
    int benchmark = -1;
    for (int c = 0; c < rows->columnCount(); ++c)
      if (rows->headerData(c, Qt::Horizontal).toString() == "Benchmark") benchmark = c;
    QVERIFY(benchmark >= 0);
    QStringList steps;
    for (int r = 0; r < rows->rowCount(); ++r) steps << rows->index(r, benchmark).data().toString();
    steps.sort();
    QCOMPARE(steps,
             (QStringList{"concurrency 2", "concurrency 2", "concurrency 8", "concurrency 8"}));

    // "Compare the last two": both are selected in the open history
    ui::ComparisonView* latest = history.compareLatest();
    QVERIFY(latest);
    QCOMPARE(dialog->selectedIds().size(), 2);
    latest->close();

    // the two steps as groups: concurrency is what differs, and the columns say which
    const QList<StoredRun> runs = store.list();
    ui::ComparisonView* view = history.compare({runs.last().id, runs.first().id}, true);
    QVERIFY(view);
    auto* settings = view->findChild<QTableWidget*>("settingsDiffTable");
    QStringList differing;
    for (int r = 0; r < settings->rowCount(); ++r)
      differing << settings->verticalHeaderItem(r)->text();
    QVERIFY2(differing.contains("concurrency"), qPrintable(differing.join(", ")));
    const int row = static_cast<int>(differing.indexOf("concurrency"));
    QCOMPARE(settings->item(row, 0)->text(), QString("2"));
    QCOMPARE(settings->item(row, 1)->text(), QString("8"));
    auto* figures = view->findChild<QTableWidget*>("comparisonTable");
    QCOMPARE(figures->horizontalHeaderItem(0)->text(), QString("concurrency 2\n(2 runs)"));
    QCOMPARE(figures->horizontalHeaderItem(1)->text(), QString("concurrency 8\n(2 runs)"));
    view->close();
    dialog->close();
  }

  // Issue 43, item 5: weights and speculative sampling changed together cannot be told
  // apart; one click copies the command that measures the weights alone.
  void twoLeversAreFlaggedWithTheMissingComparison() {
    RunStore store(dir_.filePath("levers.sqlite"));
    QVERIFY(store.isOpen());
    const qint64 plain = storeRun(store, "", 4, localRun("auto", ""));
    const qint64 both = storeRun(store, "", 4, localRun("q8_0", "self-int4, K 4"));
    ui::MainWindow window;
    HistoryController history(&window);
    history.setStore(&store);
    ui::ComparisonView* view = history.compare({plain, both}, false);
    QVERIFY(view);
    QVERIFY(QTest::qWaitForWindowExposed(view));
    auto* warning = view->findChild<QLabel*>("attributionWarning");
    QVERIFY(warning);
    QVERIFY(warning->isVisible());
    QCOMPARE(warning->text(), QString("These runs differ in weights and speculative sampling: the "
                                      "difference cannot be attributed to either."));
    auto* weights = view->findChild<QPushButton*>("measureAlone_weights");
    auto* draft = view->findChild<QPushButton*>("measureAlone_draft");
    QVERIFY(weights && draft);
    QCOMPARE(weights->text(), QString("Measure weights alone…"));
    QCOMPARE(draft->text(), QString("Measure speculative sampling alone…"));
    QSignalSpy requested(view, &ui::ComparisonView::singleLeverRequested);
    QGuiApplication::clipboard()->clear();
    weights->click();
    const QString command =
        "tokenscope-cli lab --model /home/user/models/bench-7b.gguf --vary weights=q8_0 "
        "--repeat 5";
    QTRY_COMPARE(QGuiApplication::clipboard()->text(), command);
    QCOMPARE(requested.size(), 1);
    QCOMPARE(requested[0], (QVariantList{"weights", "q8_0"}));
    auto* copied = view->findChild<QLabel*>("attributionCopied");
    QVERIFY(copied->isVisible());
    QCOMPARE(copied->text(), "Copied: " + command);
    draft->click();
    QTRY_COMPARE(QGuiApplication::clipboard()->text(),
                 QString("tokenscope-cli lab --model /home/user/models/bench-7b.gguf --vary "
                         "draft=self-int4 --draft-k 4 --repeat 5"));
    QCOMPARE(requested.size(), 2);
    QCOMPARE(requested[1], (QVariantList{"draft", "self-int4"}));
    view->close();

    // the weights alone: nothing to flag
    const qint64 quantized = storeRun(store, "", 4, localRun("q8_0", ""));
    view = history.compare({plain, quantized}, false);
    QVERIFY(view);
    QVERIFY(QTest::qWaitForWindowExposed(view));
    QVERIFY(!view->findChild<QLabel*>("attributionWarning"));
    QVERIFY(!view->findChild<QWidget*>("attributionBanner"));
    view->close();
  }
};

QTEST_MAIN(TestHistoryCompare)
#include "test_history_compare.moc"
