// Goodput against latency SLOs (DistServe's definition, as vLLM's benchmark reports it):
// the requests per second that met every limit. Percentiles come from summarize()
// (metrics.h).
#pragma once
#include <optional>

#include "inference/stream/metrics.h"

namespace ts {

struct Slo {
  std::optional<double> ttft_ms, tpot_ms;  // unset: no limit
};
// A finished run meets the SLO when its TTFT and TPOT are within the limits (a run with a
// single output token has no TPOT and meets any TPOT limit, as in vLLM).
bool meetsSlo(const RunMetrics& metrics, const Slo& slo);

}  // namespace ts
