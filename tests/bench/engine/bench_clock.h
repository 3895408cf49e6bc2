// The clock, the statistic and the output format engine-bench reports everything with.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace ts::bench {

inline double now() {  // seconds on the monotonic clock
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline double median(std::vector<double> v) {  // the upper median of an even count
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

inline std::string number(double v, int decimals = 3) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, v);
  return text;
}

// One JSON object, one field per line; values are already JSON (numbers, quoted strings).
inline void printJson(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::printf("{\n");
  for (size_t i = 0; i < fields.size(); ++i)
    std::printf("  \"%s\": %s%s\n", fields[i].first.c_str(), fields[i].second.c_str(),
                i + 1 < fields.size() ? "," : "");
  std::printf("}\n");
}

}  // namespace ts::bench
