#include "inference/engine/lab/predictions.h"

#include <algorithm>
#include <chrono>

#include "inference/engine/lab/bootstrap.h"

namespace ts::engine::lab {

Predicted predictFromCost(const ModelCost& base, const ModelCost& variant,
                          const MachineRates& base_rates, const MachineRates& variant_rates,
                          int context, int prompt_tokens, const BaselineMeasured& measured) {
  Predicted out;
  // Ratios of the modelled times. Where the model misses the baseline's measured time, it is
  // taken to miss the variant's by the same factor: the gap is the kernels running a few
  // percent slower inside a model than in the probes, alike for every type. (Kept instead
  // as a fixed remainder, it under-predicted every quantized type's prefill gain on the
  // 8-layer 7B-shape file by 11-13 %; as a factor, within 3.5 %.)
  const auto both = [](std::optional<double> base_s, std::optional<double> var_s) {
    return base_s && var_s && *base_s > 0 && *var_s > 0
               ? std::optional<std::pair<double, double>>({*base_s, *var_s})
               : std::nullopt;
  };
  if (const auto d = both(decodeStepSeconds(base, base_rates, context),
                          decodeStepSeconds(variant, variant_rates, context))) {
    out["decode_tok_s"] = changePct(1 / d->first, 1 / d->second);
    out["tpot_ms"] = changePct(d->first, d->second);
  }
  if (const auto p = both(prefillSeconds(base, base_rates, prompt_tokens),
                          prefillSeconds(variant, variant_rates, prompt_tokens))) {
    out["prefill_tok_s"] = changePct(1 / p->first, 1 / p->second);
    out["ttft_ms"] = changePct(p->first, p->second);
  }
  const double base_resident_mb = measured.resident_mb;
  // Memory: the baseline's resident figure with the weights' and KV cache's bytes swapped.
  const double positions = prompt_tokens + 2.0 * (context - prompt_tokens);
  const double delta_mb =
      (variant.weightBytes() - base.weightBytes() +
       (variant.kv_bytes_per_position - base.kv_bytes_per_position) * positions) /
      1048576.0;
  if (base_resident_mb > 0)
    out["peak_rss_mb"] = changePct(base_resident_mb, base_resident_mb + delta_mb);
  return out;
}

std::vector<double> acceptanceByPosition(const SpeculativeStats& stats, int k) {
  std::vector<double> out;
  for (int i = 1; i <= k; ++i) {
    int reached = 0, accepted = 0;  // steps that drafted position i with all before accepted
    for (const SpeculativeStep& step : stats.steps)
      if (step.drafted >= i && step.accepted >= i - 1) {
        ++reached;
        accepted += step.accepted >= i;
      }
    if (reached == 0) break;
    out.push_back(static_cast<double>(accepted) / reached);
  }
  return out;
}

double timePass(DecodeSession& session, int positions, int at) {
  std::vector<int> tokens(positions);
  for (int i = 0; i < positions; ++i) tokens[i] = 3 + i % 16;
  std::vector<double> seconds;
  for (int r = 0; r < 5; ++r) {
    session.truncate(at);
    const auto t0 = std::chrono::steady_clock::now();
    session.forwardBatch(tokens, at, positions > 1);
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return medianOf(seconds);
}

Predicted predictSpeculative(Arm& arm, const SpeculativeStats& all, double base_step_s,
                             std::span<const int> prompt) {
  Predicted out;
  if (all.steps.empty()) return out;
  const std::vector<double> acceptance = acceptanceByPosition(all, arm.draft_k);
  if (base_step_s <= 0 || acceptance.empty()) return out;
  // The verify cost measured on this arm's session: K + 1 positions against one, at the
  // prompt's end (the session holds positions [0, prompt) of a prefill first).
  const int at = static_cast<int>(prompt.size());
  arm.session->truncate(0);
  arm.session->forwardBatch(prompt, 0, false);
  const double one = timePass(*arm.session, 1, at);
  const double verify = timePass(*arm.session, arm.draft_k + 1, at);
  arm.session->truncate(0);
  const double draft_token_s = all.drafted() > 0 ? all.draftMs() / 1e3 / all.drafted() : 0;
  const double speedup = speculativeSpeedup(acceptance, verify / one, draft_token_s / base_step_s);
  if (speedup <= 0) return out;
  out["decode_tok_s"] = (speedup - 1) * 100;
  out["tpot_ms"] = (1 / speedup - 1) * 100;
  return out;
}

}  // namespace ts::engine::lab
