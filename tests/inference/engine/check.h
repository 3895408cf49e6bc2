// The engine tests' tiny harness (no Qt, so it also runs in the engine-only build): one
// PASS/FAIL line per check and the closing "N passed, N failed" line CI reads.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

namespace ts::testing {

inline int g_passed = 0, g_failed = 0;

inline void check(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "PASS" : "FAIL", what.c_str());
  (ok ? g_passed : g_failed)++;
}

// Token ids as "1,2,3" for messages.
inline std::string join(const std::vector<int>& ids) {
  std::string s;
  for (int x : ids) {
    if (!s.empty()) s += ',';
    s += std::to_string(x);
  }
  return s;
}

// Prints the summary; the process exit code.
inline int finish() {
  std::printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}

}  // namespace ts::testing
