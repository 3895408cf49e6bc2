#include "app/desktop/benchmark_controller.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include "app/local/free_port_server.h"
#include "inference/engine/core/thread_pool.h"
#include "inference/engine/serving/serving_limits.h"

namespace ts {
namespace {

ui::ValueBounds valueBounds(const engine::Bound& b) {
  return {b.lo, b.hi};
}

SweepAxis axisOf(ui::SweepKind kind) {
  switch (kind) {
    case ui::SweepKind::Rate:
      return SweepAxis::Rate;
    case ui::SweepKind::PromptLength:
      return SweepAxis::PromptLength;
    case ui::SweepKind::PrefillChunk:
      return SweepAxis::PrefillChunk;
    case ui::SweepKind::MaxRunning:
      return SweepAxis::MaxRunning;
    case ui::SweepKind::TpotTarget:
      return SweepAxis::TpotTarget;
    case ui::SweepKind::Concurrency:
      break;
  }
  return SweepAxis::Concurrency;
}

}  // namespace

BenchmarkController::BenchmarkController(ui::MainWindow* window, ProviderKeys* keys,
                                         std::function<RunStore*()> store, QObject* parent)
    : QObject(parent), window_(window), keys_(keys), store_(std::move(store)) {
  connect(window, &ui::MainWindow::benchmarkRequested, this, &BenchmarkController::open);
}

void BenchmarkController::open(const ProviderSettings& provider) {
  // The model the chat would ask for: the model box, else the provider's default.
  const QString model = window_->model().isEmpty() ? QString::fromStdString(provider.default_model)
                                                   : window_->model();
  if (provider.kind == ProviderKind::LocalEngine) {
    // Served by the benchmark itself on 127.0.0.1, anew for each step (its scheduler set
    // as the step says), and measured over HTTP as other tools see it.
    local_spec_ = localSpecFor(provider);
    RemoteEndpoint endpoint;
    endpoint.provider_name = QString::fromStdString(provider.name);
    return show(endpoint, model, true);
  }
  local_spec_.reset();
  keys_->resolve(provider, this, [this, model](RemoteEndpoint endpoint, QString error) {
    if (!error.isEmpty()) return window_->showError(tr("Benchmark"), error);
    show(endpoint, model);
  });
}

BenchmarkController::~BenchmarkController() {
  if (sweep_) {
    sweep_->cancel();
    delete sweep_.data();  // its runner and in-flight requests with it, before the server
  }
  step_server_.reset();
  delete dialog_.data();
}

void BenchmarkController::show(const RemoteEndpoint& endpoint, const QString& model, bool local) {
  if (dialog_) dialog_->close();
  dialog_ = new ui::BenchmarkDialog(
      local ? tr("the local model, served on 127.0.0.1 for each step") : endpoint.base_url, model,
      window_, local);
  dialog_->setObjectName("benchmarkDialog");
  // The engine's bounds, as the CLI and the config check them (serving_limits.h).
  dialog_->setBounds(ui::SweepKind::Concurrency, valueBounds(engine::kConcurrencyBound));
  dialog_->setBounds(ui::SweepKind::PrefillChunk, valueBounds(engine::kPrefillChunkBound));
  dialog_->setBounds(ui::SweepKind::MaxRunning, valueBounds(engine::kRunningBound));
  dialog_->setBounds(ui::SweepKind::TpotTarget, valueBounds(engine::kTpotTargetBound));
  dialog_->setBounds(ui::SweepKind::PromptLength, valueBounds(engine::kPromptWordsBound));
  dialog_->setAttribute(Qt::WA_DeleteOnClose);
  ui::BenchmarkDialog* dialog = dialog_;
  connect(dialog, &ui::BenchmarkDialog::startRequested, this,
          [this, endpoint, model](const ui::BenchmarkPlan& plan) {
            if (!local_spec_) return run(endpoint, model, plan, nullptr);
            // The model loads off the GUI thread (at once when the chat holds it already).
            auto* watcher = new QFutureWatcher<std::shared_ptr<LoadedForBench>>(this);
            connect(watcher, &QFutureWatcher<std::shared_ptr<LoadedForBench>>::finished, this,
                    [this, watcher, endpoint, model, plan] {
                      watcher->deleteLater();
                      const auto loaded = watcher->result();
                      if (!dialog_) return;
                      if (!loaded->model) {
                        dialog_->onFinished(true, 0, {});
                        return window_->showError(
                            tr("Benchmark"), tr("The local model cannot run: ") + loaded->error);
                      }
                      run(endpoint, model, plan, loaded->model);
                    });
            const LocalEngineSpec spec = *local_spec_;
            watcher->setFuture(QtConcurrent::run([spec] {
              auto out = std::make_shared<LoadedForBench>();
              out->model = loadLocalModel(spec, out->error);
              return out;
            }));
          });
  connect(dialog, &ui::BenchmarkDialog::cancelRequested, this, [this] {
    if (sweep_) sweep_->cancel();
  });
  dialog->show();
}

QString BenchmarkController::serveStep(const std::shared_ptr<engine::Model>& model,
                                       const QString& model_name, const ui::BenchmarkPlan& plan,
                                       double value, QString& error) {
  step_server_.reset();  // the previous step's server and scheduler go first (cancelled)
  const LocalEngineSpec& spec = *local_spec_;
  engine::SchedulerOptions scheduling;
  if (plan.kind == ui::SweepKind::PrefillChunk) scheduling.prefill_chunk = static_cast<int>(value);
  if (plan.kind == ui::SweepKind::MaxRunning) scheduling.max_running = static_cast<int>(value);
  if (plan.kind == ui::SweepKind::TpotTarget) scheduling.tpot_target_ms = static_cast<int>(value);
  auto kv = engine::parseKvFormat(spec.engine.kv);
  if (!kv) {
    error = QString::fromStdString(kv.error());
    return {};
  }
  FreePortServeSpec serve;
  serve.model = model;
  serve.model_name = model_name.toStdString();
  serve.context = spec.engine.context;
  serve.kv = kv.value();
  serve.backend = backendRequestFor(spec.engine);
  serve.scheduling = scheduling;
  // A benchmark queues rather than being refused (the server keeps a thread per admitted
  // request: at most every request of a step at once)
  serve.max_queue =
      std::min<int>(plan.requests + plan.warmup, static_cast<int>(engine::kQueueBound.hi));
  auto served = FreePortServer::start(serve);
  if (!served) {
    error = QString::fromStdString(served.error());
    return {};
  }
  step_server_ = std::move(served.value());
  step_schedulings_ << QString::fromStdString(step_server_->scheduling());
  return step_server_->baseUrl();
}

void BenchmarkController::run(const RemoteEndpoint& endpoint, const QString& model,
                              const ui::BenchmarkPlan& plan,
                              const std::shared_ptr<engine::Model>& local_model) {
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
  if (ui::sweepsScheduler(plan.kind)) o.concurrency = plan.concurrency;
  o.distinct_prompts = plan.distinct_prompts;
  RunContext context{
      endpoint.provider_name,
      local_model ? QString("local: %1").arg(local_spec_->model_path) : endpoint.base_url, model};
  context.tags = {"bench"};
  if (local_model && local_spec_) {  // what the local runs ran on, for the comparison
    const LocalEngineSettings& runtime = local_spec_->engine;
    context.backend = QString::fromStdString(runtime.backend);
    context.weights = QString::fromStdString(runtime.weights);
    context.kv = QString::fromStdString(runtime.kv);
    context.threads = runtime.threads > 0 ? runtime.threads : engine::ThreadPool::defaultThreads();
  }
  if (sweep_) sweep_->deleteLater();
  step_schedulings_.clear();
  // A child of the dialog: closing it ends the sweep (the dialog asks to cancel first).
  ui::BenchmarkDialog* dialog = dialog_;
  auto* sweep = new BenchSweep(o, axisOf(plan.kind), plan.values, store_(), context, dialog);
  sweep_ = sweep;
  if (local_model)
    sweep->setStepTarget([this, local_model, model, plan](double value, QString& error) {
      return serveStep(local_model, model, plan, value, error);
    });
  connect(sweep, &BenchSweep::failed, this, [this](const QString& message) {
    window_->showError(tr("Benchmark"), tr("The local model cannot be served: ") + message);
  });
  connect(sweep, &BenchSweep::progress, dialog, &ui::BenchmarkDialog::onProgress);
  connect(sweep, &BenchSweep::stepFinished, dialog,
          [dialog](const SweepStep& step) { dialog->onStepFinished(step.value, step.figures); });
  connect(sweep, &BenchSweep::finished, dialog, [this, dialog, sweep](bool cancelled) {
    step_server_.reset();  // nothing serves once the sweep ends (a cancelled one's requests too)
    emit sweepFinished();
    dialog->onFinished(cancelled, static_cast<int>(sweep->steps().size()), sweep->json());
  });
  sweep->start();
}

}  // namespace ts
