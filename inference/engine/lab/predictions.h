// The cost model's predictions for one variant against the baseline (cost_model.h), as
// the percent changes the lab reports beside the measured ones.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "inference/engine/decode/speculative.h"
#include "inference/engine/lab/cost_model.h"
#include "inference/engine/lab/lab_arms.h"

namespace ts::engine::lab {

// metric name (labMetrics) -> predicted change, percent; metrics the model does not
// predict are absent.
using Predicted = std::map<std::string, double>;

// What the baseline measured: its decode step sets the draft's cost against (speculative),
// its resident memory the memory prediction's starting point.
struct BaselineMeasured {
  double step_s = 0;     // median TPOT
  double prefill_s = 0;  // median prefill time
  double resident_mb = 0;
};

// Weights, KV and threads: decode from bytes and kernel rates, prefill (and TTFT, which a
// single stream spends in the prefill) from multiply-adds and prefill rates, each as the
// ratio of the variant's modelled time to the baseline's; memory from the weights' bytes.
// `context`: the KV positions a decode step reads on average.
Predicted predictFromCost(const ModelCost& base, const ModelCost& variant,
                          const MachineRates& base_rates, const MachineRates& variant_rates,
                          int context, int prompt_tokens, const BaselineMeasured& measured);

// P(draft position i accepted | positions before it accepted), i = 1 .. k, from the steps.
std::vector<double> acceptanceByPosition(const SpeculativeStats& stats, int k);

// Speculative: the speed-up from the measured per-position acceptance, the measured cost of
// verifying K + 1 positions against one (timed here on the arm's session, after its runs)
// and the draft's measured time per token against the cost model's decode step. Throws
// what the session's passes throw (runLab catches it at the engine's edge).
// The draft's time per token is set against the baseline's measured decode step; `prompt`
// is the runs' prompt (the verify pass is timed at its end). `stats`: every run's steps.
Predicted predictSpeculative(Arm& arm, const SpeculativeStats& stats, double base_step_s,
                             std::span<const int> prompt);

// Seconds of one pass of `positions` tokens at position `at` on the session (median of 5).
double timePass(DecodeSession& session, int positions, int at);

}  // namespace ts::engine::lab
