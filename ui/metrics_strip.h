// The strip under the answer: TTFT, TPOT, decode and overall tokens/s, output tokens
// with where the count came from, E2E and ITL percentiles. Each shows its definition
// on hover.
#pragma once
#include <QLabel>
#include <QWidget>

#include "inference/stream/metrics.h"

namespace ts::ui {

class MetricsStrip : public QWidget {
  Q_OBJECT
 public:
  explicit MetricsStrip(QWidget* parent = nullptr);
  void showMetrics(const RunMetrics& metrics);
  void clear();

 private:
  QLabel* addField(const QString& name, const QString& object_name, const QString& definition);

  QLabel* ttft_;
  QLabel* tpot_;
  QLabel* decode_rate_;
  QLabel* overall_rate_;
  QLabel* output_tokens_;
  QLabel* e2e_;
  QLabel *itl_, *prompt_, *acceptance_;
};

}  // namespace ts::ui
