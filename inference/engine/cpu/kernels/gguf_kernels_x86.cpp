// x86 GGUF kernels: the portable set's integer arithmetic (gguf_kernels_portable.cpp) on
// 32 bytes at a time; only the order of f32 additions differs. AVX2, and AVX2 with
// AVX-512 VNNI's dot product on 256-bit registers where the CPU has it.
#include "inference/engine/cpu/kernels/gguf_kernels.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "inference/engine/core/tensor_types.h"

namespace ts::engine {

namespace gguf_avx2 {
#define TS_TARGET __attribute__((target("avx2,fma,f16c")))
#define TS_VNNI 0
#include "inference/engine/cpu/kernels/gguf_kernels_x86.inc"
#undef TS_TARGET
#undef TS_VNNI
}  // namespace gguf_avx2

namespace gguf_vnni {
#define TS_TARGET __attribute__((target("avx2,fma,f16c,avx512f,avx512vl,avx512vnni")))
#define TS_VNNI 1
#include "inference/engine/cpu/kernels/gguf_kernels_x86.inc"
#undef TS_TARGET
#undef TS_VNNI
}  // namespace gguf_vnni

namespace gguf_avx512 {  // gguf_kernels_avx512.cpp
float dotQ4_0Grouped(const uint8_t* w, const int8_t* x, const float* x_d, const float* x_offset,
                     int blocks);
// Q4_0 (kQ4) or Q8_0 rows as stored or in panels (kPanel), sixteen at a time.
template <bool kQ4, bool kPanel>
void gemm16(const uint8_t* w, size_t row_bytes, int rows, const Activations& x, int blocks,
            float* out, size_t out_stride);
// The runtime int8 / q8_0 (kQ4 false) or int4 panels.
template <bool kQ4>
void panelsRuntime(const uint8_t* w, size_t row_bytes, int rows, const Activations& x, int blocks,
                   int per_group, float* out, size_t out_stride);
void panelsF16(const uint16_t* w, int rows, int cols, const float* x, size_t x_stride, int tokens,
               float* out, size_t out_stride);
void panelsBf16(const uint16_t* w, int rows, int cols, const float* x, size_t x_stride, int tokens,
                float* out, size_t out_stride);
// gguf_kernels_kpanels.cpp
void panelsQ4K(const uint8_t* w, size_t row_bytes, int rows, const Activations& x, int superblocks,
               float* out, size_t out_stride);
void panelsQ5K(const uint8_t* w, size_t row_bytes, int rows, const Activations& x, int superblocks,
               float* out, size_t out_stride);
void panelsQ6K(const uint8_t* w, size_t row_bytes, int rows, const Activations& x, int superblocks,
               float* out, size_t out_stride);
}  // namespace gguf_avx512

namespace gguf_bf16 {  // gguf_kernels_bf16.cpp
void panelsBf16Pairs(const uint16_t* w, int rows, int cols, const float* x, size_t x_stride,
                     int tokens, float* out, size_t out_stride);
}  // namespace gguf_bf16

const GgufKernels* avx2GgufKernels() {
  static const GgufKernels k = gguf_avx2::kernelTable<4>("avx2");
  static const bool supported = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                                __builtin_cpu_supports("f16c");
  return supported ? &k : nullptr;
}

const GgufKernels* vnniGgufKernels() {
  static const bool supported = avx2GgufKernels() && __builtin_cpu_supports("avx512vl") &&
                                __builtin_cpu_supports("avx512vnni");
  static const GgufKernels k = [] {
    // 32 registers: six tokens' K-type accumulators beside the unpacked super-block
    GgufKernels table = gguf_vnni::kernelTable<6>("avx512-vnni");
    // the 512-bit kernels need AVX-512 BW (byte and word operations on 512 bits)
    if (__builtin_cpu_supports("avx512bw")) {
      table.dot_q4_0_grouped = gguf_avx512::dotQ4_0Grouped;
      table.gemm16_q4_0 = gguf_avx512::gemm16<true, false>;
      table.gemm16_q8_0 = gguf_avx512::gemm16<false, false>;
      table.panels_q4_0 = gguf_avx512::gemm16<true, true>;
      table.panels_q8_0 = gguf_avx512::gemm16<false, true>;
      table.panels_f16 = gguf_avx512::panelsF16;
      table.panels_bf16 = gguf_avx512::panelsBf16;
      table.panels_q4_k = gguf_avx512::panelsQ4K;
      table.panels_q5_k = gguf_avx512::panelsQ5K;
      table.panels_q6_k = gguf_avx512::panelsQ6K;
      table.panels_int8 = gguf_avx512::panelsRuntime<false>;
      table.panels_int4 = gguf_avx512::panelsRuntime<true>;
    }
    return table;
  }();
  return supported ? &k : nullptr;
}

const GgufKernels* bf16GgufKernels() {
  static const bool supported =
      vnniGgufKernels() && vnniGgufKernels()->panels_bf16 && __builtin_cpu_supports("avx512bf16");
  static const GgufKernels k = [] {
    GgufKernels table = vnniGgufKernels() ? *vnniGgufKernels() : portableGgufKernels();
    table.name = "avx512-bf16";
    table.panels_bf16 = gguf_bf16::panelsBf16Pairs;
    table.bf16_pairs = true;
    return table;
  }();
  return supported ? &k : nullptr;
}

}  // namespace ts::engine

#else

namespace ts::engine {
const GgufKernels* avx2GgufKernels() {
  return nullptr;
}
const GgufKernels* vnniGgufKernels() {
  return nullptr;
}
const GgufKernels* bf16GgufKernels() {
  return nullptr;
}
}  // namespace ts::engine

#endif
