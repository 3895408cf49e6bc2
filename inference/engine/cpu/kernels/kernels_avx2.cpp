// x86 kernels, compiled per function with target attributes (the rest of the program
// stays portable) and chosen at run time by activeKernels(): AVX2 + FMA + F16C, and the
// same with AVX-VNNI where the CPU has it. Same arithmetic as kernels_portable.cpp; only
// the order of f32 additions differs.
#include "inference/engine/cpu/kernels/kernels.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>

#include <immintrin.h>
#include <algorithm>
#include <cmath>

namespace ts::engine {

namespace avx2 {
#define TS_TARGET __attribute__((target("avx2,fma,f16c")))
#define TS_VNNI 0
#include "inference/engine/cpu/kernels/kernels_x86.inc"
#undef TS_TARGET
#undef TS_VNNI
}  // namespace avx2

namespace vnni {
#define TS_TARGET __attribute__((target("avx2,fma,f16c,avxvnni")))
#define TS_VNNI 1
#include "inference/engine/cpu/kernels/kernels_x86.inc"
#undef TS_TARGET
#undef TS_VNNI
}  // namespace vnni

namespace {

bool hasAvxVnni() {  // CPUID leaf 7, sub-leaf 1, EAX bit 4 (no cpu_supports name in clang 14)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) && (eax & (1u << 4));
}

}  // namespace

const Kernels* avx2Kernels() {
  using namespace avx2;
  static const Kernels k{"avx2",           dotF32,   dotF16,  dotQ8,           dotQ4,
                         dotF32X4,         dotQ8X4,  dotQ4X4, sumF32,          axpyF32,
                         axpyF16,          dotI8F32, axpyI8,  dotF16F16,       quantizeBlockQ8,
                         quantizeBlockQ8K, toF16,    fromF16, attentionScores, attentionValues,
                         dotF16Rows,       swiglu,   exp,     quantizeRowQ8};
  static const bool supported = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                                __builtin_cpu_supports("f16c");
  return supported ? &k : nullptr;
}

const Kernels* vnniKernels() {
  using namespace vnni;
  static const Kernels k{"avx-vnni",       dotF32,   dotF16,  dotQ8,           dotQ4,
                         dotF32X4,         dotQ8X4,  dotQ4X4, sumF32,          axpyF32,
                         axpyF16,          dotI8F32, axpyI8,  dotF16F16,       quantizeBlockQ8,
                         quantizeBlockQ8K, toF16,    fromF16, attentionScores, attentionValues,
                         dotF16Rows,       swiglu,   exp,     quantizeRowQ8};
  return avx2Kernels() && hasAvxVnni() ? &k : nullptr;
}

}  // namespace ts::engine

#else  // not x86-64 with GCC/Clang: only the portable kernels

namespace ts::engine {
const Kernels* avx2Kernels() {
  return nullptr;
}
const Kernels* vnniKernels() {
  return nullptr;
}
}  // namespace ts::engine

#endif
