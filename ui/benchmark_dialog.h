// The benchmark dialog: the same prompt N times per step (after W warm-ups) against the
// current provider's endpoint, swept over concurrency (1, 2, 4, ...), request rates or
// prompt lengths; live progress; per step mean / p50 / p90 / p99 of TTFT, TPOT, ITL and
// E2E, throughput and goodput against the SLOs set here; the sweep chart of TTFT p99 and
// TPOT p99 with the SLO lines and the trade-off between them. Requests go to the run store
// (one group per step); Export saves the sweep as JSON (figures and the run's settings),
// its steps as CSV and either chart as PNG or SVG.
#pragma once
#include <QDialog>
#include <QJsonObject>
#include <map>
#include <optional>

#include "ui/benchmark_plan.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLayout;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace ts::ui {

class SweepChart;
class TradeoffChart;

// Widgets only: Start emits the plan, the app runs it and reports back through the slots.
class BenchmarkDialog : public QDialog {
  Q_OBJECT
 public:
  // `endpoint`: the address shown (requests go there), `model`: the model asked for.
  // `local_model`: the app serves the model itself, so the scheduler's settings can be
  // swept too (prefill chunk, running sequences).
  BenchmarkDialog(const QString& endpoint, const QString& model, QWidget* parent = nullptr,
                  bool local_model = false);
  ~BenchmarkDialog() override;
  SweepChart* chart() const { return chart_; }
  TradeoffChart* tradeoffChart() const { return tradeoff_; }
  // The last finished sweep: "" or why not.
  QString saveJson(const QString& path) const;  // the sweep as BenchSweep::json gives it
  QString saveCsv(const QString& path) const;   // its steps (ui/benchmark_csv.h)
  // A sweep of `kind` takes whole numbers within `bounds` only (a value outside is refused
  // before anything runs); Concurrency's bounds hold for the scheduler sweeps' concurrency
  // too. Kinds without bounds take any positive number (or 0 where it means something).
  void setBounds(SweepKind kind, ValueBounds bounds);

 public slots:
  // Step `step` of `steps` (from 0): `done` of its `total` requests have finished.
  void onProgress(int step, int steps, int done, int total);
  void onStepFinished(double value, const QJsonObject& figures);  // one row, one chart point
  // The sweep ended; `sweep` is what Save JSON writes ({"axis", "steps", "slo"}).
  void onFinished(bool cancelled, int steps, const QJsonObject& sweep);
  // Asks where, then saves: "json", "csv", or "sweep.png" / "sweep.svg" / "tradeoff.png" /
  // "tradeoff.svg" (a chart as shown).
  void exportAs(const QString& what);

 signals:
  void startRequested(const ts::ui::BenchmarkPlan& plan);
  void cancelRequested();  // also when the dialog goes away while a sweep runs
  void sweepFinished(bool cancelled);

 private:
  // The constructor's steps: the request's settings, the sweep's, the progress row with
  // Start / Cancel / Export, the steps' table, the two charts.
  QLayout* buildRequestForm();
  QLayout* buildSweepForm(bool local_model);
  void buildAxis(bool local_model);  // the sweep's kinds (the scheduler's for a local model)
  void axisChanged();                // its values and fields follow the kind chosen
  QLayout* buildRunRow();
  void buildTable();
  void fitTableHeight();  // as tall as its rows (at least 4, at most 8)
  QLayout* buildCharts();
  void start();
  // The values of a sweep of `kind` as typed, or nullopt after saying in the status line why not.
  std::optional<QList<double>> parseValues(SweepKind kind);
  void showFieldsFor(SweepKind kind);  // the settings that apply to a sweep of `kind`

  QPlainTextEdit* prompt_;
  QSpinBox* requests_;
  QSpinBox* warmup_;
  QSpinBox* max_tokens_;
  QComboBox* axis_;
  QLineEdit* values_;
  QSpinBox* concurrency_;
  QCheckBox* distinct_;
  QDoubleSpinBox* burstiness_;
  QDoubleSpinBox* slo_ttft_;
  QDoubleSpinBox* slo_tpot_;
  QProgressBar* bar_;
  QLabel* status_;
  QTableWidget* table_;
  SweepChart* chart_;
  TradeoffChart* tradeoff_;
  QPushButton* start_;
  QPushButton* cancel_;
  QPushButton* save_;  // Export: a menu of formats
  QFormLayout* sweep_form_;
  bool running_ = false;
  QJsonObject sweep_;  // the last finished sweep
  std::map<SweepKind, ValueBounds> bounds_;
};

}  // namespace ts::ui
