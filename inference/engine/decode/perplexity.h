// Perplexity of a model on a text's tokens (`tokenscope-cli ppl`): the negative
// log-likelihood of every token given the ones before it, over consecutive windows of
// `context` positions that each start with BOS, on the CPU with an f32 KV cache.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "inference/engine/core/result.h"
#include "inference/engine/model/model.h"

namespace ts::engine {

struct PerplexityScores {
  double nll = 0;      // summed over the scored tokens (nats)
  int64_t scored = 0;  // tokens scored
  int64_t windows = 0;
};

// The scores, or why the engine failed (memory for a window's KV cache and activations).
// tokens: at least 2; context: at least 2.
Result<PerplexityScores> scorePerplexity(const std::shared_ptr<const Model>& model, int bos,
                                         const std::vector<int>& tokens, int context);

}  // namespace ts::engine
