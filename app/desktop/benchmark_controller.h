// Provider → Benchmark: the dialog against the provider's endpoint (a local provider: the
// address it is served at, once Provider → Serve runs); the dialog's plan runs as a
// BenchSweep whose steps are recorded in the run store, and its progress, steps and end
// are fed back to the dialog.
#pragma once
#include <QObject>
#include <QPointer>
#include <functional>

#include "app/bench/bench_sweep.h"
#include "app/desktop/provider_keys.h"
#include "app/local/local_serving.h"
#include "ui/benchmark_dialog.h"
#include "ui/main_window.h"

namespace ts {

class BenchmarkController : public QObject {
  Q_OBJECT
 public:
  // `store`: where the steps are recorded (may return null: not recorded).
  BenchmarkController(ui::MainWindow* window, ProviderKeys* keys, LocalServing* serving,
                      std::function<RunStore*()> store, QObject* parent = nullptr);
  ui::BenchmarkDialog* dialog() const { return dialog_; }

 signals:
  void sweepFinished();  // its steps are in the run store

 private:
  void open(const ProviderSettings& provider);
  void show(const RemoteEndpoint& endpoint, const QString& model);
  void run(const RemoteEndpoint& endpoint, const QString& model, const ui::BenchmarkPlan& plan);

  ui::MainWindow* window_;
  ProviderKeys* keys_;
  LocalServing* serving_;
  std::function<RunStore*()> store_;
  QPointer<ui::BenchmarkDialog> dialog_;
  QPointer<BenchSweep> sweep_;
};

}  // namespace ts
