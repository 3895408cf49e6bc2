#include "app/bench/bench_sweep.h"

#include <QDateTime>

namespace ts {

const char* sweepAxisName(SweepAxis axis) {
  switch (axis) {
    case SweepAxis::Rate:
      return "request_rate";
    case SweepAxis::PromptLength:
      return "prompt_words";
    case SweepAxis::PrefillChunk:
      return "prefill_chunk";
    case SweepAxis::MaxRunning:
      return "max_running";
    case SweepAxis::TpotTarget:
      return "tpot_target_ms";
    case SweepAxis::Concurrency:
      break;
  }
  return "concurrency";
}

BenchSweep::BenchSweep(BenchOptions base, SweepAxis axis, QList<double> values, RunStore* store,
                       RunContext context, QObject* parent)
    : QObject(parent),
      base_(std::move(base)),
      axis_(axis),
      values_(std::move(values)),
      store_(store),
      context_(std::move(context)) {}

void BenchSweep::start() {
  started_ = QDateTime::currentDateTimeUtc().toString(Qt::ISODate);
  steps_.clear();
  cancelled_ = false;
  runStep();
}

void BenchSweep::cancel() {
  cancelled_ = true;
  if (runner_) runner_->cancel();
}

BenchOptions BenchSweep::optionsFor(double value) const {
  BenchOptions o = base_;
  switch (axis_) {
    case SweepAxis::Concurrency:
      o.concurrency = static_cast<int>(value);
      break;
    case SweepAxis::Rate:
      o.rate = value;
      break;
    case SweepAxis::PromptLength: {
      // The prompt's words repeated (in order) to `value` words.
      const QStringList words = QString::fromStdString(base_.request.messages.back().content)
                                    .split(' ', Qt::SkipEmptyParts);
      QStringList out;
      for (int i = 0; i < static_cast<int>(value) && !words.isEmpty(); ++i)
        out << words[i % words.size()];
      o.request.messages.back().content = out.join(' ').toStdString();
      break;
    }
    case SweepAxis::PrefillChunk:
    case SweepAxis::MaxRunning:
    case SweepAxis::TpotTarget:
      break;  // what serves changes (the step target), not the requests
  }
  return o;
}

void BenchSweep::runStep() {
  const int index = static_cast<int>(steps_.size());
  if (cancelled_ || index >= values_.size()) return emit finished(cancelled_);
  const double value = values_[index];
  BenchOptions options = optionsFor(value);
  if (target_) {
    QString error;
    const QString url = target_(value, error);
    if (url.isEmpty()) {
      emit failed(error);
      return emit finished(true);
    }
    options.endpoint.base_url = url;
  }
  runner_ = new BenchRunner(options, this);
  connect(runner_, &BenchRunner::requestFinished, this,
          [this, index](int done, int total, const RecordedRun&, bool) {
            emit progress(index, static_cast<int>(values_.size()), done, total);
          });
  connect(runner_, &BenchRunner::finished, this, [this, options, value] {
    BenchRunner* runner = runner_;
    runner_ = nullptr;
    runner->deleteLater();
    SweepStep step{value, runner->result().json(options)};
    if (store_) {  // after the step, never while it measures
      RunContext context = context_;
      context.group = QString("bench %1 %2=%3").arg(started_, sweepAxisName(axis_)).arg(value);
      for (const BenchRequest& r : runner->result().requests)
        RunStoreWriter(*store_, options.request, context).finish(r.run);
    }
    steps_.append(step);
    emit stepFinished(step);
    runStep();
  });
  runner_->start();
}

QJsonObject BenchSweep::json() const {
  QJsonArray steps;
  for (const SweepStep& s : steps_) {
    QJsonObject o = s.figures;
    o.remove("per_request");
    o.insert("value", s.value);
    steps.append(o);
  }
  QJsonObject slo;
  if (base_.slo.ttft_ms) slo.insert("ttft_ms", *base_.slo.ttft_ms);
  if (base_.slo.tpot_ms) slo.insert("tpot_ms", *base_.slo.tpot_ms);
  QJsonObject out{{"axis", sweepAxisName(axis_)}, {"steps", steps}, {"slo", slo}};
  // The run's settings, so that a saved sweep says what was measured and how.
  const SamplingParams& p = base_.request.params;
  QJsonArray values;
  for (double v : values_) values.append(v);
  out.insert("values", values);
  out.insert("model", QString::fromStdString(base_.request.model));
  out.insert("provider", context_.provider);
  // the address the requests went to ("local: <model file>" when the app served it)
  out.insert("base_url", context_.base_url.isEmpty() ? base_.endpoint.base_url : context_.base_url);
  out.insert("prompt", base_.request.messages.empty()
                           ? QString()
                           : QString::fromStdString(base_.request.messages.back().content));
  out.insert("max_tokens", p.max_tokens);
  out.insert("temperature", p.temperature);
  if (p.seed) out.insert("seed", static_cast<qint64>(*p.seed));
  out.insert("requests_per_step", base_.requests);
  out.insert("warmup_requests", base_.warmup);
  out.insert("distinct_prompts", base_.distinct_prompts);
  // what the axis does not vary: the scheduler sweeps' requests in flight, a rate's cap
  if (axis_ != SweepAxis::Concurrency && base_.concurrency)
    out.insert("concurrency", *base_.concurrency);
  if (axis_ == SweepAxis::Rate) out.insert("burstiness", base_.burstiness);
  out.insert("date", started_);  // ISO 8601, UTC: when the sweep started
  out.insert("app_version", QStringLiteral(TOKENSCOPE_VERSION));
  return out;
}

}  // namespace ts
