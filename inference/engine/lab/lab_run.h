// The lab: a baseline and the variants of one lever, run interleaved (A B A B ..., same
// prompt, seed and length, warm-up discarded) on one stream each; per metric the medians,
// the change with its 95 % bootstrap interval and the cost model's prediction; for
// weights and KV the accuracy against the baseline (teacher-forced next-token
// distributions); for drafts whether the greedy output is identical, and the acceptance.
//
//   LabSettings + Lever ──▶ arms (A: baseline, B..: variants) ──▶ interleaved runs
//        │                                                        │ samples per arm
//        └─▶ machine rates (cached) ─▶ predictions ──────▶ LabReport ◀─ bootstrap
#pragma once
#include <atomic>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "inference/engine/lab/bootstrap.h"
#include "inference/engine/lab/cost_model.h"
#include "inference/engine/lab/lab_plan.h"
#include "inference/engine/lab/next_token_agreement.h"

namespace ts::engine::lab {

// The metrics of every single-stream run, in report order (issue interface names); the
// prefill lever's mixed load reports its own (mixed_load.h).
inline const std::vector<std::string>& labMetrics() {
  static const std::vector<std::string> names = {"decode_tok_s", "prefill_tok_s", "ttft_ms",
                                                 "tpot_ms",      "itl_p50_ms",    "itl_p99_ms",
                                                 "peak_rss_mb"};
  return names;
}
// Whether a larger value of the metric is better (rates) or worse (times, memory).
bool higherIsBetter(const std::string& metric);

struct MetricChange {
  ChangeInterval measured;
  std::optional<double> predicted_pct;  // the cost model's, where it predicts this metric
  std::optional<double> error_pct;      // predictionErrorPct(predicted, measured)
};

struct ArmDescription {
  std::string weights;  // the runtime weights, "Q4_0 x57, Q6_K x1"
  double weight_bytes = 0;
  std::string kv;
  int threads = 0;
  std::string draft;  // "" without
  int draft_k = 0;
  std::string backend, device;
};

struct VariantResult {
  std::string lever, value;
  ArmDescription arm;
  std::map<std::string, MetricChange> metrics;
  std::optional<NextTokenAgreement> accuracy;  // weights and kv
  // draft: the greedy output compared with the baseline's, and the drafts' acceptance
  std::optional<bool> output_identical;
  std::optional<double> acceptance_rate;
  std::vector<double> acceptance_by_position;  // P(position i accepted | the ones before)
};

struct LabReport {
  LabSettings settings;
  std::string model_description;
  ArmDescription baseline;
  std::vector<std::string> order;  // "A", "B", ... of the measured runs
  std::vector<VariantResult> variants;
  MachineRates rates;  // at the baseline's threads
  std::vector<std::string> notes;
};

// Progress: a stage's text and the share of the whole done (0..1).
using LabProgress = std::function<void(const std::string& stage, double fraction)>;

// Everything above; errors say what went wrong (a model that does not load, a draft that
// does not fit, a pass that failed) or "cancelled" when *cancel was set.
Result<LabReport> runLab(const LabSettings& settings, const Lever& lever,
                         const LabProgress& progress = {},
                         const std::atomic<bool>* cancel = nullptr);

}  // namespace ts::engine::lab
