// The benchmark dialog: the same prompt N times per step (after W warm-ups) against the
// current provider's endpoint, swept over concurrency (1, 2, 4, ...), request rates or
// prompt lengths; live progress; per step mean / p50 / p90 / p99 of TTFT, TPOT, ITL and
// E2E, throughput and goodput against the SLOs set here; the sweep chart of TTFT p99 and
// TPOT p99 with the SLO lines. Requests go to the run store (one group per step), the
// figures to JSON with Save.
#pragma once
#include <QDialog>
#include <QPointer>

#include "app/bench/bench_sweep.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace ts {

class SweepChart;

class BenchmarkDialog : public QDialog {
  Q_OBJECT
 public:
  BenchmarkDialog(RemoteEndpoint endpoint, QString model, RunStore* store,
                  QWidget* parent = nullptr);
  ~BenchmarkDialog() override;
  BenchSweep* sweep() const { return sweep_; }
  SweepChart* chart() const { return chart_; }
  QString saveJson(const QString& path) const;  // "" or why not

 signals:
  void sweepFinished(bool cancelled);

 private:
  void start();
  void addRow(const SweepStep& step);

  RemoteEndpoint endpoint_;
  QString model_;
  RunStore* store_;
  QPlainTextEdit* prompt_;
  QSpinBox* requests_;
  QSpinBox* warmup_;
  QSpinBox* max_tokens_;
  QComboBox* axis_;
  QLineEdit* values_;
  QDoubleSpinBox* burstiness_;
  QDoubleSpinBox* slo_ttft_;
  QDoubleSpinBox* slo_tpot_;
  QProgressBar* bar_;
  QLabel* status_;
  QTableWidget* table_;
  SweepChart* chart_;
  QPushButton* start_;
  QPushButton* cancel_;
  QPushButton* save_;
  QPointer<BenchSweep> sweep_;
};

}  // namespace ts
