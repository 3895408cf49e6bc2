// Speculative runs: how many drafted tokens each draft + verify step had accepted, as bars
// (x: accepted drafts 0..K, y: steps). Hidden for runs without speculative sampling.
#pragma once
#include <QChartView>
#include <cstdint>
#include <vector>

class QBarSeries;
class QBarSet;
class QBarCategoryAxis;
class QValueAxis;

namespace ts::ui {

class AcceptanceChart : public QChartView {
  Q_OBJECT
 public:
  explicit AcceptanceChart(QWidget* parent = nullptr);
  // histogram[n] = steps that accepted n drafts; empty: hides the chart.
  void showHistogram(const std::vector<int32_t>& histogram);
  void reset();
  // What is plotted, for tests: steps per accepted count.
  QList<qreal> bars() const;

 private:
  QBarSeries* series_;
  QBarSet* steps_;
  QBarCategoryAxis* x_axis_;
  QValueAxis* y_axis_;
};

}  // namespace ts::ui
