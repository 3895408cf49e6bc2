#include "ui/sweep_chart.h"

#include <QChart>
#include <QLegend>
#include <QLineSeries>
#include <QPen>
#include <QValueAxis>
#include <algorithm>

#include "ui/chart_palette.h"
#include "ui/nice_axis.h"

namespace ts::ui {

SweepChart::SweepChart(QWidget* parent) : QChartView(parent) {
  setObjectName("sweepChart");
  auto* chart = new QChart();
  chart->legend()->setAlignment(Qt::AlignBottom);
  ttft_ = new QLineSeries(chart);
  ttft_->setName(tr("TTFT p99 (ms)"));
  ttft_->setPointsVisible(true);
  tpot_ = new QLineSeries(chart);
  tpot_->setName(tr("TPOT p99 (ms)"));
  tpot_->setPointsVisible(true);
  slo_ttft_ = new QLineSeries(chart);
  slo_ttft_->setName(tr("TTFT SLO"));
  slo_tpot_ = new QLineSeries(chart);
  slo_tpot_->setName(tr("TPOT SLO"));
  x_ = new QValueAxis(chart);
  y_ = new QValueAxis(chart);
  y_->setTitleText(tr("ms"));
  chart->addAxis(x_, Qt::AlignBottom);
  chart->addAxis(y_, Qt::AlignLeft);
  for (QLineSeries* s : {ttft_, tpot_, slo_ttft_, slo_tpot_}) {
    chart->addSeries(s);
    s->attachAxis(x_);
    s->attachAxis(y_);
  }
  // Each SLO dashed, in its metric's colour.
  for (auto [slo, of] : {std::pair{slo_ttft_, ttft_}, std::pair{slo_tpot_, tpot_}}) {
    QPen pen(of->color());
    pen.setStyle(Qt::DashLine);
    pen.setWidth(2);
    slo->setPen(pen);
  }
  setChart(chart);
  ui::followPalette(this);
  setRenderHint(QPainter::Antialiasing);
  setMinimumHeight(220);
  setToolTip(
      tr("p99 of each step: where a line crosses its dashed SLO, the service stops "
         "meeting it"));
}

void SweepChart::reset(SweepKind kind, std::optional<double> slo_ttft_ms,
                       std::optional<double> slo_tpot_ms) {
  for (QLineSeries* s : {ttft_, tpot_, slo_ttft_, slo_tpot_}) s->clear();
  slo_ttft_ms_ = slo_ttft_ms;
  slo_tpot_ms_ = slo_tpot_ms;
  slo_ttft_->setVisible(slo_ttft_ms.has_value());
  slo_tpot_->setVisible(slo_tpot_ms.has_value());
  x_->setTitleText(kind == SweepKind::Concurrency    ? tr("concurrent requests")
                   : kind == SweepKind::Rate         ? tr("requests per second")
                   : kind == SweepKind::PrefillChunk ? tr("prefill chunk (tokens; 0: whole)")
                   : kind == SweepKind::MaxRunning   ? tr("running sequences")
                   : kind == SweepKind::TpotTarget   ? tr("TPOT target (ms; 0: unpaced)")
                                                     : tr("prompt length (words)"));
  chart()->setTitle(tr("p99 latency per step"));
  rescale();
}

void SweepChart::addStep(double value, const QJsonObject& figures) {
  ttft_->append(value, figures.value("ttft_ms").toObject().value("p99").toDouble());
  tpot_->append(value, figures.value("tpot_ms").toObject().value("p99").toDouble());
  rescale();
}

void SweepChart::rescale() {
  double x_min = 0, x_max = 1, y_max = 1;
  const QList<QPointF> all = ttft_->points() + tpot_->points();
  if (!all.isEmpty()) {
    x_min = x_max = all.front().x();
    for (const QPointF& p : all) {
      x_min = std::min(x_min, p.x());
      x_max = std::max(x_max, p.x());
      y_max = std::max(y_max, p.y());
    }
  }
  if (x_max <= x_min) x_max = x_min + 1;
  for (auto [series, slo] :
       {std::pair{slo_ttft_, slo_ttft_ms_}, std::pair{slo_tpot_, slo_tpot_ms_}}) {
    series->clear();
    if (!slo) continue;
    series->append(x_min, *slo);
    series->append(x_max, *slo);
    y_max = std::max(y_max, *slo);
  }
  setNiceRange(x_, x_min, x_max);
  setNiceRange(y_, 0, y_max * 1.05);
}

QList<QPointF> SweepChart::points(const QString& series) const {
  if (series == "ttft") return ttft_->points();
  if (series == "tpot") return tpot_->points();
  if (series == "slo_ttft") return slo_ttft_->points();
  return slo_tpot_->points();
}

}  // namespace ts::ui
