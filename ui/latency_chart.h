// Live chart of one run: the gap before every content chunk (ms) against the time it
// arrived (s since the request started), with TTFT marked as a vertical line. Points are
// pushed in batches (one replace() per frame), as in Qt Charts' audio example.
#pragma once
#include <QChartView>
#include <QList>
#include <QPointF>

#include "inference/stream/run_recorder.h"

class QLineSeries;
class QScatterSeries;
class QValueAxis;

namespace ts::ui {

class LatencyChart : public QChartView {
  Q_OBJECT
 public:
  explicit LatencyChart(QWidget* parent = nullptr);
  void reset();
  // Adds the content chunks of `run` that arrived since the last call.
  void appendFrom(const RecordedRun& run);
  qsizetype pointCount() const { return points_.size(); }

 private:
  QLineSeries* gaps_;
  QScatterSeries* gap_dots_;
  QLineSeries* ttft_line_;
  QValueAxis* x_axis_;
  QValueAxis* y_axis_;
  QList<QPointF> points_;
  size_t next_event_ = 0;       // first event of the run not yet plotted
  int64_t last_chunk_ns_ = -1;  // arrival of the previous content chunk
  double ttft_s_ = -1;
  double y_max_ = 1;
};

}  // namespace ts::ui
