// What the 512-bit GGUF kernels (gguf_kernels_avx512.cpp, gguf_kernels_kpanels.cpp) share:
// their target attribute and the broadcast of four activation bytes. x86 with GCC or Clang
// only (included inside those files' guard).
#pragma once
#include <immintrin.h>

#include <cstdint>

// GCC 12 reports the undefined upper lanes inside its own AVX-512 intrinsics as
// uninitialized once they are inlined (as in kernels_avx512.cpp): false positives.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#define TS_TARGET __attribute__((target("avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")))

namespace ts::engine::gguf_avx512 {

// Four activation bytes at x in every dword of a register: one load that broadcasts, shared by
// the products of every slab of a tile. (vpdpbusd's own {1to16} operand would load them again
// for each slab, and on Zen 5 the loads, at two a cycle, then bound the pass as much as the
// products do.)
TS_TARGET inline __m512i broadcast4(const void* x) {
  __m512i v;
  __asm__("vpbroadcastd %[x], %[v]" : [v] "=v"(v) : [x] "m"(*static_cast<const int32_t*>(x)));
  return v;
}

}  // namespace ts::engine::gguf_avx512
