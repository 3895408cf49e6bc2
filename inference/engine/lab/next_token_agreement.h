// What a cheaper weights or KV format costs in accuracy: the next-token distributions of a
// variant against the baseline's on the same tokens. Teacher-forced: the baseline decodes
// greedily from the prompt, and both models are fed the baseline's tokens, so every
// position compares the two distributions over the same prefix (a free-running variant
// would drift onto other text after its first different token and compare nothing).
#pragma once
#include <span>
#include <vector>

#include "inference/engine/backend/decode_session.h"
#include "inference/engine/core/result.h"

namespace ts::engine::lab {

struct NextTokenAgreement {
  int positions = 0;       // distributions compared
  int top1_agreed = 0;     // positions whose most likely token is the same
  double kl_sum = 0;       // sum of KL(baseline || variant), nats
  std::vector<double> kl;  // per position
  double top1Agreement() const {
    return positions ? static_cast<double>(top1_agreed) / positions : 0;
  }
  double meanKl() const { return positions ? kl_sum / positions : 0; }
};

// KL(softmax(p) || softmax(q)) in nats, computed in double; p, q: [vocab] logits in.
double klDivergence(std::span<const float> p_logits, std::span<const float> q_logits);
// Index of the largest logit (the first of equals).
int argmax(std::span<const float> logits);

// Compares `positions` next-token distributions: the one after the prompt and after each
// of the baseline's next positions - 1 greedy tokens. Both sessions are emptied first and
// need room for prompt.size() + positions - 1 positions. Errors: a failing pass (the
// device's message, memory), vocabularies of different sizes, an empty prompt.
Result<NextTokenAgreement> teacherForcedAgreement(DecodeSession& baseline, DecodeSession& variant,
                                                  std::span<const int> prompt, int positions);

}  // namespace ts::engine::lab
