// The comparison window as a user meets it (issue 42): at its default size the figures
// and differing-settings tables show every row and whole headers with no scrollbar, the
// legend and the box plot tell the series apart, the box plot's ticks are all labelled,
// the exports render the whole page at its own size, whatever the window shows, and a
// warning that the series differ in several levers wraps above the tables (issue 43).
#include <QBarCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QFile>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QLegendMarker>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QSet>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QValueAxis>

#include "ui/comparison_view.h"

using namespace ts::ui;

namespace {

// Four benchmark steps of one concurrency sweep, as the app names them (nameSeries).
ComparisonContent fourSteps() {
  ComparisonContent c;
  const int concurrency[] = {2, 8, 16, 32};
  for (int i = 0; i < 4; ++i) {
    SeriesFigures s;
    const QString step = QString("concurrency %1").arg(concurrency[i]);
    s.label = step + " · 3 runs · 12-06 10:32:0" + QString::number(i);
    s.header = step + "\n(3 runs)";
    s.tag = QString::number(concurrency[i]);
    s.completed = 3;
    const double ttft = 2500.0 * (i + 1) + 1000;  // up to 11000 ms: ticks to 12500
    // count, mean, p50, p90, p99, min, max
    s.ttft_ms = {3, ttft, ttft, ttft * 1.05, ttft * 1.1, ttft / 3, ttft * 1.1};
    const double tpot = 20.0 * (i + 1);  // up to 80 ms: ticks to 100
    s.tpot_ms = {3, tpot, tpot, tpot * 1.1, tpot * 1.15, 9, tpot * 1.15};
    s.itl_ms = s.tpot_ms;
    s.e2e_ms = s.ttft_ms;
    s.decode_tok_s = 40.0 / (i + 1);
    for (int k = 1; k < 20; ++k) s.itl_curve << QPointF(0.05 * k, 20.0 * (i + 1) + k % 3);
    c.series << s;
  }
  c.tag_title = "concurrency";
  c.differing_settings = {
      {"concurrency", {"2", "8", "16", "32"}},
      {"speculative", {"off", "off", "self-int4, K 4", "off"}},
      {"base_url",
       {"http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1", "http://127.0.0.1:8081/v1",
        "http://127.0.0.1:8081/v1"}},
      {"prompt",
       {"Explain the difference between prefill and decode in a transformer", "Explain it again",
        "Explain it a third time, with an example that is long enough to be elided", "Why?"}},
      {"max_tokens", {"128", "128", "256", "256"}},
      {"seed", {"", "1", "2", "3"}},
      {"started",
       {"2026-12-06 10:32:00", "2026-12-06 10:33:00", "2026-12-06 10:34:00",
        "2026-12-06 10:35:00"}},
      {"app_version", {"0.1.0", "0.1.0", "0.1.0", "0.2.0"}}};
  c.csv = "series,metric\n";
  c.json = "{}";
  return c;
}

// "" or what a user would see wrong with the table: a scrollbar, a row or column out of
// view, a header cut.
QString tableProblem(QTableWidget* t) {
  const QString name = t->objectName() + ": ";
  if (t->verticalScrollBar()->isVisible() || t->verticalScrollBar()->maximum() > 0)
    return name + "vertical scrollbar";
  if (t->horizontalScrollBar()->isVisible() || t->horizontalScrollBar()->maximum() > 0)
    return name + "horizontal scrollbar";
  const int last = t->rowCount() - 1;
  if (last >= 0 && t->rowViewportPosition(last) + t->rowHeight(last) > t->viewport()->height())
    return name + QString("row %1 below the view").arg(last);
  QHeaderView* header = t->horizontalHeader();
  for (int c = 0; c < t->columnCount(); ++c) {
    const QString text = t->horizontalHeaderItem(c)->text();
    const QSize needs = QFontMetrics(header->font()).size(0, text);
    if (needs.width() + 6 > header->sectionSize(c) || needs.height() > header->height())
      return name + QString("header \"%1\" needs %2 x %3 px, has %4 x %5")
                        .arg(text)
                        .arg(needs.width())
                        .arg(needs.height())
                        .arg(header->sectionSize(c))
                        .arg(header->height());
    if (t->columnViewportPosition(c) + t->columnWidth(c) > t->viewport()->width())
      return name + QString("column %1 right of the view").arg(c);
  }
  QHeaderView* rows = t->verticalHeader();
  for (int r = 0; r < t->rowCount(); ++r) {
    const QString text = t->verticalHeaderItem(r)->text();
    if (QFontMetrics(rows->font()).horizontalAdvance(text) + 6 > rows->width())
      return name + QString("row header \"%1\" cut").arg(text);
  }
  return {};
}

}  // namespace

class TestComparisonView : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

 private slots:
  void tablesShowEveryRowWithoutScrollbars() {
    ComparisonView view(fourSteps());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    auto* figures = view.findChild<QTableWidget*>("comparisonTable");
    auto* settings = view.findChild<QTableWidget*>("settingsDiffTable");
    QCOMPARE(figures->rowCount(), 17);
    QCOMPARE(settings->rowCount(), 8);
    QTRY_COMPARE(tableProblem(figures), QString());
    QTRY_COMPARE(tableProblem(settings), QString());
    // a smaller window scrolls the page, never the tables
    view.resize(700, 450);
    QTRY_COMPARE(tableProblem(figures), QString());
    QCOMPARE(tableProblem(settings), QString());
    // a setting a series lacks reads "—", the others their value in full on hover
    QCOMPARE(settings->item(5, 0)->text(), QString("—"));
    QCOMPARE(settings->item(1, 2)->text(), QString("self-int4, K 4"));
    QVERIFY(settings->item(3, 2)->toolTip().endsWith("long enough to be elided"));
  }

  void legendAndBoxesTellTheSeriesApart() {
    ComparisonView view(fourSteps());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    auto* itl = view.findChild<QChartView*>("comparisonItlChart");
    QStringList names;
    for (QAbstractSeries* s : itl->chart()->series()) names << s->name();
    QCOMPARE(names.size(), 4);
    QCOMPARE(QSet<QString>(names.begin(), names.end()).size(), 4);
    int boxes = 0;
    for (QChartView* chart : view.findChildren<QChartView*>()) {
      const auto categories = chart->chart()->axes(Qt::Horizontal);
      auto* axis = categories.isEmpty() ? nullptr : qobject_cast<QBarCategoryAxis*>(categories[0]);
      if (!axis) continue;
      ++boxes;
      QCOMPARE(axis->categories(), (QStringList{"2", "8", "16", "32"}));
      QCOMPARE(axis->titleText(), QString("concurrency"));
      // every tick of the value axis has room for its label, so Qt hides none
      auto* values = qobject_cast<QValueAxis*>(chart->chart()->axes(Qt::Vertical).value(0));
      QVERIFY(values);
      const double label = QFontMetricsF(values->labelsFont()).height();
      QTRY_VERIFY2(chart->chart()->plotArea().height() / (values->tickCount() - 1) >= 1.5 * label,
                   qPrintable(QString("%1 ticks on %2 px")
                                  .arg(values->tickCount())
                                  .arg(chart->chart()->plotArea().height())));
      const double step = (values->max() - values->min()) / (values->tickCount() - 1);
      const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-12));
      QVERIFY2(std::abs(mantissa - 1) < 1e-9 || std::abs(mantissa - 2) < 1e-9 ||
                   std::abs(mantissa - 2.5) < 1e-9 || std::abs(mantissa - 5) < 1e-9,
               qPrintable(QString::number(step)));
    }
    QCOMPARE(boxes, 2);
  }

  // PNG and SVG: the whole page at its own size, also what a small window scrolls away.
  void exportsRenderThePageAtItsOwnSize() {
    ComparisonView view(fourSteps());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.resize(700, 450);
    auto* settings = view.findChild<QTableWidget*>("settingsDiffTable");
    QWidget* page = view.findChild<QWidget*>("comparisonContent");
    QTRY_VERIFY(page->height() > 450);  // the window shows part of it
    const QString png = dir_.filePath("comparison.png");
    QCOMPARE(view.exportPng(png), QString());
    const QImage image(png);
    QCOMPARE(image.size(), page->size() * image.devicePixelRatio());
    const QRect table(settings->mapTo(page, QPoint(0, 0)), settings->size());
    QVERIFY2(
        image.height() >= table.bottom(),
        qPrintable(
            QString("%1 px tall, settings end at %2").arg(image.height()).arg(table.bottom())));
    const QString svg = dir_.filePath("comparison.svg");
    QCOMPARE(view.exportSvg(svg), QString());
    QFile f(svg);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray bytes = f.readAll();
    QVERIFY(bytes.contains("<svg"));
    QVERIFY2(
        bytes.contains(QString("height=\"%1").arg(page->height()).toUtf8()) ||
            bytes.contains(
                QString("viewBox=\"0 0 %1 %2\"").arg(page->width()).arg(page->height()).toUtf8()),
        bytes.left(600).constData());
  }

  // Remote series that differ in two levers: the warning with the advice, no button; it
  // wraps within a small window and the tables keep every row without a scrollbar.
  void warningWrapsAboveTheTables() {
    ComparisonContent content = fourSteps();
    content.attribution.warning =
        "concurrency 2 and concurrency 16 differ in speculative sampling and model or "
        "endpoint: the difference between them cannot be attributed to either.";
    content.attribution.advice = "Run them again changing one setting at a time.";
    content.attribution.machines =
        "These runs were measured on different machines (another CPU or GPU): part of the "
        "difference may be the machine.";
    ComparisonView view(content);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.resize(700, 450);
    auto* warning = view.findChild<QLabel*>("attributionWarning");
    QVERIFY(warning);
    QCOMPARE(warning->text(), content.attribution.warning + ' ' + content.attribution.advice);
    QVERIFY(view.findChild<QLabel*>("attributionMachines")->isVisible());
    QVERIFY(view.findChildren<QPushButton*>(QRegularExpression("^measureAlone_")).isEmpty());
    // wrapped, all of it shown, and the page no wider than without it
    auto* page = view.findChild<QScrollArea*>("comparisonPage");
    QTRY_VERIFY2(warning->height() >= warning->heightForWidth(warning->width()),
                 qPrintable(QString("%1 px tall, needs %2")
                                .arg(warning->height())
                                .arg(warning->heightForWidth(warning->width()))));
    ComparisonView plain(fourSteps());
    plain.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plain));
    plain.resize(700, 450);
    QTRY_COMPARE(page->widget()->width(),
                 plain.findChild<QScrollArea*>("comparisonPage")->widget()->width());
    QCOMPARE(tableProblem(view.findChild<QTableWidget*>("comparisonTable")), QString());
    QCOMPARE(tableProblem(view.findChild<QTableWidget*>("settingsDiffTable")), QString());
    // the banner sits above the tables
    QVERIFY(warning->mapTo(page->widget(), QPoint(0, warning->height())).y() <=
            view.findChild<QTableWidget*>("comparisonTable")->mapTo(page->widget(), QPoint()).y());
  }
};

QTEST_MAIN(TestComparisonView)
#include "test_comparison_view.moc"
