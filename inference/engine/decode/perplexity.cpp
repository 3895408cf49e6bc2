#include "inference/engine/decode/perplexity.h"

#include <algorithm>
#include <cmath>
#include <span>
#include <string>

#include "inference/engine/core/edge.h"
#include "inference/engine/core/thread_pool.h"
#include "inference/engine/cpu/cpu_forward.h"

namespace ts::engine {
namespace {

// scorePerplexity, below the edge: throws what the session throws.
PerplexityScores score(const std::shared_ptr<const Model>& model, int bos,
                       const std::vector<int>& tokens, int context) {
  const int vocab = model->config.vocab;
  PerplexityScores s;
  const size_t step = static_cast<size_t>(context) - 1;  // + BOS at the start of each window
  constexpr size_t kChunk = 64;  // positions per batched pass (bounds the logits buffer)
  for (size_t start = 0; start < tokens.size(); start += step, ++s.windows) {
    CpuSession session(model, context, KvFormat::F32, ThreadPool::defaultThreads());
    // Inputs BOS, t[start], ..., t[end - 2] predict t[start], ..., t[end - 1].
    const size_t end = std::min(tokens.size(), start + step);
    std::vector<int> inputs = {bos};
    inputs.insert(inputs.end(), tokens.begin() + start, tokens.begin() + end - 1);
    for (size_t first = 0; first < inputs.size(); first += kChunk) {
      const size_t count = std::min(kChunk, inputs.size() - first);
      const auto all = session.forwardBatch(std::span(inputs).subspan(first, count),
                                            static_cast<int>(first), true);
      for (size_t j = 0; j < count; ++j) {
        const auto logits = all.subspan(j * vocab, vocab);
        const float max = *std::max_element(logits.begin(), logits.end());
        double sum = 0;
        for (float l : logits) sum += std::exp(static_cast<double>(l - max));
        s.nll -= (logits[tokens[start + first + j]] - max) - std::log(sum);  // -log softmax
        ++s.scored;
      }
    }
  }
  return s;
}

}  // namespace

Result<PerplexityScores> scorePerplexity(const std::shared_ptr<const Model>& model, int bos,
                                         const std::vector<int>& tokens, int context) {
  return caughtAtEdge<PerplexityScores>(
      [&] { return score(model, bos, tokens, context); },
      "for a window of " + std::to_string(context) + " positions (f32 KV cache)");
}

}  // namespace ts::engine
