#include "ui/latency_chart.h"

#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPen>
#include <QScatterSeries>
#include <QValueAxis>
#include <algorithm>

namespace ts::ui {
namespace {
constexpr int kMaxDots = 400;  // beyond this, dots clutter and cost paint time
}

LatencyChart::LatencyChart(QWidget* parent) : QChartView(parent) {
  setObjectName("latencyChart");
  auto* chart = new QChart();
  chart->setTitle("Gap before each chunk");
  chart->legend()->setAlignment(Qt::AlignBottom);
  chart->setMargins(QMargins(4, 4, 4, 4));
  gaps_ = new QLineSeries(chart);
  gaps_->setName("inter-token latency (ms)");
  gap_dots_ = new QScatterSeries(chart);
  gap_dots_->setMarkerSize(5);
  ttft_line_ = new QLineSeries(chart);
  ttft_line_->setName("TTFT");
  QPen pen(QColor(214, 39, 40));
  pen.setWidth(2);
  pen.setStyle(Qt::DashLine);
  ttft_line_->setPen(pen);
  x_axis_ = new QValueAxis(chart);
  x_axis_->setTitleText("time since request (s)");
  x_axis_->setLabelFormat("%.2f");
  y_axis_ = new QValueAxis(chart);
  y_axis_->setTitleText("gap (ms)");
  y_axis_->setLabelFormat("%.1f");
  chart->addAxis(x_axis_, Qt::AlignBottom);
  chart->addAxis(y_axis_, Qt::AlignLeft);
  for (QXYSeries* s : std::initializer_list<QXYSeries*>{gaps_, gap_dots_, ttft_line_}) {
    chart->addSeries(s);
    s->attachAxis(x_axis_);
    s->attachAxis(y_axis_);
  }
  gap_dots_->setColor(gaps_->color());
  gap_dots_->setBorderColor(gaps_->color());
  chart->legend()->markers(gap_dots_).first()->setVisible(false);
  setChart(chart);
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
  x_axis_->setRange(0, 1);
  y_axis_->setRange(0, 1);
}

void LatencyChart::appendFrom(const RecordedRun& run) {
  const qsizetype before = points_.size();
  for (; next_event_ < run.events.size(); ++next_event_) {
    const StreamEvent& e = run.events[next_event_];
    if (e.kind != EventKind::TokenChunk || e.text.empty()) continue;
    const double x = (e.t_ns - run.start_ns) / 1e9;
    if (last_chunk_ns_ < 0) {
      ttft_s_ = x;
      ttft_line_->setName(QString("TTFT %1 ms").arg(x * 1000, 0, 'f', 1));
    } else {
      const double gap_ms = (e.t_ns - last_chunk_ns_) / 1e6;
      points_.append(QPointF(x, gap_ms));
      y_max_ = std::max(y_max_, gap_ms * 1.15);
    }
    last_chunk_ns_ = e.t_ns;
  }
  if (points_.size() == before && ttft_s_ < 0) return;
  gaps_->replace(points_);
  gap_dots_->replace(points_.size() <= kMaxDots ? points_ : QList<QPointF>{});
  ttft_line_->replace({QPointF(ttft_s_, 0), QPointF(ttft_s_, y_max_)});
  const double x_max = points_.isEmpty() ? ttft_s_ : points_.last().x();
  x_axis_->setRange(0, std::max(0.001, x_max * 1.05));
  y_axis_->setRange(0, y_max_);
}

}  // namespace ts::ui
