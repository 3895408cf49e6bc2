// engine-bench --turns N: a conversation on one session as the local chat runs it
// (generate() keeping the KV cache between turns), each turn adding --turn-tokens new
// prompt tokens and answering --gen-tokens; TTFT per turn (the call to the first token,
// prefill included) and the tokens each turn prefilled.
#pragma once
#include <memory>
#include <vector>

#include "inference/engine/core/result.h"
#include "inference/engine/model/kv_cache.h"
#include "inference/engine/model/model.h"

namespace ts::bench {

struct ConversationTurn {
  double ttft_ms = 0;
  int prompt_tokens = 0, cached_tokens = 0;
};

// The turns, or why the engine failed (a device or memory failure).
engine::Result<std::vector<ConversationTurn>> runConversation(
    std::shared_ptr<const engine::Model> model, int turns, int turn_tokens, int gen_tokens,
    engine::KvFormat kv, int threads);

}  // namespace ts::bench
