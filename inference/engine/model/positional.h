// Positional encodings that depend only on the configuration, shared by every backend.
#pragma once
#include <vector>

namespace ts::engine {

// ALiBi's per-head slopes [n_heads]: a geometric sequence from 2^(-8/n) for n a power of
// two, interleaved with the next power's for other head counts (Press et al., Baichuan-13B).
std::vector<float> alibiSlopes(int n_heads);

}  // namespace ts::engine
