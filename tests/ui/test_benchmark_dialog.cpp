// The benchmark dialog's charts and exports as a user sees them (issue 42): steps drawn in
// value order, axes that fit the data rather than a far SLO, trade-off labels that neither
// overlap nor leave the plot, CSV / PNG / SVG files, and only the settings a sweep uses.
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QLineEdit>
#include <QPushButton>
#include <QSet>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

#include "ui/benchmark_dialog.h"
#include "ui/chart_export.h"
#include "ui/sweep_chart.h"
#include "ui/tradeoff_chart.h"

using namespace ts::ui;

namespace {

// A step's figures as BenchResult::json gives them (ms).
QJsonObject figures(double value, double ttft_p99, double tpot_p99) {
  const auto stat = [](double p99) {
    return QJsonObject{{"mean", p99 * 0.8}, {"p50", p99 * 0.7}, {"p90", p99 * 0.9}, {"p99", p99}};
  };
  return {{"value", value},
          {"requests_completed", 4},
          {"requests_failed", 0},
          {"duration_s", 1.5},
          {"ttft_ms", stat(ttft_p99)},
          {"tpot_ms", stat(tpot_p99)},
          {"itl_ms", stat(tpot_p99)},
          {"e2e_ms", stat(ttft_p99 + 100 * tpot_p99)},
          {"output_throughput_tok_s", 321.5},
          {"goodput_req_s", 2.25}};
}

QList<double> xs(const QList<QPointF>& points) {
  QList<double> out;
  for (const QPointF& p : points) out << p.x();
  return out;
}

}  // namespace

class TestBenchmarkDialog : public QObject {
  Q_OBJECT

  // Starts a sweep of `kind` over `values` (as typed) with the given SLOs; the dialog shown.
  void start(BenchmarkDialog& dialog, SweepKind kind, const QString& values, double slo_ttft = 0,
             double slo_tpot = 0) {
    auto* axis = dialog.findChild<QComboBox*>("benchAxis");
    axis->setCurrentIndex(axis->findData(static_cast<int>(kind)));
    dialog.findChild<QLineEdit*>("benchValues")->setText(values);
    dialog.findChild<QDoubleSpinBox*>("benchSloTtft")->setValue(slo_ttft);
    dialog.findChild<QDoubleSpinBox*>("benchSloTpot")->setValue(slo_tpot);
    QSignalSpy started(&dialog, &BenchmarkDialog::startRequested);
    QTest::mouseClick(dialog.findChild<QPushButton*>("benchStart"), Qt::LeftButton);
    QCOMPARE(started.count(), 1);
  }

 private slots:
  // TPOT targets entered 0, 100, 50, 25 (and run in that order) are drawn 0, 25, 50, 100:
  // the lines never double back.
  void aSweepIsDrawnInValueOrder() {
    BenchmarkDialog dialog("http://127.0.0.1:1", "m", nullptr, true);
    dialog.show();
    start(dialog, SweepKind::TpotTarget, "0,100,50,25");
    const QList<double> entered = {0, 100, 50, 25};
    for (int i = 0; i < entered.size(); ++i)
      dialog.onStepFinished(entered[i], figures(entered[i], 100 + i * 50, 10 + i));
    const QList<double> ascending = {0, 25, 50, 100};
    QCOMPARE(xs(dialog.chart()->points("ttft")), ascending);
    QCOMPARE(xs(dialog.chart()->points("tpot")), ascending);
    // each value keeps its own figures: 100 ran second (TTFT 150 ms)
    QCOMPARE(dialog.chart()->points("ttft").last().y(), 150.0);
    // the trade-off follows the lever: tighter pacing to none (0, unpaced, at the far end)
    QCOMPARE(dialog.tradeoffChart()->labels(),
             QStringList({"paced to 25 ms", "paced to 50 ms", "paced to 100 ms", "unpaced"}));
    QCOMPARE(dialog.tradeoffChart()->points().at(0), QPointF(13, 250));  // 25 ran last
  }

  // Latencies of 20-60 ms against a 5000 ms TTFT SLO: the axis is drawn to the data (the
  // SLO is a note at the top edge), not to 5000 with the data a flat line at the bottom.
  // An SLO close above the data stays a line inside the axis.
  void theAxesFitTheDataNotAFarSlo() {
    BenchmarkDialog dialog("http://127.0.0.1:1", "m");
    dialog.resize(1000, 700);
    dialog.show();
    start(dialog, SweepKind::Concurrency, "1,2,4", 5000, 80);
    dialog.onStepFinished(1, figures(1, 20, 30));
    dialog.onStepFinished(2, figures(2, 40, 50));
    dialog.onStepFinished(4, figures(4, 60, 70));
    const auto [lo, hi] = dialog.chart()->yRange("ttft");
    QCOMPARE(lo, 0.0);
    QVERIFY2(hi >= 60 && hi <= 120, qPrintable(QString::number(hi)));  // data over half of it
    QCOMPARE(dialog.chart()->sloNotes(),
             QStringList({QString::fromUtf8("TTFT SLO 5000 ms \u2191")}));
    QCOMPARE(dialog.chart()->points("slo_ttft").value(0).y(), 5000.0);  // still the true SLO
    const auto [tpot_lo, tpot_hi] = dialog.chart()->yRange("tpot");
    QVERIFY2(tpot_hi >= 80 && tpot_hi <= 160, qPrintable(QString::number(tpot_hi)));  // 80 shown
    QCOMPARE(tpot_lo, 0.0);
  }

  // Trade-off labels stay whole inside the plot (the rightmost, "concurrency 1", included)
  // and never cover each other (where points crowd, a label is hidden rather than printed
  // over another).
  void tradeoffLabelsNeitherOverlapNorClip() {
    for (const QSize size : {QSize(1024, 700), QSize(1600, 1000)}) {
      BenchmarkDialog dialog("http://127.0.0.1:1", "m");
      dialog.resize(size);
      dialog.show();
      QVERIFY(QTest::qWaitForWindowExposed(&dialog));
      start(dialog, SweepKind::Concurrency, "1,2,3,4,8,16");
      // concurrency 1 has the fastest first token and slowest stream... the right edge; 2-4
      // nearly coincide.
      dialog.onStepFinished(1, figures(1, 10, 90));
      dialog.onStepFinished(2, figures(2, 200, 40));
      dialog.onStepFinished(3, figures(3, 201, 40.2));
      dialog.onStepFinished(4, figures(4, 202, 40.4));
      dialog.onStepFinished(8, figures(8, 600, 20));
      dialog.onStepFinished(16, figures(16, 1500, 12));
      TradeoffChart* chart = dialog.tradeoffChart();
      const QList<QRectF> rects = chart->labelRects();
      QVERIFY2(rects.size() >= 4, qPrintable(QString::number(rects.size())));
      // the points with room around them are all named
      const QStringList shown = chart->shownLabels();
      for (const char* alone : {"concurrency 1", "concurrency 8", "concurrency 16"})
        QVERIFY2(shown.contains(alone), qPrintable(shown.join(", ")));
      for (int i = 0; i < rects.size(); ++i) {
        QVERIFY(chart->plotArea().contains(rects[i]));
        for (int j = i + 1; j < rects.size(); ++j) QVERIFY(!rects[i].intersects(rects[j]));
      }
    }
  }

  // The saved steps: a CSV header naming the axis and the figures, then one line per step.
  void csvHasAHeaderAndALinePerStep() {
    QTemporaryDir dir;
    BenchmarkDialog dialog("http://127.0.0.1:1", "m");
    QCOMPARE(dialog.saveCsv(dir.filePath("none.csv")),
             QString("Nothing to save yet: run a benchmark first."));
    const QJsonObject sweep{{"axis", "concurrency"},
                            {"slo", QJsonObject{}},
                            {"steps", QJsonArray{figures(1, 20, 5), figures(4, 80, 9)}}};
    dialog.onFinished(false, 2, sweep);
    const QString path = dir.filePath("steps.csv");
    QCOMPARE(dialog.saveCsv(path), QString());
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(f.readAll()).split("\r\n", Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 3);
    const QStringList header = lines[0].split(',');
    QCOMPARE(header.value(0), QString("concurrency"));
    QVERIFY(header.contains("ttft_p99_ms") && header.contains("goodput_req_s"));
    const QStringList second = lines[2].split(',');
    QCOMPARE(second.size(), header.size());
    QCOMPARE(second[0], QString("4"));
    QCOMPARE(second[header.indexOf("ttft_p99_ms")], QString("80"));
    QCOMPARE(second[header.indexOf("output_throughput_tok_s")], QString("321.5"));
  }

  // A chart saved as PNG is the chart's size on screen; as SVG, a drawing of that size.
  void chartsExportAtTheirOwnSize() {
    QTemporaryDir dir;
    BenchmarkDialog dialog("http://127.0.0.1:1", "m");
    dialog.resize(1100, 800);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    start(dialog, SweepKind::Concurrency, "1,2");
    dialog.onStepFinished(1, figures(1, 20, 5));
    dialog.onStepFinished(2, figures(2, 40, 7));
    for (QWidget* chart :
         {static_cast<QWidget*>(dialog.chart()), static_cast<QWidget*>(dialog.tradeoffChart())}) {
      const QString png = dir.filePath(chart->objectName() + ".png");
      QCOMPARE(saveWidgetImage(chart, png, "t"), QString());
      const QImage image(png);
      QCOMPARE(image.size(), chart->size());
      QVERIFY(image.size().width() > 200);
      // not blank: a background, grid, lines, points and labels make many colours
      QSet<QRgb> colours;
      for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3) colours.insert(image.pixel(x, y));
      QVERIFY2(colours.size() > 20, qPrintable(QString::number(colours.size())));
      const QString svg = dir.filePath(chart->objectName() + ".svg");
      QCOMPARE(saveWidgetImage(chart, svg, "t"), QString());
      QFile f(svg);
      QVERIFY(f.open(QIODevice::ReadOnly));
      const QByteArray text = f.readAll();
      QVERIFY(text.contains("<svg"));
      QVERIFY2(
          text.contains(
              QString("viewBox=\"0 0 %1 %2\"").arg(chart->width()).arg(chart->height()).toUtf8()),
          text.left(600).constData());
    }
    QCOMPARE(saveWidgetImage(dialog.chart(), dir.filePath("no/such/dir/x.png"), "t").left(13),
             QString("cannot write "));
  }

  // Burstiness shapes the arrivals of a rate sweep: a concurrency sweep does not show it (nor
  // the fixed concurrency of the scheduler sweeps).
  void burstinessOnlyForRateSweeps() {
    BenchmarkDialog dialog("http://127.0.0.1:1", "m");
    dialog.show();
    auto* burstiness = dialog.findChild<QDoubleSpinBox*>("benchBurstiness");
    auto* axis = dialog.findChild<QComboBox*>("benchAxis");
    QCOMPARE(axis->currentData().toInt(), static_cast<int>(SweepKind::Concurrency));
    QVERIFY(!burstiness->isVisible());
    QVERIFY(!dialog.findChild<QSpinBox*>("benchConcurrency")->isVisible());  // it is swept
    axis->setCurrentIndex(axis->findData(static_cast<int>(SweepKind::Rate)));
    QVERIFY(burstiness->isVisible());
    axis->setCurrentIndex(axis->findData(static_cast<int>(SweepKind::PromptLength)));
    QVERIFY(!burstiness->isVisible());
  }
};

QTEST_MAIN(TestBenchmarkDialog)
#include "test_benchmark_dialog.moc"
