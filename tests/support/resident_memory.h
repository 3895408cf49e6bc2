// Figures of this process's memory from /proc in MiB: statusMiB reads /proc/self/status
// ("VmRSS:" the resident set now, "VmHWM:" its peak), procMiB any such file (smaps_rollup's
// "FilePmdMapped:"); 0 where there is none. Header-only, no Qt: engine tests and
// engine-bench read it.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ts::testing {

inline double procMiB(const char* file, const char* key) {
  FILE* f = std::fopen(file, "r");
  if (!f) return 0;
  char line[256];
  double kib = 0;
  while (std::fgets(line, sizeof line, f))
    if (std::strncmp(line, key, std::strlen(key)) == 0) kib = std::atof(line + std::strlen(key));
  std::fclose(f);
  return kib / 1024;
}

inline double statusMiB(const char* key) {
  return procMiB("/proc/self/status", key);
}

}  // namespace ts::testing
