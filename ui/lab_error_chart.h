// The Lever lab's chart of its own calibration: the cost model's prediction error for
// decode tok/s (%, (1 + predicted) / (1 + measured) − 1) over the past lab runs of one
// lever, one line per lever value, x the run's number (oldest first), with the 0 line.
#pragma once
#include <QChartView>
#include <QList>

#include "ui/lab_report_view.h"

class QLineSeries;
class QValueAxis;

namespace ts::ui {

class LabErrorChart : public QChartView {
  Q_OBJECT
 public:
  explicit LabErrorChart(QWidget* parent = nullptr);
  // Replaces what is drawn; `lever` names it in the title.
  void setPoints(const QString& lever, const QList<LabErrorPoint>& points);
  int pointCount() const { return static_cast<int>(points_.size()); }  // for tests

 private:
  QList<LabErrorPoint> points_;
  QList<QLineSeries*> series_;
  QLineSeries* zero_;
  QValueAxis* x_;
  QValueAxis* y_;
};

}  // namespace ts::ui
