// The int8 KV cache's one quantization rule, shared by the CPU cache (kv_cache.cpp) and the
// CUDA plugin's KV write kernel, so that both caches hold the same bytes for the same row:
// scale = amax / 127 (1 for an all-zero row), value = round(x / scale) with ties away from
// zero (roundf, as lround), clamped to [-127, 127]. Plain C++17, no engine types: the
// plugin includes it (through tokenscope_plugin_abi) with nvcc.
#pragma once
#include <math.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define TS_KV_INT8_FN __host__ __device__ inline
#else
#define TS_KV_INT8_FN inline
#endif

namespace ts::kv_int8 {

TS_KV_INT8_FN float scaleFor(float amax) {
  return amax > 0.f ? amax / 127.f : 1.f;
}

TS_KV_INT8_FN int8_t quantize(float x, float scale) {
  const float q = roundf(x / scale);
  return static_cast<int8_t>(q < -127.f ? -127.f : q > 127.f ? 127.f : q);
}

}  // namespace ts::kv_int8

#undef TS_KV_INT8_FN
