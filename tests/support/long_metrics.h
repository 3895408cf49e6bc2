// What a long local speculative run shows in the metrics strip: many digits, a cache, a
// prefill, an acceptance histogram. The window tests use it to push every field to its
// widest (tests/app/desktop/test_window_fit.cpp, test_window_tour.cpp).
#pragma once
#include <cstdint>
#include <vector>

#include "inference/stream/metrics.h"

namespace ts::testing {

inline RunMetrics longMetrics() {
  RunMetrics m;
  m.ttft_ns = 123'456'789'012;
  m.e2e_ns = 987'654'321'098;
  m.output_tokens = 123'456'789;
  m.prompt_tokens = 987'654'321;
  m.cached_tokens = 123'456'789;
  m.prefill_ns = 98'765'432'109;
  m.acceptance_rate = 0.4321;
  m.drafted_tokens = 99'999'999;
  m.accepted_tokens = 43'210'000;
  m.accepted_histogram = std::vector<int32_t>(17, 1'234'567);
  m.tpot_ns = 123'456'789.0;
  m.itl_ns = {123'456'789, 987'654'321};
  m.decode_tok_s = 123456.789;
  m.overall_tok_s = 98765.4321;
  return m;
}

}  // namespace ts::testing
