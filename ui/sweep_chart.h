// The chart of a sweep: TTFT p99 and TPOT p99 (ms) against the swept value (concurrency,
// request rate or prompt length), with the SLOs as dashed lines, so the step where the
// service stops meeting them is visible.
#pragma once
#include <QChartView>
#include <optional>

#include <QJsonObject>

#include "ui/benchmark_plan.h"

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
  // For tests: the plotted points of "ttft" / "tpot" / "slo_ttft" / "slo_tpot".
  QList<QPointF> points(const QString& series) const;

 private:
  void rescale();
  QLineSeries* ttft_;
  QLineSeries* tpot_;
  QLineSeries* slo_ttft_;
  QLineSeries* slo_tpot_;
  QValueAxis* x_;
  QValueAxis* y_;
  std::optional<double> slo_ttft_ms_, slo_tpot_ms_;
};

}  // namespace ts::ui
