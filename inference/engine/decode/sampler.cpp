#include "inference/engine/decode/sampler.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ts::engine {

Sampler::Sampler(SamplingConfig config) : config_(config), rng_(config.seed) {}

std::vector<float> Sampler::probabilities(std::span<const float> logits,
                                          std::span<const int> history) const {
  std::vector<float> z(logits.begin(), logits.end());
  const int n = static_cast<int>(z.size());
  if (config_.repetition_penalty != 1.f) {  // CTRL-style, as llama.cpp applies it
    std::vector<bool> seen(n, false);
    for (int t : history)
      if (t >= 0 && t < n && !seen[t]) {
        seen[t] = true;
        z[t] = z[t] > 0 ? z[t] / config_.repetition_penalty : z[t] * config_.repetition_penalty;
      }
  }
  std::vector<float> p(n, 0.f);
  if (config_.temperature <= 0.f) {
    p[std::max_element(z.begin(), z.end()) - z.begin()] = 1.f;
    return p;
  }
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return z[a] > z[b] || (z[a] == z[b] && a < b); });
  const int k = config_.top_k > 0 ? std::min(config_.top_k, n) : n;
  const float max = z[order[0]];
  std::vector<double> e(k);  // unnormalised probabilities of the k best, best first
  double sum = 0;
  for (int i = 0; i < k; ++i) sum += e[i] = std::exp((z[order[i]] - max) / config_.temperature);
  // top-p: the smallest prefix (by probability) whose mass reaches p.
  double cumulative = 0, kept = sum;
  int keep = k;
  for (int i = 0; i < k; ++i) {
    cumulative += e[i];
    if (cumulative / sum >= config_.top_p) {
      keep = i + 1;
      kept = cumulative;
      break;
    }
  }
  for (int i = 0; i < keep; ++i) p[order[i]] = static_cast<float>(e[i] / kept);
  return p;
}

int Sampler::sample(std::span<const float> logits, std::span<const int> history) {
  return draw(probabilities(logits, history));
}

double Sampler::uniform() {
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
}

int Sampler::draw(std::span<const float> p) {
  if (config_.temperature <= 0.f)
    return static_cast<int>(std::max_element(p.begin(), p.end()) - p.begin());
  const double u = uniform();
  double cumulative = 0;
  int last = 0;
  for (int i = 0; i < static_cast<int>(p.size()); ++i) {
    if (p[i] <= 0) continue;
    cumulative += p[i];
    last = i;
    if (u < cumulative) return i;
  }
  return last;  // rounding left u just above the total
}

}  // namespace ts::engine
