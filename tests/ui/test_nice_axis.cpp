// Chart axes on round numbers (ui/nice_axis.h): the ticks a user reads off every chart.
#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QTest>
#include <QValueAxis>
#include <cmath>

#include "ui/nice_axis.h"

using ts::ui::niceScale;
using ts::ui::NiceScale;

namespace {

// step is 1, 2, 2.5 or 5 x 10^k
bool roundStep(double step) {
  const double magnitude = std::pow(10.0, std::floor(std::log10(step) + 1e-12));
  const double mantissa = step / magnitude;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (std::abs(mantissa - m) < 1e-9) return true;
  return false;
}

QString describe(const NiceScale& s) {
  return QString("min %1 max %2 step %3 ticks %4 decimals %5")
      .arg(s.min)
      .arg(s.max)
      .arg(s.step)
      .arg(s.ticks)
      .arg(s.decimals);
}

}  // namespace

class TestNiceAxis : public QObject {
  Q_OBJECT
 private slots:
  void comparisonRangeGetsRoundTicks() {
    // the comparison's ITL axis showed 0, 0.38, 0.76, 1.14, 1.52 for data up to 1.52
    const NiceScale s = niceScale(0, 1.52);
    QVERIFY2(s.min == 0 && s.step == 0.5 && s.max == 2 && s.ticks == 5 && s.decimals == 1,
             qPrintable(describe(s)));
  }

  void examples() {
    struct Case {
      double lo, hi;
      double min, max, step;
      int decimals;
    } cases[] = {
        {0, 1, 0, 1, 0.2, 1},       {0, 100, 0, 100, 20, 0},
        {0, 37, 0, 40, 10, 0},      {0, 0.0042, 0, 0.005, 0.001, 3},
        {1, 8, 0, 8, 2, 0},         {0, 12.5, 0, 12.5, 2.5, 1},
        {-3, 7, -5, 7.5, 2.5, 1},   {250, 1000, 200, 1000, 200, 0},
        {0, 2400, 0, 2500, 500, 0},
    };
    for (const Case& c : cases) {
      const NiceScale s = niceScale(c.lo, c.hi);
      QVERIFY2(std::abs(s.min - c.min) < 1e-12 && std::abs(s.max - c.max) < 1e-9 &&
                   std::abs(s.step - c.step) < 1e-12 && s.decimals == c.decimals,
               qPrintable(QString("[%1, %2]: %3").arg(c.lo).arg(c.hi).arg(describe(s))));
    }
  }

  void everyRangeIsCoveredOnRoundTicks() {
    // ranges from 1e-4 to 1e6 wide, anywhere: the scale covers them with at most six round
    // ticks, its ends on ticks, and no wider than it needs (less than a step past each end)
    for (double hi :
         {1e-4, 3.3e-3, 0.07, 0.9, 1.0, 1.01, 4.9, 17.0, 99.0, 101.0, 777.0, 12345.0, 9.9e5}) {
      for (double lo_share : {0.0, 0.1, 0.5, 0.93}) {
        const double lo = hi * lo_share;
        const NiceScale s = niceScale(lo, hi);
        const QString what = QString("[%1, %2]: %3").arg(lo).arg(hi).arg(describe(s));
        QVERIFY2(roundStep(s.step), qPrintable(what));
        QVERIFY2(s.min <= lo + 1e-12 && s.max >= hi - 1e-12, qPrintable(what));
        QVERIFY2(s.ticks >= 2 && s.ticks <= 6, qPrintable(what));
        QVERIFY2(std::abs((s.max - s.min) / s.step + 1 - s.ticks) < 1e-6, qPrintable(what));
        QVERIFY2(lo - s.min < s.step + 1e-12 && s.max - hi < s.step + 1e-12, qPrintable(what));
        // labels: the step written with its decimals reads back exactly
        const QString label = QString::number(s.step, 'f', s.decimals);
        QVERIFY2(std::abs(label.toDouble() - s.step) < 1e-9 * s.step, qPrintable(what));
      }
    }
  }

  void degenerateInputsStillGiveAScale() {
    const NiceScale flat = niceScale(5, 5);  // nothing recorded yet: [5, 6]
    QVERIFY(flat.min <= 5 && flat.max >= 6 && roundStep(flat.step));
    const NiceScale nan = niceScale(std::nan(""), 3);
    QVERIFY(nan.min == 0 && nan.max >= 1);
    const NiceScale around_zero = niceScale(-1, 1, 2);  // two ticks cannot cover it: three
    QVERIFY2(around_zero.ticks == 3 && around_zero.min == -1 && around_zero.max == 1,
             qPrintable(describe(around_zero)));
  }

  void wholeNumbersForCounts() {
    const NiceScale s = niceScale(0, 3, 6, true);  // steps of 0.5 would suit, counts can't
    QVERIFY2(s.step == 1 && s.max == 3 && s.decimals == 0, qPrintable(describe(s)));
    const NiceScale t = niceScale(0, 12, 6, true);  // 2.5 skipped
    QVERIFY2(t.step == 5 && t.max == 15, qPrintable(describe(t)));
  }

  void issue42RangesTickEvenly() {
    // the comparison showed 0/5000/7500/12500 and 0/40/60/100: the ticks must be 0, 2500,
    // ..., 12500 and 0, 20, ..., 100, every one of them
    const NiceScale ttft = niceScale(0, 12500);
    QVERIFY2(ttft.min == 0 && ttft.max == 12500 && ttft.step == 2500 && ttft.ticks == 6,
             qPrintable(describe(ttft)));
    const NiceScale tpot = niceScale(0, 100);
    QVERIFY2(tpot.min == 0 && tpot.max == 100 && tpot.step == 20 && tpot.ticks == 6,
             qPrintable(describe(tpot)));
  }

  // A short chart gets fewer round ticks rather than labels Qt hides: each tick has room
  // for its label (1.5 label heights) at 170 px, and gets back to 6 at 600 px.
  void ticksFitTheChartsHeight() {
    QChart* chart = new QChart;
    auto* line = new QLineSeries(chart);
    line->append(0, 0);
    line->append(1, 12500);
    chart->addSeries(line);
    auto* x = new QValueAxis(chart);
    auto* y = new QValueAxis(chart);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    line->attachAxis(x);
    line->attachAxis(y);
    QChartView view(chart);
    ts::ui::fitNiceRange(chart, y, 0, 12500);
    ts::ui::fitNiceRange(chart, x, 0, 1);
    const auto roomPerTick = [&] { return chart->plotArea().height() / (y->tickCount() - 1); };
    const double label = QFontMetricsF(y->labelsFont()).height();
    view.resize(400, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTRY_COMPARE(y->tickCount(), 6);
    QCOMPARE(y->max(), 12500.0);
    view.resize(400, 170);
    QTRY_VERIFY2(
        roomPerTick() >= 1.5 * label,
        qPrintable(
            QString("%1 ticks on %2 px").arg(y->tickCount()).arg(chart->plotArea().height())));
    QVERIFY(y->tickCount() >= 3 && y->tickCount() < 6);
    const double step = (y->max() - y->min()) / (y->tickCount() - 1);
    QVERIFY2(roundStep(step) && y->max() >= 12500, qPrintable(QString::number(step)));
    view.resize(400, 600);
    QTRY_COMPARE(y->tickCount(), 6);
  }

  void axisTakesTheScale() {
    QValueAxis axis;
    ts::ui::setNiceRange(&axis, 0, 1.52);
    QCOMPARE(axis.min(), 0.0);
    QCOMPARE(axis.max(), 2.0);
    QCOMPARE(axis.tickCount(), 5);
    QCOMPARE(axis.labelFormat(), QString("%.1f"));
  }
};

QTEST_MAIN(TestNiceAxis)
#include "test_nice_axis.moc"
