// engine-bench's speculative part: the cost of verifying K + 1 positions in one pass
// against one decode step, the acceptance rate that cost implies as break-even, and a
// measured speculative run against plain decoding.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "inference/engine/core/result.h"
#include "inference/engine/model/kv_cache.h"
#include "inference/engine/model/model.h"

namespace ts::bench {

// Median over `repeat` of (ms of one forward of `positions` tokens) / (ms of one token),
// both after `context` prompt positions.
double verifyCostRatio(std::shared_ptr<const engine::Model> model, int context, int positions,
                       engine::KvFormat kv, int threads, int repeat);
// The acceptance rate a at which K drafts per step (free to draft, as lookup is) break
// even: (1 - a^(K+1)) / (1 - a) tokens per step = cost_ratio. 0 when even a = 0 wins.
double breakEvenAcceptance(double cost_ratio, int k);

struct SpeculativeRun {
  double plain_tok_s = 0, spec_tok_s = 0;  // decode only (prefill excluded)
  double acceptance_rate = 0, mean_accepted_length = 0, tokens_per_target_forward = 0;
  double draft_ms_per_step = 0, verify_ms_per_step = 0;  // where a step's time goes
};
// Greedy decoding of gen_tokens after `prompt`, plainly and with the draft `spec`
// (engine::makeDraftSource names); an error for a bad draft or a failed run.
engine::Result<SpeculativeRun> runSpeculative(std::shared_ptr<const engine::Model> model,
                                              const std::string& spec, int k, bool adaptive,
                                              const std::vector<int>& prompt, int gen_tokens,
                                              engine::KvFormat kv, int threads);

// A prompt that repeats one sentence (the model's vocabulary when it has one, otherwise a
// fixed run of ids) up to about `tokens` tokens: where prompt lookup has something to find.
std::vector<int> repeatingPrompt(const engine::Model& model, int tokens);

}  // namespace ts::bench
