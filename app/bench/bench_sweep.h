// A benchmark sweep: one BenchRunner step per value -- concurrency 1, 2, 4, ... C, or
// request rates, or prompt lengths (the prompt repeated to about N words) -- run one
// after another; each step's figures (BenchResult::json) and its requests (a group in the
// run store) are kept. The charts of a sweep plot TTFT p99 and TPOT p99 against the value.
#pragma once
#include <QJsonArray>
#include <QObject>
#include <QPointer>
#include <functional>
#include <memory>

#include "app/bench/bench_runner.h"
#include "app/store/run_store.h"

namespace ts {

// PrefillChunk, MaxRunning and TpotTarget vary what serves (a local model's scheduler): the
// sweep's step target sets it up for each value.
enum class SweepAxis { Concurrency, Rate, PromptLength, PrefillChunk, MaxRunning, TpotTarget };
// "concurrency" | "request_rate" | "prompt_words" | "prefill_chunk" | "max_running" |
// "tpot_target_ms"
const char* sweepAxisName(SweepAxis axis);

struct SweepStep {
  double value = 0;  // the concurrency, rate or prompt length of this step
  QJsonObject figures;
};

class BenchSweep : public QObject {
  Q_OBJECT
 public:
  // `base` holds the endpoint, prompt, requests, warm-ups, SLOs (and the rate or the
  // concurrency that the axis does not vary). `store` may be null.
  BenchSweep(BenchOptions base, SweepAxis axis, QList<double> values, RunStore* store,
             RunContext context, QObject* parent = nullptr);
  // Before each step: the base URL its requests go to (an endpoint set up for the step's
  // value), or "" with `error` saying why the sweep cannot go on.
  using StepTarget = std::function<QString(double value, QString& error)>;
  void setStepTarget(StepTarget target) { target_ = std::move(target); }
  void start();
  void cancel();
  bool isRunning() const { return runner_ != nullptr; }
  const QList<SweepStep>& steps() const { return steps_; }
  // {"axis", "steps": [{value, ...figures}], "slo"} and the run's settings: "values",
  // "model", "provider", "base_url", "prompt", "max_tokens", "temperature", "seed",
  // "requests_per_step", "warmup_requests", "distinct_prompts", "concurrency" (what the axis
  // does not vary, when set), "burstiness" (rate sweeps), "date" (ISO 8601 UTC, the start),
  // "app_version".
  QJsonObject json() const;

 signals:
  void progress(int step, int steps, int done, int total);
  void stepFinished(const ts::SweepStep& step);
  void finished(bool cancelled);
  void failed(const QString& message);  // the step target could not be set up (then finished)

 private:
  void runStep();
  BenchOptions optionsFor(double value) const;

  BenchOptions base_;
  SweepAxis axis_;
  QList<double> values_;
  RunStore* store_;
  RunContext context_;
  QString started_;  // names the groups
  QList<SweepStep> steps_;
  QPointer<BenchRunner> runner_;
  StepTarget target_;
  bool cancelled_ = false;
};

}  // namespace ts
