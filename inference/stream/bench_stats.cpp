#include "inference/stream/bench_stats.h"

namespace ts {

bool meetsSlo(const RunMetrics& m, const Slo& slo) {
  if (slo.ttft_ms && (!m.ttft_ns || *m.ttft_ns / 1e6 > *slo.ttft_ms)) return false;
  if (slo.tpot_ms && m.tpot_ns && *m.tpot_ns / 1e6 > *slo.tpot_ms) return false;
  return true;
}

}  // namespace ts
