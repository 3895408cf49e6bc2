// The clock and the statistic engine-bench reports everything with.
#pragma once
#include <algorithm>
#include <chrono>
#include <vector>

namespace ts::bench {

inline double now() {  // seconds on the monotonic clock
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline double median(std::vector<double> v) {  // the upper median of an even count
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace ts::bench
