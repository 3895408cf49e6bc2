// The portable GGUF kernels (plain C++, the layouts of core/tensor_types.h read as they
// are stored); the AVX2 set is checked against these.
#include <cstdlib>
#include <cstring>
#include <string>

#include "inference/engine/core/tensor_types.h"
#include "inference/engine/cpu/kernels/gguf_kernels.h"

namespace ts::engine {
namespace {

template <class Block>
Block blockAt(const uint8_t* w, int i) {
  Block b;
  std::memcpy(&b, w + static_cast<size_t>(i) * sizeof b, sizeof b);
  return b;
}

float dotQ4_0(const uint8_t* w, const int8_t* x, const float* x_d, const float*, int blocks) {
  float sum = 0.f;
  for (int b = 0; b < blocks; ++b, x += 32) {
    const auto blk = blockAt<BlockQ4_0>(w, b);
    int32_t dot = 0;
    for (int j = 0; j < 16; ++j)
      dot += ((blk.qs[j] & 15) - 8) * x[j] + ((blk.qs[j] >> 4) - 8) * x[j + 16];
    sum += f16ToF32(blk.d) * x_d[b] * static_cast<float>(dot);
  }
  return sum;
}

float dotQ8_0(const uint8_t* w, const int8_t* x, const float* x_d, const float*, int blocks) {
  float sum = 0.f;
  for (int b = 0; b < blocks; ++b, x += 32) {
    const auto blk = blockAt<BlockQ8_0>(w, b);
    int32_t dot = 0;
    for (int j = 0; j < 32; ++j) dot += blk.qs[j] * x[j];
    sum += f16ToF32(blk.d) * x_d[b] * static_cast<float>(dot);
  }
  return sum;
}

// Q4_K and Q5_K: the same scales and mins; Q5_K adds a fifth bit from qh.
template <class Block, bool kFifthBit>
float dotQ45K(const uint8_t* w, const int8_t* x, const float* x_d, const int16_t* bsums,
              int superblocks) {
  float sum = 0.f;
  for (int s = 0; s < superblocks; ++s, x += 256, bsums += 16) {
    const auto blk = blockAt<Block>(w, s);
    int32_t scaled = 0, mins = 0;
    for (int j = 0; j < 8; ++j) {  // sub-block j: chunk j / 2, low or high nibbles
      int sc = 0, m = 0;
      scaleMinK4(j, blk.scales, sc, m);
      const uint8_t* qs = blk.qs + 32 * (j / 2);
      int32_t dot = 0;
      for (int l = 0; l < 32; ++l) {
        int q = j % 2 ? qs[l] >> 4 : qs[l] & 15;
        if constexpr (kFifthBit) q |= ((blk.qh[l] >> j) & 1) << 4;
        dot += q * x[32 * j + l];
      }
      scaled += sc * dot;
      mins += m * (bsums[2 * j] + bsums[2 * j + 1]);
    }
    sum += f16ToF32(blk.d) * x_d[s] * static_cast<float>(scaled) -
           f16ToF32(blk.dmin) * x_d[s] * static_cast<float>(mins);
  }
  return sum;
}

float dotQ6K(const uint8_t* w, const int8_t* x, const float* x_d, const int16_t*, int superblocks) {
  float sum = 0.f;
  for (int s = 0; s < superblocks; ++s, x += 256) {
    const auto blk = blockAt<BlockQ6K>(w, s);
    int32_t scaled = 0;
    for (int half = 0; half < 2; ++half)  // 128 elements each
      for (int quarter = 0; quarter < 4; ++quarter)
        for (int group = 0; group < 2; ++group) {  // 16 elements, one scale
          int32_t dot = 0;
          for (int i = 0; i < 16; ++i) {
            const int l = 16 * group + i;
            const uint8_t lo = blk.ql[64 * half + l + 32 * (quarter % 2)];
            const int low4 = quarter < 2 ? lo & 15 : lo >> 4;
            const int high2 = (blk.qh[32 * half + l] >> (2 * quarter)) & 3;
            dot += ((low4 | high2 << 4) - 32) * x[128 * half + 32 * quarter + l];
          }
          scaled += blk.scales[8 * half + 2 * quarter + group] * dot;
        }
    sum += f16ToF32(blk.d) * x_d[s] * static_cast<float>(scaled);
  }
  return sum;
}

float dotBf16(const uint16_t* w, const float* x, int n) {
  float sum = 0.f;
  for (int i = 0; i < n; ++i) sum += bf16ToF32(w[i]) * x[i];
  return sum;
}

// The reference for the vector sets: one row product per row and token.
template <float (*kDot)(const uint8_t*, const int8_t*, const float*, const float*, int)>
void gemm8(const uint8_t* w, size_t row_bytes, const int8_t* x, size_t x_stride, const float* x_d,
           const float* x_offset, size_t s_stride, int blocks, int tokens, float* out,
           size_t out_stride) {
  for (int t = 0; t < tokens; ++t)
    for (int i = 0; i < 8; ++i)
      out[t * out_stride + i] = kDot(w + i * row_bytes, x + t * x_stride, x_d + t * s_stride,
                                     x_offset + t * s_stride, blocks);
}

// Any number of tokens, one product each (the reference for the kernels that share the
// unpacking).
template <float (*kDot)(const uint8_t*, const int8_t*, const float*, const int16_t*, int)>
void dotTokens(const uint8_t* w, const int8_t* x, size_t x_stride, const float* x_d,
               size_t s_stride, const int16_t* bsums, size_t b_stride, int superblocks, int tokens,
               float* out) {
  for (int t = 0; t < tokens; ++t)
    out[t] = kDot(w, x + t * x_stride, x_d + t * s_stride, bsums + t * b_stride, superblocks);
}

}  // namespace

const GgufKernels& portableGgufKernels() {
  static const GgufKernels k{"portable",
                             dotQ4_0,
                             dotQ8_0,
                             dotQ45K<BlockQ4K, false>,
                             dotQ45K<BlockQ5K, true>,
                             dotQ6K,
                             dotBf16,
                             gemm8<dotQ4_0>,
                             gemm8<dotQ8_0>,
                             nullptr,
                             nullptr,
                             nullptr,
                             dotTokens<dotQ45K<BlockQ4K, false>>,
                             dotTokens<dotQ45K<BlockQ5K, true>>,
                             dotTokens<dotQ6K>,
                             nullptr,
                             nullptr,
                             nullptr,
                             nullptr,
                             nullptr,
                             nullptr,
                             nullptr,
                             nullptr,
                             nullptr};
  return k;
}

const GgufKernels& activeGgufKernels() {
  static const GgufKernels* chosen = [] {
    const char* force = std::getenv("TOKENSCOPE_KERNELS");
    const std::string wanted = force ? force : "";
    if (wanted == "portable") return &portableGgufKernels();
    for (const GgufKernels* k : {bf16GgufKernels(), vnniGgufKernels(), avx2GgufKernels()})
      if (k && wanted == k->name) return k;
    for (const GgufKernels* k : {bf16GgufKernels(), vnniGgufKernels(), avx2GgufKernels()})
      if (k) return k;
    return &portableGgufKernels();
  }();
  return *chosen;
}

}  // namespace ts::engine
