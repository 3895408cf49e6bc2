// Chart axes on round numbers: ticks at multiples of 1, 2, 2.5 or 5 x 10^k that cover the
// data, labelled with as many decimals as the step needs (0, 0.5, 1, 1.5 rather than 0.38,
// 0.76, 1.14 from an even split of the data's own range).
#pragma once

class QChart;
class QValueAxis;

namespace ts::ui {

struct NiceScale {
  double min = 0, max = 1, step = 0.2;
  int ticks = 6;     // (max - min) / step + 1
  int decimals = 1;  // the labels' digits after the point
};

// The fewest-tick round scale with at most `most_ticks` ticks (>= 3) that covers [lo, hi]
// (hi <= lo: [lo, lo + 1]); with `whole`, steps of whole numbers only (counts).
NiceScale niceScale(double lo, double hi, int most_ticks = 6, bool whole = false);

// Sets `axis` to niceScale(lo, hi, most_ticks, whole): range, tick count and label format;
// returns that scale (what else is drawn to the axis's ends can use it).
NiceScale setNiceRange(QValueAxis* axis, double lo, double hi, int most_ticks = 6,
                       bool whole = false);

// The most ticks (3 to `most_ticks`) whose labels fit along the axis of `chart`'s plot area
// without the chart hiding any: a vertical axis leaves 1.5 label heights per tick, a
// horizontal one the widest label and a space (Qt Charts drops labels that would overlap,
// which turned 0, 2500, ..., 12500 into 0, 5000, 7500, 12500). 6 before the chart is laid out.
int ticksThatFit(const QChart* chart, const QValueAxis* axis, double lo, double hi,
                 int most_ticks = 6, bool whole = false);

// setNiceRange with ticksThatFit, again whenever the chart's plot area changes (a resize).
void fitNiceRange(QChart* chart, QValueAxis* axis, double lo, double hi, int most_ticks = 6,
                  bool whole = false);

}  // namespace ts::ui
