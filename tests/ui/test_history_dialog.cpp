// Run history as a user meets it (issue 42): newest first with the sort arrow pointing
// down, one line per run with long names elided and whole in the tooltip, a benchmark
// run's step shown in its own column, and Compare with one run selected comparing it
// with the run before it (or saying why not).
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

#include "ui/history_dialog.h"

using namespace ts::ui;

namespace {

QList<HistoryRow> threeRuns() {
  const QDateTime t0(QDate(2026, 12, 6), QTime(10, 0, 0), Qt::UTC);
  HistoryRow chat;
  chat.id = 1;
  chat.started = t0;
  chat.provider = "TaoToken";
  chat.model = "gpt-4o-mini";
  chat.status = "finished";
  chat.prompt = "Hello";
  HistoryRow bench = chat;
  bench.id = 2;
  bench.started = t0.addSecs(60);
  bench.provider = "tokenscope-cli bench";
  bench.model = "bench-7b-shape-Q4_K_M-with-a-long-file-name.gguf";
  bench.benchmark = "concurrency 2";
  bench.group = "bench 2026-12-06T10:01:00Z concurrency=2";
  HistoryRow latest = chat;
  latest.id = 3;
  latest.started = t0.addSecs(120);
  return {chat, bench, latest};
}

qint64 idAt(QTableView* table, int row) {
  return table->model()->index(row, 0).data(Qt::UserRole + 1).toLongLong();
}

}  // namespace

class TestHistoryDialog : public QObject {
  Q_OBJECT

 private slots:
  // Newest first, and the Started header's arrow points down (descending), as drawn.
  void newestFirstWithADownArrow() {
    HistoryDialog dialog;
    dialog.setRows(threeRuns());
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    auto* table = dialog.findChild<QTableView*>("historyTable");
    QCOMPARE(idAt(table, 0), 3);
    QCOMPARE(idAt(table, 2), 1);
    QHeaderView* header = table->horizontalHeader();
    QCOMPARE(header->sortIndicatorSection(), 0);
    QCOMPARE(header->sortIndicatorOrder(), Qt::DescendingOrder);
    // The arrow, right in the Started section: for a down arrow the dark rows narrow
    // from top to bottom.
    const QImage image = header->grab().toImage();
    const int right = header->sectionViewportPosition(0) + header->sectionSize(0) - 3;
    const int left = right - header->height();
    const QRgb background = image.pixel(right - 1, 1);
    QList<int> widths;
    for (int y = 2; y < image.height() - 2; ++y) {
      int dark = 0;
      for (int x = left; x < right; ++x)
        if (qAbs(qGray(image.pixel(x, y)) - qGray(background)) > 60) ++dark;
      if (dark > 0) widths << dark;
    }
    QVERIFY2(widths.size() >= 2, "no sort arrow drawn");
    QVERIFY2(widths.first() > widths.last(),
             qPrintable(QString("arrow row widths top to bottom: %1").arg([&] {
               QStringList w;
               for (int v : widths) w << QString::number(v);
               return w.join(' ');
             }())));
  }

  // One line per run; a long model name elided in the middle, whole in the tooltip; the
  // benchmark run shows its step beside its status.
  void rowsAreSingleLinesAndShowTheBenchmarkStep() {
    HistoryDialog dialog;
    dialog.setRows(threeRuns());
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    auto* table = dialog.findChild<QTableView*>("historyTable");
    const QFontMetrics metrics(table->font());
    for (int row = 0; row < 3; ++row) QVERIFY(table->rowHeight(row) < 2 * metrics.height());
    QVERIFY(!table->wordWrap());
    QCOMPARE(table->textElideMode(), Qt::ElideMiddle);
    QHeaderView* header = table->horizontalHeader();
    const QAbstractItemModel* model = table->model();
    int benchmark = -1, provider = -1, modelColumn = -1, status = -1;
    for (int c = 0; c < model->columnCount(); ++c) {
      const QString title = model->headerData(c, Qt::Horizontal).toString();
      if (title == "Benchmark") benchmark = c;
      if (title == "Provider") provider = c;
      if (title == "Model") modelColumn = c;
      if (title == "Status") status = c;
    }
    QVERIFY(benchmark >= 0);
    QCOMPARE(header->visualIndex(benchmark), header->visualIndex(status) + 1);
    QCOMPARE(model->index(1, benchmark).data().toString(), QString("concurrency 2"));
    QCOMPARE(model->index(1, benchmark).data(Qt::ToolTipRole).toString(),
             QString("concurrency 2\nbench 2026-12-06T10:01:00Z concurrency=2"));
    QCOMPARE(model->index(1, modelColumn).data(Qt::ToolTipRole).toString(),
             QString("bench-7b-shape-Q4_K_M-with-a-long-file-name.gguf"));
    // the usual names fit whole; every column can be dragged wider
    QVERIFY(metrics.horizontalAdvance("TaoToken gateway") + 8 <= header->sectionSize(provider));
    QVERIFY(metrics.horizontalAdvance("2026-12-06 10:00:00") + 8 <= header->sectionSize(0));
    QCOMPARE(header->sectionResizeMode(modelColumn), QHeaderView::Interactive);
  }

  // In a window 942 px wide (a 1024 px screen) every column shows without a horizontal
  // scrollbar, the date and "TaoToken gateway" whole, the prompt cut at its end; wider, the
  // long model name gets more room; a column the user dragged keeps its width.
  void columnsFitTheWindowUntilTheUserDragsOne() {
    QList<HistoryRow> rows = threeRuns();
    rows[0].provider = "TaoToken gateway";
    rows[0].prompt = QString("Explain the difference between prefill and decode ").repeated(4);
    HistoryDialog dialog;
    dialog.setRows(rows);
    dialog.resize(942, 600);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    auto* table = dialog.findChild<QTableView*>("historyTable");
    QHeaderView* header = table->horizontalHeader();
    const QFontMetrics metrics(table->font());
    QTRY_VERIFY(!table->horizontalScrollBar()->isVisible());
    QCOMPARE(header->length(), table->viewport()->width());
    QVERIFY(metrics.horizontalAdvance("TaoToken gateway") + 6 <= header->sectionSize(1));
    QVERIFY(metrics.horizontalAdvance("2026-12-06 10:00:00") + 6 <= header->sectionSize(0));
    const int narrow = header->sectionSize(2);  // the model
    QVERIFY(narrow < metrics.horizontalAdvance(rows[1].model));
    dialog.resize(1600, 600);
    QTRY_VERIFY(header->sectionSize(2) > narrow);
    QTRY_COMPARE(header->length(), table->viewport()->width());
    header->resizeSection(1, 300);  // the user drags Provider wider
    dialog.resize(1000, 600);
    QTRY_COMPARE(dialog.width(), 1000);
    QTRY_VERIFY(table->viewport()->width() < 1000);
    QCOMPARE(header->sectionSize(1), 300);
  }

  // Compare with one run selected: it and the run before it, both then selected; the
  // oldest run has none before it, which the dialog says.
  void compareWithOneRunTakesThePreviousOne() {
    HistoryDialog dialog;
    dialog.setRows(threeRuns());
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    auto* table = dialog.findChild<QTableView*>("historyTable");
    QSignalSpy compared(&dialog, &HistoryDialog::compareRequested);
    table->selectRow(1);  // run 2
    QTest::mouseClick(dialog.findChild<QPushButton*>("compareButton"), Qt::LeftButton);
    QCOMPARE(compared.size(), 1);
    QCOMPARE(compared[0][0].value<QList<qint64>>(), (QList<qint64>{1, 2}));
    QCOMPARE(compared[0][1].toBool(), false);
    QList<qint64> selected = dialog.selectedIds();
    std::sort(selected.begin(), selected.end());
    QCOMPARE(selected, (QList<qint64>{1, 2}));
    table->selectRow(2);  // run 1, the oldest
    QTest::mouseClick(dialog.findChild<QPushButton*>("compareButton"), Qt::LeftButton);
    QCOMPARE(compared.size(), 1);
    QVERIFY2(dialog.findChild<QLabel*>("historyMessage")->text().contains("No earlier run"),
             qPrintable(dialog.findChild<QLabel*>("historyMessage")->text()));
    // "Compare the last two" selects both
    dialog.selectIds({2, 3});
    selected = dialog.selectedIds();
    std::sort(selected.begin(), selected.end());
    QCOMPARE(selected, (QList<qint64>{2, 3}));
  }
};

QTEST_MAIN(TestHistoryDialog)
#include "test_history_dialog.moc"
