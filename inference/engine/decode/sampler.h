// Choosing the next token from logits: repetition penalty, temperature (0 = greedy),
// top-k, top-p, and a seeded generator, so the same seed and settings give the same tokens.
#pragma once
#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace ts::engine {

struct SamplingConfig {
  float temperature = 0.f;         // 0: always the most likely token
  int top_k = 0;                   // 0: no limit
  float top_p = 1.f;               // 1: no limit
  float repetition_penalty = 1.f;  // > 1 discourages tokens already in `history`
  uint64_t seed = 0;
};

class Sampler {
 public:
  explicit Sampler(SamplingConfig config);
  // `history`: tokens the penalty applies to (prompt and output so far).
  int sample(std::span<const float> logits, std::span<const int> history);
  // The distribution `sample` draws from, after penalty, temperature, top-k and top-p
  // (exposed for speculative sampling and tests). For temperature 0: one-hot.
  std::vector<float> probabilities(std::span<const float> logits,
                                   std::span<const int> history) const;
  // One draw from a distribution p (non-negative, summing to about 1) with this sampler's
  // generator; for temperature 0 the most likely entry, without a draw.
  int draw(std::span<const float> p);
  double uniform();  // in [0, 1), from the same generator
  const SamplingConfig& config() const { return config_; }

 private:
  SamplingConfig config_;
  std::mt19937_64 rng_;
};

}  // namespace ts::engine
