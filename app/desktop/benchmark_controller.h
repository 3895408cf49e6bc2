// Provider → Benchmark: the dialog against the provider's endpoint, or for a local
// provider against its model served here on 127.0.0.1 anew for each step (so that a step
// can set the scheduler: prefill chunk, running sequences); the dialog's plan runs as a
// BenchSweep whose steps are recorded in the run store, and its progress, steps and end
// are fed back to the dialog.
#pragma once
#include <QObject>
#include <QPointer>
#include <QStringList>
#include <functional>
#include <memory>
#include <optional>

#include "app/bench/bench_sweep.h"
#include "app/desktop/provider_keys.h"
#include "app/local/free_port_server.h"
#include "app/local/local_engine_loader.h"
#include "ui/benchmark_dialog.h"
#include "ui/main_window.h"

namespace ts {

class BenchmarkController : public QObject {
  Q_OBJECT
 public:
  // `store`: where the steps are recorded (may return null: not recorded).
  BenchmarkController(ui::MainWindow* window, ProviderKeys* keys, std::function<RunStore*()> store,
                      QObject* parent = nullptr);
  // A sweep still running is cancelled and deleted first: its steps call back into this
  // controller (serveStep) and must not outlive it (a language switch rebuilds the window).
  ~BenchmarkController() override;
  ui::BenchmarkDialog* dialog() const { return dialog_; }
  // How each step of the last local sweep was served (FreePortServer::scheduling), in order.
  const QStringList& stepSchedulings() const { return step_schedulings_; }
  bool isRunning() const { return sweep_ && sweep_->isRunning(); }  // a sweep runs now

 signals:
  void sweepFinished();  // its steps are in the run store

 private:
  struct LoadedForBench {
    std::shared_ptr<engine::Model> model;
    QString error;
  };
  void open(const ProviderSettings& provider);
  void show(const RemoteEndpoint& endpoint, const QString& model, bool local = false);
  // local_model: serve it for each step (local providers), else requests go to `endpoint`.
  void run(const RemoteEndpoint& endpoint, const QString& model, const ui::BenchmarkPlan& plan,
           const std::shared_ptr<engine::Model>& local_model);
  // A server for one step on `model` with the plan's scheduler setting `value`: its base
  // URL, or "" with `error`.
  QString serveStep(const std::shared_ptr<engine::Model>& model, const QString& model_name,
                    const ui::BenchmarkPlan& plan, double value, QString& error);

  ui::MainWindow* window_;
  ProviderKeys* keys_;
  std::function<RunStore*()> store_;
  QPointer<ui::BenchmarkDialog> dialog_;
  QPointer<BenchSweep> sweep_;
  std::optional<LocalEngineSpec> local_spec_;  // the dialog benchmarks this local model
  std::unique_ptr<FreePortServer> step_server_;
  QStringList step_schedulings_;
};

}  // namespace ts
