#include "inference/engine/model/positional.h"

#include <cmath>

namespace ts::engine {

std::vector<float> alibiSlopes(int n_heads) {
  const int floor_pow2 = 1 << static_cast<int>(std::floor(std::log2(n_heads)));
  const float m0 = std::pow(2.0f, -8.0f / floor_pow2);
  const float m1 = std::pow(2.0f, -4.0f / floor_pow2);
  std::vector<float> slopes(n_heads);
  for (int h = 0; h < n_heads; ++h)
    slopes[h] = h < floor_pow2 ? std::pow(m0, h + 1) : std::pow(m1, 2 * (h - floor_pow2) + 1);
  return slopes;
}

}  // namespace ts::engine
