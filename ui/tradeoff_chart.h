// The trade-off a sweep traces: one point per setting at (TPOT p99, TTFT p99) in ms, labelled
// with the setting ("concurrency 4"), joined in the settings' value order (whatever order
// they were entered or ran in; 0 for "no limit" — whole prompts, unpaced — comes last). Where the
// points bend is where a setting stops buying one latency with the other (the TTFT / TPOT lever).
// Axes scale to the points. A label sits beside its point on its own backing (grid lines do not
// cross it), inside the plot, over no other label or point; where no such place exists it is
// hidden, and hovering the point says what it is.
#pragma once
#include <QChartView>
#include <QJsonObject>
#include <QList>
#include <QPointF>
#include <QRectF>
#include <QString>

#include "ui/benchmark_plan.h"

class QGraphicsRectItem;
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
  // For tests: the points (x TPOT p99, y TTFT p99) and their labels, in value order (0 for
  // "no limit" last).
  QList<QPointF> points() const;
  QStringList labels() const;
  QStringList shownLabels() const;  // those with room beside their points, in value order
  // For tests: where the shown labels are drawn (chart coordinates, backing included), and
  // the plot area they must stay in.
  QList<QRectF> labelRects() const;
  QRectF plotArea() const;

 protected:
  void changeEvent(QEvent* event) override;  // labels in the palette's colours

 private:
  struct Step {
    double value;
    QPointF at;                     // (TPOT p99, TTFT p99)
    QGraphicsRectItem* label;       // the backing; the text is its child
    QGraphicsSimpleTextItem* text;  // settingLabel(kind_, value)
  };
  void rescale();
  void placeLabels();  // beside their points, after every change of the plot area
  void paintLabels();
  SweepKind kind_ = SweepKind::Concurrency;
  QLineSeries* curve_;  // the points in value order, each marked
  QValueAxis* x_;
  QValueAxis* y_;
  QList<Step> steps_;  // value ascending, as curve_'s points
};

// "concurrency 4", "2 req/s", "512 words": a swept value as a point's label.
QString settingLabel(SweepKind kind, double value);

}  // namespace ts::ui
