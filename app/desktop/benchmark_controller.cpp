#include "app/desktop/benchmark_controller.h"

namespace ts {
namespace {

SweepAxis axisOf(ui::SweepKind kind) {
  switch (kind) {
    case ui::SweepKind::Rate:
      return SweepAxis::Rate;
    case ui::SweepKind::PromptLength:
      return SweepAxis::PromptLength;
    case ui::SweepKind::Concurrency:
      break;
  }
  return SweepAxis::Concurrency;
}

}  // namespace

BenchmarkController::BenchmarkController(ui::MainWindow* window, ProviderKeys* keys,
                                         LocalServing* serving, std::function<RunStore*()> store,
                                         QObject* parent)
    : QObject(parent), window_(window), keys_(keys), serving_(serving), store_(std::move(store)) {
  connect(window, &ui::MainWindow::benchmarkRequested, this, &BenchmarkController::open);
}

void BenchmarkController::open(const ProviderSettings& provider) {
  // The model the chat would ask for: the model box, else the provider's default.
  const QString model = window_->model().isEmpty() ? QString::fromStdString(provider.default_model)
                                                   : window_->model();
  if (provider.kind == ProviderKind::LocalEngine) {
    if (!serving_->isServing())
      return window_->showError(
          tr("Benchmark"),
          tr("A local model is benchmarked over HTTP, as other tools see it: start Provider → "
             "Serve the local model first, then open the benchmark again."));
    RemoteEndpoint endpoint;
    endpoint.provider_name = QString::fromStdString(provider.name);
    endpoint.base_url = QString("http://127.0.0.1:%1").arg(serving_->port());
    return show(endpoint, model);
  }
  keys_->resolve(provider, [this, model](RemoteEndpoint endpoint, QString error) {
    if (!error.isEmpty()) return window_->showError(tr("Benchmark"), error);
    show(endpoint, model);
  });
}

void BenchmarkController::show(const RemoteEndpoint& endpoint, const QString& model) {
  if (dialog_) dialog_->close();
  dialog_ = new ui::BenchmarkDialog(endpoint.base_url, model, window_);
  dialog_->setObjectName("benchmarkDialog");
  dialog_->setAttribute(Qt::WA_DeleteOnClose);
  ui::BenchmarkDialog* dialog = dialog_;
  connect(dialog, &ui::BenchmarkDialog::startRequested, this,
          [this, endpoint, model](const ui::BenchmarkPlan& plan) { run(endpoint, model, plan); });
  connect(dialog, &ui::BenchmarkDialog::cancelRequested, this, [this] {
    if (sweep_) sweep_->cancel();
  });
  dialog->show();
}

void BenchmarkController::run(const RemoteEndpoint& endpoint, const QString& model,
                              const ui::BenchmarkPlan& plan) {
  BenchOptions o;
  o.endpoint = endpoint;
  o.endpoint.max_retries = 0;  // a benchmark measures what happens, without second chances
  o.request.provider = endpoint.provider_name.toStdString();
  o.request.model = model.toStdString();
  o.request.messages = {{"user", plan.prompt.toStdString()}};
  o.request.params.max_tokens = plan.max_tokens;
  o.request.params.temperature = 0;
  o.request.params.seed = 0;
  o.requests = plan.requests;
  o.warmup = plan.warmup;
  o.burstiness = plan.burstiness;
  o.slo.ttft_ms = plan.slo_ttft_ms;
  o.slo.tpot_ms = plan.slo_tpot_ms;
  RunContext context{endpoint.provider_name, endpoint.base_url, model};
  context.tags = {"bench"};
  if (sweep_) sweep_->deleteLater();
  // A child of the dialog: closing it ends the sweep (the dialog asks to cancel first).
  ui::BenchmarkDialog* dialog = dialog_;
  auto* sweep = new BenchSweep(o, axisOf(plan.kind), plan.values, store_(), context, dialog);
  sweep_ = sweep;
  connect(sweep, &BenchSweep::progress, dialog, &ui::BenchmarkDialog::onProgress);
  connect(sweep, &BenchSweep::stepFinished, dialog,
          [dialog](const SweepStep& step) { dialog->onStepFinished(step.value, step.figures); });
  connect(sweep, &BenchSweep::finished, dialog, [this, dialog, sweep](bool cancelled) {
    emit sweepFinished();
    dialog->onFinished(cancelled, static_cast<int>(sweep->steps().size()), sweep->json());
  });
  sweep->start();
}

}  // namespace ts
