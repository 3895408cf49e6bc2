#include "inference/engine/lab/next_token_agreement.h"

#include <algorithm>
#include <cmath>

#include "inference/engine/core/edge.h"

namespace ts::engine::lab {
namespace {

// log-softmax of logits, in double: [vocab] out.
std::vector<double> logSoftmax(std::span<const float> logits) {
  const double top = *std::max_element(logits.begin(), logits.end());
  double sum = 0;
  for (float x : logits) sum += std::exp(x - top);
  const double log_sum = std::log(sum) + top;
  std::vector<double> out(logits.size());
  for (size_t i = 0; i < logits.size(); ++i) out[i] = logits[i] - log_sum;
  return out;
}

}  // namespace

double klDivergence(std::span<const float> p_logits, std::span<const float> q_logits) {
  const std::vector<double> lp = logSoftmax(p_logits), lq = logSoftmax(q_logits);
  double kl = 0;
  for (size_t i = 0; i < lp.size(); ++i) kl += std::exp(lp[i]) * (lp[i] - lq[i]);
  return std::max(0.0, kl);  // rounding can leave -1e-17 for equal inputs
}

int argmax(std::span<const float> logits) {
  return static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

Result<NextTokenAgreement> teacherForcedAgreement(DecodeSession& baseline, DecodeSession& variant,
                                                  std::span<const int> prompt, int positions) {
  if (prompt.empty()) return fail("the accuracy check needs a prompt of at least one token");
  if (baseline.vocab() != variant.vocab())
    return fail("the accuracy check compares models with one vocabulary: the baseline has " +
                std::to_string(baseline.vocab()) + " tokens, the variant " +
                std::to_string(variant.vocab()));
  const int needed = static_cast<int>(prompt.size()) + positions - 1;
  if (needed > baseline.maxPositions() || needed > variant.maxPositions())
    return fail("the accuracy check needs " + std::to_string(needed) +
                " positions; the sessions hold " +
                std::to_string(std::min(baseline.maxPositions(), variant.maxPositions())));
  return caughtAtEdge<NextTokenAgreement>(
      [&]() -> Result<NextTokenAgreement> {
        NextTokenAgreement out;
        baseline.truncate(0);
        variant.truncate(0);
        const int n = static_cast<int>(prompt.size());
        std::vector<float> p;  // the baseline's logits, kept while the variant's pass runs
        std::span<const float> base = baseline.forwardBatch(prompt, 0, false);
        p.assign(base.begin(), base.end());
        std::span<const float> q = variant.forwardBatch(prompt, 0, false);
        for (int i = 0; i < positions; ++i) {
          const double kl = klDivergence(p, q);
          out.kl.push_back(kl);
          out.kl_sum += kl;
          const int next = argmax(p);
          out.top1_agreed += next == argmax(q);
          ++out.positions;
          if (i + 1 == positions) break;
          base = baseline.forwardBatch({&next, 1}, n + i, false);
          p.assign(base.begin(), base.end());
          q = variant.forwardBatch({&next, 1}, n + i, false);
        }
        return out;
      },
      "for the accuracy check");
}

}  // namespace ts::engine::lab
