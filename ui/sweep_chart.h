// The chart of a sweep: TTFT p99 (left axis) and TPOT p99 (right axis), in ms, against the
// swept value (concurrency, request rate, prompt length, ...), drawn in value order whatever
// order the steps ran in. Each axis scales to its own data, so neither series is a flat line
// under the other or under a far SLO: an SLO within reach of the data is a dashed line, one
// far above it a note at the plot's top edge ("TTFT SLO 5000 ms ↑").
#pragma once
#include <QChartView>
#include <QJsonObject>
#include <QStringList>
#include <optional>
#include <utility>

#include "ui/benchmark_plan.h"

class QGraphicsRectItem;
class QGraphicsSimpleTextItem;
class QLineSeries;
class QValueAxis;

namespace ts::ui {

class SweepChart : public QChartView {
  Q_OBJECT
 public:
  explicit SweepChart(QWidget* parent = nullptr);
  void reset(SweepKind kind, std::optional<double> slo_ttft_ms, std::optional<double> slo_tpot_ms);
  // A finished step: its swept value and its figures ({"ttft_ms": {"p99": …}, "tpot_ms": …}).
  void addStep(double value, const QJsonObject& figures);
  // For tests: the plotted points of "ttft" / "tpot" / "slo_ttft" / "slo_tpot" (x ascending).
  QList<QPointF> points(const QString& series) const;
  // For tests: the range of the axis "ttft" or "tpot" is plotted on ({min, max}, ms).
  std::pair<double, double> yRange(const QString& series) const;
  // For tests: the notes shown for SLOs above their axis ("TTFT SLO 5000 ms ↑").
  QStringList sloNotes() const;

 protected:
  void changeEvent(QEvent* event) override;  // notes' backings in the palette's colour

 private:
  void rescale();
  void placeNotes();  // at the plot area's top corners, after every change of it
  SweepKind kind_ = SweepKind::Concurrency;
  QLineSeries* ttft_;
  QLineSeries* tpot_;
  QLineSeries* slo_ttft_;
  QLineSeries* slo_tpot_;
  QValueAxis* x_;
  QValueAxis* y_;       // TTFT, left
  QValueAxis* y_tpot_;  // TPOT, right
  // Each note's text on a backing of the plot's colour (the lines under it stay hidden).
  QGraphicsSimpleTextItem* note_ttft_;
  QGraphicsSimpleTextItem* note_tpot_;
  QGraphicsRectItem* note_ttft_back_;
  QGraphicsRectItem* note_tpot_back_;
  std::optional<double> slo_ttft_ms_, slo_tpot_ms_;
};

// Inserts `p` into `series` keeping its points' x ascending (a step with an x already there
// goes after it).
void insertByX(QLineSeries* series, const QPointF& p);

}  // namespace ts::ui
