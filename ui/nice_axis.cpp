#include "ui/nice_axis.h"

#include <QChart>
#include <QFontMetricsF>
#include <QValueAxis>
#include <cmath>

namespace ts::ui {

namespace {

// The fewest decimals that write `value` exactly (to a millionth of its size).
int decimalsOf(double value) {
  const double size = std::max(std::abs(value), 1e-12);
  for (int d = 0; d < 12; ++d) {
    const double scaled = value * std::pow(10.0, d);
    if (std::abs(scaled - std::round(scaled)) <= 1e-6 * size * std::pow(10.0, d)) return d;
  }
  return 12;
}

}  // namespace

NiceScale niceScale(double lo, double hi, int most_ticks, bool whole) {
  most_ticks = std::max(3, most_ticks);  // with 2, a range around 0 never fits
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = 0, hi = 1;
  if (hi <= lo) hi = lo + 1;
  // Steps grow from the smallest one that could fit; the first whose covering range has few
  // enough ticks wins (a tolerance keeps lo = 0.3 on the tick 0.3, not 0.2).
  const double smallest = (hi - lo) / (most_ticks - 1);
  double magnitude = std::pow(10.0, std::floor(std::log10(smallest)));
  for (;; magnitude *= 10)
    for (const double mantissa : {1.0, 2.0, 2.5, 5.0}) {
      const double step = mantissa * magnitude;
      if (whole && (step < 1 || step == 2.5)) continue;
      const double first = std::floor(lo / step + 1e-9), last = std::ceil(hi / step - 1e-9);
      const int ticks = static_cast<int>(std::lround(last - first)) + 1;
      if (ticks > most_ticks) continue;
      NiceScale s;
      s.step = step;
      s.min = first * step;
      s.max = last * step;
      s.ticks = ticks;
      s.decimals = decimalsOf(step);
      return s;
    }
}

NiceScale setNiceRange(QValueAxis* axis, double lo, double hi, int most_ticks, bool whole) {
  const NiceScale s = niceScale(lo, hi, most_ticks, whole);
  axis->setRange(s.min, s.max);
  axis->setTickType(QValueAxis::TicksFixed);
  axis->setTickCount(s.ticks);
  // A vertical axis with a title keeps the width of "..." for its labels and cuts the title
  // to what is left: labels as narrow as "3" cost a Chinese title its room ("⋮"). Padded to
  // three characters (the labels are rich text: non-breaking spaces) they hold that width.
  const auto chars = [&](double v) { return QString::number(v, 'f', s.decimals).size(); };
  const qsizetype narrow = std::max<qsizetype>(0, 3 - std::max(chars(s.min), chars(s.max)));
  const QString pad = axis->orientation() == Qt::Vertical ? QString("&nbsp;").repeated(narrow) : "";
  axis->setLabelFormat(pad + QString("%.%1f").arg(s.decimals));
  return s;
}

int ticksThatFit(const QChart* chart, const QValueAxis* axis, double lo, double hi, int most_ticks,
                 bool whole) {
  const QRectF area = chart->plotArea();
  if (area.width() < 1 || area.height() < 1) return std::min(6, std::max(3, most_ticks));
  const QFontMetricsF metrics(axis->labelsFont());
  const bool vertical = axis->orientation() == Qt::Vertical;
  for (int n = most_ticks; n > 3; --n) {
    const NiceScale s = niceScale(lo, hi, n, whole);
    double needs = 1.5 * metrics.height();
    if (!vertical) {  // the widest label (the ends are the longest) and a space
      const auto label = [&](double v) { return QString::number(v, 'f', s.decimals); };
      needs = std::max(metrics.horizontalAdvance(label(s.min)),
                       metrics.horizontalAdvance(label(s.max))) +
              metrics.height();
    }
    const double room = (vertical ? area.height() : area.width()) / std::max(1, s.ticks - 1);
    if (room >= needs) return n;
  }
  return 3;
}

void fitNiceRange(QChart* chart, QValueAxis* axis, double lo, double hi, int most_ticks,
                  bool whole) {
  const auto fit = [=] {
    const int ticks = ticksThatFit(chart, axis, lo, hi, most_ticks, whole);
    const NiceScale s = niceScale(lo, hi, ticks, whole);
    // unchanged: nothing to set (setting it anew would lay the chart out again)
    if (axis->min() == s.min && axis->max() == s.max && axis->tickCount() == s.ticks &&
        axis->tickType() == QValueAxis::TicksFixed)
      return;
    setNiceRange(axis, lo, hi, ticks, whole);
  };
  fit();
  QObject::connect(chart, &QChart::plotAreaChanged, axis, fit);
}

}  // namespace ts::ui
