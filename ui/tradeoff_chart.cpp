#include "ui/tradeoff_chart.h"

#include <QChart>
#include <QEvent>
#include <QGraphicsSimpleTextItem>
#include <QLegend>
#include <QLineSeries>
#include <QValueAxis>
#include <algorithm>

#include "ui/chart_palette.h"
#include "ui/nice_axis.h"

namespace ts::ui {

QString settingLabel(SweepKind kind, double value) {
  switch (kind) {
    case SweepKind::Concurrency:
      return QObject::tr("concurrency %1").arg(value);
    case SweepKind::Rate:
      return QObject::tr("%1 req/s").arg(value);
    case SweepKind::PromptLength:
      return QObject::tr("%1 words").arg(value);
    case SweepKind::PrefillChunk:
      return value == 0 ? QObject::tr("whole prompts") : QObject::tr("chunk %1").arg(value);
    case SweepKind::MaxRunning:
      return QObject::tr("%1 running").arg(value);
    case SweepKind::TpotTarget:
      return value == 0 ? QObject::tr("unpaced") : QObject::tr("paced to %1 ms").arg(value);
  }
  return QString::number(value);
}

TradeoffChart::TradeoffChart(QWidget* parent) : QChartView(parent) {
  setObjectName("tradeoffChart");
  auto* chart = new QChart();
  chart->setTitle(tr("TTFT p99 against TPOT p99, one point per setting"));
  chart->legend()->hide();
  curve_ = new QLineSeries(chart);
  curve_->setPointsVisible(true);
  x_ = new QValueAxis(chart);
  x_->setTitleText(tr("TPOT p99 (ms)"));
  y_ = new QValueAxis(chart);
  y_->setTitleText(tr("TTFT p99 (ms)"));
  chart->addAxis(x_, Qt::AlignBottom);
  chart->addAxis(y_, Qt::AlignLeft);
  chart->addSeries(curve_);
  curve_->attachAxis(x_);
  curve_->attachAxis(y_);
  setChart(chart);
  followPalette(this);
  setRenderHint(QPainter::Antialiasing);
  setMinimumHeight(260);
  setToolTip(
      tr("Each point is one step of the sweep: lower is a faster first token, further left "
         "a faster stream once it runs. The curve shows what each setting trades."));
  connect(chart, &QChart::plotAreaChanged, this, [this] { placeLabels(); });
  reset(SweepKind::Concurrency);
}

void TradeoffChart::reset(SweepKind kind) {
  kind_ = kind;
  curve_->clear();
  qDeleteAll(labels_);
  labels_.clear();
  rescale();
}

void TradeoffChart::addStep(double value, const QJsonObject& figures) {
  const QPointF p(figures.value("tpot_ms").toObject().value("p99").toDouble(),
                  figures.value("ttft_ms").toObject().value("p99").toDouble());
  curve_->append(p);
  auto* label = new QGraphicsSimpleTextItem(settingLabel(kind_, value), chart());
  label->setBrush(palette().color(QPalette::WindowText));
  labels_.append(label);
  rescale();
}

void TradeoffChart::changeEvent(QEvent* event) {
  QChartView::changeEvent(event);
  if (event->type() == QEvent::PaletteChange)
    for (QGraphicsSimpleTextItem* l : labels_) l->setBrush(palette().color(QPalette::WindowText));
}

QList<QPointF> TradeoffChart::points() const {
  return curve_->points();
}

QStringList TradeoffChart::labels() const {
  QStringList out;
  for (const QGraphicsSimpleTextItem* l : labels_) out << l->text();
  return out;
}

QList<QRectF> TradeoffChart::labelRects() const {
  QList<QRectF> out;
  for (const QGraphicsSimpleTextItem* l : labels_)
    out << QRectF(l->pos(), l->boundingRect().size());
  return out;
}

void TradeoffChart::rescale() {
  double x_max = 1, y_max = 1;
  for (const QPointF& p : curve_->points()) {
    x_max = std::max(x_max, p.x());
    y_max = std::max(y_max, p.y());
  }
  // from 0: how far each latency is from nothing matters as much as the trade
  setNiceRange(x_, 0, x_max * 1.1);
  setNiceRange(y_, 0, y_max * 1.1);
  placeLabels();
}

void TradeoffChart::placeLabels() {
  // Up and right of its point; a label that would cover one placed before moves down a line
  // at a time (settings close in latency stack their labels instead of printing over each
  // other).
  const QList<QPointF> points = curve_->points();
  QList<QRectF> placed;
  for (qsizetype i = 0; i < labels_.size() && i < points.size(); ++i) {
    const QSizeF size = labels_[i]->boundingRect().size();
    QRectF at(chart()->mapToPosition(points[i], curve_) + QPointF(7, -size.height() - 2), size);
    for (int tries = 0;
         tries < labels_.size() && std::any_of(placed.begin(), placed.end(),
                                               [&](const QRectF& r) { return r.intersects(at); });
         ++tries)
      at.translate(0, size.height());
    labels_[i]->setPos(at.topLeft());
    placed.append(at);
  }
}

}  // namespace ts::ui
