// The machine's integer-multiply peak as the engine's kernels can reach it: a micro-kernel of
// independent 8-bit dot-product instructions (AVX-512 VNNI on 512 bits, AVX-VNNI on 256, or
// AVX2's maddubs + madd; plain C++ for the portable set) on registers, run on `threads`
// threads at once. The denominator of engine-bench's prefill_peak_share.
#pragma once

namespace ts::bench {

struct Int8Peak {
  double gops = 0;               // 10^9 int8 operations per second (multiply and add: 2 per pair)
  const char* instruction = "";  // what the micro-kernel ran: "vpdpbusd zmm", "vpmaddubsw ymm", ...
};

// `kernels`: the engine's active kernel set name (activeKernels().name), so that the peak is
// the one of the instructions the engine multiplies with. Median of three timed runs.
Int8Peak measureInt8Peak(int threads, const char* kernels);

}  // namespace ts::bench
