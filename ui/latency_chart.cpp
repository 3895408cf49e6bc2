#include "ui/latency_chart.h"

#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPen>
#include <QScatterSeries>
#include <QValueAxis>
#include <algorithm>

#include "ui/chart_palette.h"
#include "ui/nice_axis.h"

namespace ts::ui {
namespace {
constexpr int kMaxDots = 400;         // beyond this, dots clutter and cost paint time
constexpr int kMaxLinePoints = 1600;  // beyond this, draw min and max of each x bucket

// Keeps the shape (every spike) of a long series with at most kMaxLinePoints points:
// each of kMaxLinePoints / 2 equal x ranges contributes its lowest and highest point.
QList<QPointF> decimate(const QList<QPointF>& points) {
  if (points.size() <= kMaxLinePoints) return points;
  const int buckets = kMaxLinePoints / 2;
  const double x0 = points.first().x(), span = std::max(1e-9, points.last().x() - x0);
  QList<QPointF> out;
  out.reserve(kMaxLinePoints + 2);
  qsizetype i = 0;
  for (int b = 0; b < buckets && i < points.size(); ++b) {
    const double end = x0 + span * (b + 1) / buckets;
    const QPointF* lo = &points[i];
    const QPointF* hi = &points[i];
    for (; i < points.size() && (points[i].x() <= end || b == buckets - 1); ++i) {
      if (points[i].y() < lo->y()) lo = &points[i];
      if (points[i].y() > hi->y()) hi = &points[i];
    }
    if (lo->x() <= hi->x()) {
      out.append(*lo);
      if (hi != lo) out.append(*hi);
    } else {
      out.append(*hi);
      out.append(*lo);
    }
  }
  return out;
}

}  // namespace

LatencyChart::LatencyChart(QWidget* parent) : QChartView(parent) {
  setObjectName("latencyChart");
  auto* chart = new QChart();
  chart->setTitle(tr("Gap before each chunk"));
  chart->legend()->setAlignment(Qt::AlignBottom);
  chart->setMargins(QMargins(4, 4, 4, 4));
  gaps_ = new QLineSeries(chart);
  gaps_->setName(tr("inter-token latency (ms)"));
  gap_dots_ = new QScatterSeries(chart);
  gap_dots_->setMarkerSize(5);
  ttft_line_ = new QLineSeries(chart);
  ttft_line_->setName("TTFT");
  QPen pen(QColor(214, 39, 40));
  pen.setWidth(2);
  pen.setStyle(Qt::DashLine);
  ttft_line_->setPen(pen);
  x_axis_ = new QValueAxis(chart);
  x_axis_->setTitleText(tr("time since request (s)"));
  y_axis_ = new QValueAxis(chart);
  y_axis_->setTitleText(tr("gap (ms)"));
  chart->addAxis(x_axis_, Qt::AlignBottom);
  chart->addAxis(y_axis_, Qt::AlignLeft);
  for (QXYSeries* s : std::initializer_list<QXYSeries*>{gaps_, gap_dots_, ttft_line_}) {
    chart->addSeries(s);
    s->attachAxis(x_axis_);
    s->attachAxis(y_axis_);
  }
  QPen line_pen = gaps_->pen();  // the theme's colour, set when the series was added
  line_pen.setWidthF(1.0);       // width-1 lines take the rasteriser's fast path
  gaps_->setPen(line_pen);
  gap_dots_->setColor(gaps_->color());
  gap_dots_->setBorderColor(gaps_->color());
  chart->legend()->markers(gap_dots_).first()->setVisible(false);
  setChart(chart);
  followPalette(this);
  setRenderHint(QPainter::Antialiasing);
  setMinimumHeight(180);
  reset();
}

void LatencyChart::reset() {
  points_.clear();
  next_event_ = 0;
  last_chunk_ns_ = -1;
  ttft_s_ = -1;
  y_max_ = 1;
  gaps_->clear();
  gap_dots_->clear();
  ttft_line_->clear();
  ttft_line_->setName("TTFT");
  setNiceRange(x_axis_, 0, 1);
  setNiceRange(y_axis_, 0, 1);
}

void LatencyChart::appendFrom(const RecordedRun& run) {
  const qsizetype before = points_.size();
  for (; next_event_ < run.events.size(); ++next_event_) {
    const StreamEvent& e = run.events[next_event_];
    if (e.kind != EventKind::TokenChunk || e.text.empty()) continue;
    const double x = (e.t_ns - run.start_ns) / 1e9;
    if (last_chunk_ns_ < 0) {
      ttft_s_ = x;
      ttft_line_->setName(tr("TTFT %1 ms").arg(x * 1000, 0, 'f', 1));
    } else {
      const double gap_ms = (e.t_ns - last_chunk_ns_) / 1e6;
      points_.append(QPointF(x, gap_ms));
      y_max_ = std::max(y_max_, gap_ms * 1.15);
    }
    last_chunk_ns_ = e.t_ns;
  }
  if (points_.size() == before && ttft_s_ < 0) return;
  gaps_->replace(decimate(points_));
  gap_dots_->replace(points_.size() <= kMaxDots ? points_ : QList<QPointF>{});
  const double x_max = points_.isEmpty() ? ttft_s_ : points_.last().x();
  // A long wait before a quick answer (a model's load, a long prefill) would squeeze every
  // gap into the right edge: the axis then starts just before the first token.
  const double decode = x_max - ttft_s_;
  const double x_min = decode > 0 && decode < ttft_s_ / 3 ? ttft_s_ - decode * 0.15 : 0;
  setNiceRange(x_axis_, x_min, std::max(x_min + 0.001, x_max + (x_max - x_min) * 0.05));
  // the TTFT line from the bottom to the top of the (rounded) y axis
  const double y_top = setNiceRange(y_axis_, 0, y_max_).max;
  ttft_line_->replace({QPointF(ttft_s_, 0), QPointF(ttft_s_, y_top)});
}

}  // namespace ts::ui
