// The engine tests' tiny harness (no Qt, so it also runs in the engine-only build): one
// PASS/FAIL line per check and the closing "N passed, N failed" line CI reads.
#pragma once
#include <cstdio>
#include <string>

namespace ts::testing {

inline int g_passed = 0, g_failed = 0;

inline void check(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "PASS" : "FAIL", what.c_str());
  (ok ? g_passed : g_failed)++;
}

// Prints the summary; the process exit code.
inline int finish() {
  std::printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}

}  // namespace ts::testing
