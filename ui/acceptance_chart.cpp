#include "ui/acceptance_chart.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QLegend>
#include <QValueAxis>
#include <algorithm>

#include "ui/chart_palette.h"
#include "ui/nice_axis.h"

namespace ts::ui {

AcceptanceChart::AcceptanceChart(QWidget* parent) : QChartView(parent) {
  setObjectName("acceptanceChart");
  auto* chart = new QChart();
  chart->setTitle(tr("Accepted drafts per step"));
  chart->legend()->hide();
  chart->setMargins(QMargins(4, 4, 4, 4));
  steps_ = new QBarSet(tr("steps"));
  steps_->setColor(QColor(0x27, 0xae, 0x60));
  series_ = new QBarSeries(chart);
  series_->append(steps_);
  chart->addSeries(series_);
  x_axis_ = new QBarCategoryAxis(chart);
  x_axis_->setTitleText(tr("drafted tokens the target accepted"));
  y_axis_ = new QValueAxis(chart);
  y_axis_->setTitleText(tr("steps"));
  chart->addAxis(x_axis_, Qt::AlignBottom);
  chart->addAxis(y_axis_, Qt::AlignLeft);
  series_->attachAxis(x_axis_);
  series_->attachAxis(y_axis_);
  setChart(chart);
  followPalette(this);
  setRenderHint(QPainter::Antialiasing);
  setToolTip(
      tr("Each speculative step drafts K tokens and the target verifies them in one "
         "pass: a bar is the number of steps that kept n of the drafts (every step also "
         "adds one token of the target's own)."));
  setMinimumHeight(160);
  hide();
}

void AcceptanceChart::showHistogram(const std::vector<int32_t>& histogram) {
  if (histogram.empty()) return reset();
  steps_->remove(0, steps_->count());
  QStringList categories;
  int32_t most = 1;
  for (size_t n = 0; n < histogram.size(); ++n) {
    categories << QString::number(n);
    steps_->append(static_cast<qreal>(histogram[n]));
    most = std::max(most, histogram[n]);
  }
  x_axis_->clear();
  x_axis_->append(categories);
  setNiceRange(y_axis_, 0, static_cast<double>(most), 6, true);
  show();
}

void AcceptanceChart::reset() {
  steps_->remove(0, steps_->count());
  hide();
}

QList<qreal> AcceptanceChart::bars() const {
  QList<qreal> out;
  for (int i = 0; i < steps_->count(); ++i) out << steps_->at(i);
  return out;
}

}  // namespace ts::ui
