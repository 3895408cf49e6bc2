// The trade-off a sweep traces: one point per setting at (TPOT p99, TTFT p99) in ms, labelled
// with the setting ("concurrency 4"), joined in sweep order. Where the points bend is where a
// setting stops buying one latency with the other (the TTFT / TPOT lever).
#pragma once
#include <QChartView>
#include <QJsonObject>
#include <QList>
#include <QPointF>
#include <QRectF>
#include <QString>

#include "ui/benchmark_plan.h"

class QGraphicsSimpleTextItem;
class QLineSeries;
class QValueAxis;

namespace ts::ui {

class TradeoffChart : public QChartView {
  Q_OBJECT
 public:
  explicit TradeoffChart(QWidget* parent = nullptr);
  void reset(SweepKind kind);
  // A finished step: its swept value and its figures ({"ttft_ms": {"p99": …}, "tpot_ms": …}).
  void addStep(double value, const QJsonObject& figures);
  // For tests: the points (x TPOT p99, y TTFT p99) and their labels, in sweep order.
  QList<QPointF> points() const;
  QStringList labels() const;
  // For tests: where the labels are drawn (chart coordinates).
  QList<QRectF> labelRects() const;

 protected:
  void changeEvent(QEvent* event) override;  // labels in the palette's text colour

 private:
  void rescale();
  void placeLabels();  // beside their points, after every change of the plot area
  SweepKind kind_ = SweepKind::Concurrency;
  QLineSeries* curve_;  // the points in sweep order, each marked
  QValueAxis* x_;
  QValueAxis* y_;
  QList<QGraphicsSimpleTextItem*> labels_;
};

// "concurrency 4", "2 req/s", "512 words": a swept value as a point's label.
QString settingLabel(SweepKind kind, double value);

}  // namespace ts::ui
