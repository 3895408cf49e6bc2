// Sampling: greedy at temperature 0, seeds reproduce, top-k / top-p / penalty shape the
// distribution as defined, and draws follow the probabilities.
#include <cmath>
#include <cstdio>
#include <string>

#include <vector>
#include "tests/inference/engine/check.h"

#include "inference/engine/decode/sampler.h"

using ts::testing::check;

using namespace ts::engine;

namespace {}  // namespace

int main() {
  const std::vector<float> logits = {1.0f, 3.0f, 2.0f, 0.5f, 2.9f};
  Sampler greedy({0.f});
  check(greedy.sample(logits, {}) == 1, "temperature 0 picks the largest logit");

  std::vector<int> a, b, c;
  Sampler s1({1.f, 0, 1.f, 1.f, 42}), s2({1.f, 0, 1.f, 1.f, 42}), s3({1.f, 0, 1.f, 1.f, 43});
  for (int i = 0; i < 200; ++i) {
    a.push_back(s1.sample(logits, {}));
    b.push_back(s2.sample(logits, {}));
    c.push_back(s3.sample(logits, {}));
  }
  check(a == b, "the same seed gives the same 200 tokens");
  check(a != c, "another seed gives another sequence");

  const auto p = Sampler({1.f}).probabilities(logits, {});
  double z = 0;
  for (float l : logits) z += std::exp(l);
  check(std::abs(p[1] - std::exp(3.0) / z) < 1e-6, "temperature 1 is the softmax");
  const auto k2 = Sampler({1.f, 2}).probabilities(logits, {});
  check(k2[0] == 0 && k2[2] == 0 && k2[3] == 0 && std::abs(k2[1] + k2[4] - 1) < 1e-6,
        "top-k 2 keeps exactly the two best tokens");
  const auto p05 = Sampler({1.f, 0, 0.5f}).probabilities(logits, {});
  // Token 1 holds 0.40 of the mass, token 4 0.36: top-p 0.5 needs both, and no more.
  check(p05[0] == 0 && p05[2] == 0 && p05[3] == 0 && std::abs(p05[1] + p05[4] - 1) < 1e-6 &&
            p05[1] > p05[4],
        "top-p 0.5 keeps the smallest set of best tokens reaching half the mass");
  const auto pen = Sampler({0.f, 0, 1.f, 2.f}).probabilities(logits, std::vector<int>{1});
  check(pen[4] == 1.f, "a repetition penalty of 2 on token 1 (3.0 -> 1.5) makes token 4 the best");

  // Draw frequencies follow the distribution (deterministic seed; 5 sigma bounds).
  Sampler draw({0.7f, 0, 0.9f, 1.f, 7});
  const auto q = Sampler({0.7f, 0, 0.9f}).probabilities(logits, {});
  std::vector<int> counts(logits.size(), 0);
  const int n = 50000;
  for (int i = 0; i < n; ++i) ++counts[draw.sample(logits, {})];
  bool close = true;
  for (size_t i = 0; i < q.size(); ++i) {
    const double sd = std::sqrt(n * q[i] * (1 - q[i])) + 1e-9;
    close &= std::abs(counts[i] - n * q[i]) <= 5 * sd + (q[i] == 0 ? 0 : 1);
  }
  check(close, "50,000 draws at temperature 0.7, top-p 0.9 match the probabilities");
  return ts::testing::finish();
}
