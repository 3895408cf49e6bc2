// History and Compare driven through HistoryController on a real run store (issue 42): a
// benchmark run shows its step in History, "Compare the last two" selects both runs there,
// and two benchmark steps compared as groups list their concurrency as the difference,
// with labels that tell them apart.
#include <QHeaderView>
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

// Stores one finished run of `chunks` chunks in `group` ("" for a chat run).
void storeRun(RunStore& store, const QString& group, int chunks) {
  GenerationRequest request;
  request.messages = {{"user", "Why is the first token slow?"}};
  RunContext context{"TaoToken", "https://api.example/v1", "bench-7b"};
  context.group = group;
  RecordedRun run;
  run.start_ns = 0;
  run.events.push_back(StreamEvent::started(0));
  for (int i = 0; i < chunks; ++i)
    run.events.push_back(StreamEvent::chunk((100 + 10 * i) * 1000000LL, "t", 1));
  run.events.push_back(StreamEvent::finished((100 + 10 * chunks) * 1000000LL, "stop"));
  RunStoreWriter(store, request, context).finish(run);
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
};

QTEST_MAIN(TestHistoryCompare)
#include "test_history_compare.moc"
