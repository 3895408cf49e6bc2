#include "ui/lab_error_chart.h"

#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPen>
#include <QValueAxis>
#include <algorithm>

#include "ui/chart_palette.h"
#include "ui/nice_axis.h"

namespace ts::ui {

LabErrorChart::LabErrorChart(QWidget* parent) : QChartView(parent) {
  setObjectName("labErrorChart");
  auto* chart = new QChart();
  chart->setMargins(QMargins(4, 4, 4, 4));
  chart->legend()->setAlignment(Qt::AlignRight);
  zero_ = new QLineSeries(chart);
  zero_->setPen(QPen(Qt::gray, 1, Qt::DashLine));
  chart->addSeries(zero_);
  x_ = new QValueAxis(chart);
  x_->setTitleText(tr("lab run"));
  y_ = new QValueAxis(chart);
  y_->setTitleText(tr("error %"));
  chart->addAxis(x_, Qt::AlignBottom);
  chart->addAxis(y_, Qt::AlignLeft);
  zero_->attachAxis(x_);
  zero_->attachAxis(y_);
  setChart(chart);
  chart->legend()->markers(zero_).value(0)->setVisible(false);
  followPalette(this);
  setRenderHint(QPainter::Antialiasing);
  setToolTip(
      tr("How far the cost model's prediction of decode tok/s was from the measurement in "
         "each past lab run of this lever: (1 + predicted) / (1 + measured) − 1. Near 0: "
         "the model of this machine is calibrated."));
  setMinimumHeight(180);
  setMaximumHeight(280);
  setPoints({}, {});
}

void LabErrorChart::setPoints(const QString& lever, const QList<LabErrorPoint>& points) {
  points_ = points;
  for (QLineSeries* s : series_) {
    chart()->removeSeries(s);
    delete s;
  }
  series_.clear();
  const QString title =
      lever.isEmpty() ? tr("Prediction error of decode tok/s over past runs")
                      : tr("Prediction error of decode tok/s over past runs of %1").arg(lever);
  chart()->setTitle(points.isEmpty() ? tr("%1: none yet").arg(title) : title);
  int runs = 1;
  double lo = -5, hi = 5;
  QStringList values;
  for (const LabErrorPoint& p : points)
    if (!values.contains(p.value)) values << p.value;
  for (const QString& value : values) {
    auto* s = new QLineSeries(chart());
    s->setName(value);
    s->setPointsVisible(true);
    for (const LabErrorPoint& p : points) {
      if (p.value != value) continue;
      s->append(p.run, p.error_pct);
      runs = std::max(runs, p.run);
      lo = std::min(lo, p.error_pct);
      hi = std::max(hi, p.error_pct);
    }
    chart()->addSeries(s);
    s->attachAxis(x_);
    s->attachAxis(y_);
    series_ << s;
  }
  zero_->replace({QPointF(0, 0), QPointF(runs + 1, 0)});
  setNiceRange(x_, 0, runs + 1, 6, true);  // set anew on each update (fitNiceRange would pile up)
  setNiceRange(y_, lo, hi, 5);
  chart()->legend()->setVisible(!series_.isEmpty());
}

}  // namespace ts::ui
