// The strip under the answer: TTFT, TPOT, decode and overall tokens/s, output tokens
// with where the count came from, E2E and ITL percentiles. Each shows its definition
// on hover. The fields wrap into rows (at most three) when the strip is narrow, and a
// value still too long is cut with "…" (whole on hover): the strip never widens the window.
#pragma once
#include <QLabel>
#include <QWidget>
#include <vector>

class QGridLayout;

#include "inference/stream/metrics.h"
#include "ui/elided_label.h"

namespace ts::ui {

class MetricsStrip : public QWidget {
  Q_OBJECT
 public:
  explicit MetricsStrip(QWidget* parent = nullptr);
  void showMetrics(const RunMetrics& metrics);
  void clear();

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  // Places the fields in the most columns that show them whole within `width` px.
  void arrange(int width);
  ElidedLabel* addField(const QString& name, const QString& object_name, const QString& definition);

  ElidedLabel* ttft_;
  ElidedLabel* tpot_;
  ElidedLabel* decode_rate_;
  ElidedLabel* overall_rate_;
  ElidedLabel* output_tokens_;
  ElidedLabel* e2e_;
  ElidedLabel *itl_, *prompt_, *acceptance_;
  QGridLayout* grid_;
  std::vector<QWidget*> boxes_;  // caption over value, in reading order
  int columns_ = 0;              // as arranged now (0: not yet)
};

}  // namespace ts::ui
