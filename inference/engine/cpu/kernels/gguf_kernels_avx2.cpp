// AVX2 GGUF kernels: the portable set's integer arithmetic (gguf_kernels_portable.cpp) on
// 32 bytes at a time; only the order of f32 additions differs.
#include "inference/engine/cpu/kernels/gguf_kernels.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include <cstring>

#include "inference/engine/core/tensor_types.h"

#define TS_TARGET __attribute__((target("avx2,fma,f16c")))

namespace ts::engine {
namespace {

TS_TARGET inline float horizontalSum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

TS_TARGET inline __m256i load256(const void* p) {
  return _mm256_loadu_si256(static_cast<const __m256i*>(p));
}

TS_TARGET inline float halfAt(const uint8_t* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  return _cvtsh_ss(h);
}

// Eight int32 sums of products of signed bytes w and x (|w| <= 127).
TS_TARGET inline __m256i dotSigned(__m256i w, __m256i x) {
  const __m256i pairs = _mm256_maddubs_epi16(_mm256_sign_epi8(w, w), _mm256_sign_epi8(x, w));
  return _mm256_madd_epi16(pairs, _mm256_set1_epi16(1));
}

// 16 bytes of nibbles -> 32 bytes: the low nibbles (elements 0..15), then the high ones.
TS_TARGET inline __m256i nibbles(const uint8_t* p) {
  const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(bytes, 4), bytes), _mm256_set1_epi8(15));
}

// One Q4_0 / Q8_0 block's product, added to acc.
TS_TARGET inline __m256 blockQ4_0(const uint8_t* w, const int8_t* x, const float* x_d, int i,
                                  __m256 acc) {
  const uint8_t* blk = w + static_cast<size_t>(i) * sizeof(BlockQ4_0);
  const __m256i q = _mm256_sub_epi8(nibbles(blk + 2), _mm256_set1_epi8(8));
  const __m256i dot = dotSigned(q, load256(x + 32 * i));
  return _mm256_fmadd_ps(_mm256_set1_ps(halfAt(blk) * x_d[i]), _mm256_cvtepi32_ps(dot), acc);
}

TS_TARGET inline __m256 blockQ8_0(const uint8_t* w, const int8_t* x, const float* x_d, int i,
                                  __m256 acc) {
  const uint8_t* blk = w + static_cast<size_t>(i) * sizeof(BlockQ8_0);
  const __m256i dot = dotSigned(load256(blk + 2), load256(x + 32 * i));
  return _mm256_fmadd_ps(_mm256_set1_ps(halfAt(blk) * x_d[i]), _mm256_cvtepi32_ps(dot), acc);
}

// Two accumulators (even and odd blocks) so that no FMA waits for the previous one.
template <__m256 (*kBlock)(const uint8_t*, const int8_t*, const float*, int, __m256)>
TS_TARGET float dotBlocks(const uint8_t* w, const int8_t* x, const float* x_d, int blocks) {
  __m256 a0 = _mm256_setzero_ps(), a1 = a0;
  int b = 0;
  for (; b + 2 <= blocks; b += 2) {
    a0 = kBlock(w, x, x_d, b, a0);
    a1 = kBlock(w, x, x_d, b + 1, a1);
  }
  if (b < blocks) a0 = kBlock(w, x, x_d, b, a0);
  return horizontalSum(_mm256_add_ps(a0, a1));
}

// Q4_K (kFifthBit false) and Q5_K: per 64-element chunk, 32 bytes of nibbles (low: sub-block
// 2c, high: 2c + 1), Q5_K's fifth bits from bits 2c and 2c + 1 of qh.
template <bool kFifthBit>
TS_TARGET float dotQ45K(const uint8_t* w, const int8_t* x, const float* x_d, const int16_t* bsums,
                        int superblocks) {
  constexpr size_t kBytes = kFifthBit ? sizeof(BlockQ5K) : sizeof(BlockQ4K);
  constexpr size_t kQs = kFifthBit ? 48 : 16;  // offset of qs
  const __m256i low4 = _mm256_set1_epi8(15), one = _mm256_set1_epi8(1);
  __m256 acc = _mm256_setzero_ps();
  float mins_total = 0.f;
  for (int s = 0; s < superblocks; ++s, x += 256, bsums += 16) {
    const uint8_t* blk = w + s * kBytes;
    int sc[8], m[8];
    int32_t mins = 0;
    for (int j = 0; j < 8; ++j) {
      scaleMinK4(j, blk + 4, sc[j], m[j]);
      mins += m[j] * (bsums[2 * j] + bsums[2 * j + 1]);
    }
    __m256i qh;
    if constexpr (kFifthBit) qh = load256(blk + 16);
    __m256i sum = _mm256_setzero_si256();
    for (int c = 0; c < 4; ++c) {
      const __m256i bytes = load256(blk + kQs + 32 * c);
      __m256i lo = _mm256_and_si256(bytes, low4);
      __m256i hi = _mm256_and_si256(_mm256_srli_epi16(bytes, 4), low4);
      if constexpr (kFifthBit) {
        const __m128i shift_lo = _mm_cvtsi32_si128(2 * c), shift_hi = _mm_cvtsi32_si128(2 * c + 1);
        lo = _mm256_or_si256(
            lo, _mm256_slli_epi16(_mm256_and_si256(_mm256_srl_epi16(qh, shift_lo), one), 4));
        hi = _mm256_or_si256(
            hi, _mm256_slli_epi16(_mm256_and_si256(_mm256_srl_epi16(qh, shift_hi), one), 4));
      }
      const __m256i plo = _mm256_madd_epi16(_mm256_maddubs_epi16(lo, load256(x + 64 * c)),
                                            _mm256_set1_epi16(static_cast<int16_t>(sc[2 * c])));
      const __m256i phi = _mm256_madd_epi16(_mm256_maddubs_epi16(hi, load256(x + 64 * c + 32)),
                                            _mm256_set1_epi16(static_cast<int16_t>(sc[2 * c + 1])));
      sum = _mm256_add_epi32(sum, _mm256_add_epi32(plo, phi));
    }
    acc = _mm256_fmadd_ps(_mm256_set1_ps(halfAt(blk) * x_d[s]), _mm256_cvtepi32_ps(sum), acc);
    mins_total += halfAt(blk + 2) * x_d[s] * static_cast<float>(mins);
  }
  return horizontalSum(acc) - mins_total;
}

// Q6_K: per 128-element half, quarters of 32 values (ql low / high nibbles of two 32-byte
// rows, two bits of qh each), 0..63 unsigned; the -32 comes out through the block sums.
TS_TARGET float dotQ6K(const uint8_t* w, const int8_t* x, const float* x_d, const int16_t* bsums,
                       int superblocks) {
  const __m256i low4 = _mm256_set1_epi8(15), low2 = _mm256_set1_epi8(3);
  __m256 acc = _mm256_setzero_ps();
  for (int s = 0; s < superblocks; ++s, x += 256, bsums += 16) {
    const uint8_t* blk = w + s * sizeof(BlockQ6K);
    const int8_t* scales = reinterpret_cast<const int8_t*>(blk + 192);
    int32_t offset = 0;  // 32 * sum of scale * (sum of 16 activations)
    for (int i = 0; i < 16; ++i) offset += scales[i] * bsums[i];
    __m256i sum = _mm256_setzero_si256();
    for (int half = 0; half < 2; ++half) {
      const __m256i ql0 = load256(blk + 64 * half), ql1 = load256(blk + 64 * half + 32);
      const __m256i qh = load256(blk + 128 + 32 * half);
      const __m256i q[4] = {
          _mm256_or_si256(_mm256_and_si256(ql0, low4),
                          _mm256_slli_epi16(_mm256_and_si256(qh, low2), 4)),
          _mm256_or_si256(_mm256_and_si256(ql1, low4),
                          _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2), low2), 4)),
          _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql0, 4), low4),
                          _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 4), low2), 4)),
          _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql1, 4), low4),
                          _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 6), low2), 4))};
      for (int k = 0; k < 4; ++k) {
        const int8_t* sc = scales + 8 * half + 2 * k;
        const __m256i scale = _mm256_set_m128i(_mm_set1_epi16(sc[1]), _mm_set1_epi16(sc[0]));
        const __m256i pairs = _mm256_maddubs_epi16(q[k], load256(x + 128 * half + 32 * k));
        sum = _mm256_add_epi32(sum, _mm256_madd_epi16(pairs, scale));
      }
    }
    const float d = halfAt(blk + 208) * x_d[s];
    acc = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(sum), acc);
    acc = _mm256_add_ps(
        acc, _mm256_setr_ps(-d * 32.f * static_cast<float>(offset), 0, 0, 0, 0, 0, 0, 0));
  }
  return horizontalSum(acc);
}

}  // namespace

const GgufKernels* avx2GgufKernels() {
  static const GgufKernels k{"avx2",         dotBlocks<blockQ4_0>, dotBlocks<blockQ8_0>,
                             dotQ45K<false>, dotQ45K<true>,        dotQ6K};
  static const bool supported = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                                __builtin_cpu_supports("f16c");
  return supported ? &k : nullptr;
}

}  // namespace ts::engine

#else

namespace ts::engine {
const GgufKernels* avx2GgufKernels() {
  return nullptr;
}
}  // namespace ts::engine

#endif
