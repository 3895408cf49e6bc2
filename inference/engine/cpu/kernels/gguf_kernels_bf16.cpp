// BF16 super-panels with AVX-512 BF16's vdpbf16ps (GgufKernels::panels_bf16 of the
// "avx512-bf16" set): each instruction multiplies pairs of bf16 weights by pairs of bf16
// activations and adds both products to f32 lanes, so a column pair costs one instruction
// per slab and token where the widening kernel (gguf_kernels_avx512.cpp) spends two
// conversions, two shifts and two FMAs. The activations are rounded to bf16 once per call
// (round to nearest even, as llama.cpp's BF16 path rounds them).
//
// Layout (QuantMatrix's F16 / BF16 super-panels): column k's kSlabs x 16 halves at
// w + k * 16 * kSlabs. Two slabs of a column are 64 contiguous bytes: unpacking the words of
// column k and k + 1 (vpunpcklwd / vpunpckhwd, within 128-bit lanes) pairs them up per row,
// with rows in a fixed order across the lanes (unpermuted once at the store). Every token's
// product is the same chain of vdpbf16ps in column-pair order whatever the number of
// tokens or the rows asked for, so decode and a pass of many positions agree to the bit.
#include "inference/engine/cpu/kernels/gguf_kernels.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#define TS_TARGET_BF16 __attribute__((target("avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512bf16")))

namespace ts::engine::gguf_bf16 {
namespace {

// f32 -> bf16, round to nearest even (vcvtne2ps2bf16's rounding; NaNs stay NaNs).
uint16_t roundToBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if ((bits & 0x7FFFFFFF) > 0x7F800000) return static_cast<uint16_t>((bits >> 16) | 0x40);
  return static_cast<uint16_t>((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16);
}

// x [tokens][x_stride] f32 -> pairs [tokens][pairs] of (x[2i], x[2i + 1]) in bf16, the low
// half first (a missing last column: 0).
TS_TARGET_BF16 void toPairs(const float* x, size_t x_stride, int tokens, int cols, int pairs,
                            uint32_t* out) {
  for (int t = 0; t < tokens; ++t) {
    const float* xt = x + static_cast<size_t>(t) * x_stride;
    uint16_t* o = reinterpret_cast<uint16_t*>(out + static_cast<size_t>(t) * pairs);
    int k = 0;
    for (; k + 32 <= cols; k += 32) {
      const __m512bh h = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(xt + k + 16), _mm512_loadu_ps(xt + k));
      _mm512_storeu_si512(o + k, reinterpret_cast<const __m512i&>(h));
    }
    for (; k < cols; ++k) o[k] = roundToBf16(xt[k]);
    if (cols % 2) o[cols] = 0;
  }
}

// The rows of the 32-bit lanes after unpacking two slabs (lo: vpunpcklwd, hi: vpunpckhwd):
// lane j of lo holds row (j / 4 % 2) * 8 + j % 4 of slab j / 8, hi the same rows + 4. These
// indices gather rows 0-15 of the first slab (kFirst) and of the second (kSecond) from
// (lo, hi).
alignas(64) constexpr int32_t kFirst[16] = {0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23};
alignas(64) constexpr int32_t kSecond[16] = {8,  9,  10, 11, 24, 25, 26, 27,
                                             12, 13, 14, 15, 28, 29, 30, 31};
alignas(32) constexpr int32_t kOne[8] = {0, 1, 2, 3, 8, 9, 10, 11};
alignas(32) constexpr int32_t kOneHigh[8] = {4, 5, 6, 7, 12, 13, 14, 15};

TS_TARGET_BF16 inline __m512bh asBh(__m512i v) {
  return reinterpret_cast<__m512bh&>(v);
}
TS_TARGET_BF16 inline __m256bh asBh(__m256i v) {
  return reinterpret_cast<__m256bh&>(v);
}

// kSlabs slabs (1-4) of a super-panel times kTokens tokens (1-6).
template <int kSlabs, int kTokens>
__attribute__((aligned(64))) TS_TARGET_BF16 void panelTokens(const uint16_t* w, int cols,
                                                             const uint32_t* x, size_t x_pairs,
                                                             float* out, size_t out_stride) {
  constexpr int kPairs = kSlabs / 2;         // slabs taken two at a time (512-bit halves)
  constexpr bool kSingle = kSlabs % 2 == 1;  // and one left over (256-bit)
  constexpr size_t kAhead = 4096;
  const size_t column = 16 * kSlabs;
  __m512 lo[kPairs > 0 ? kPairs : 1][kTokens], hi[kPairs > 0 ? kPairs : 1][kTokens];
  __m256 lo1[kTokens], hi1[kTokens];
#pragma GCC unroll 6
  for (int t = 0; t < kTokens; ++t) {
#pragma GCC unroll 2
    for (int p = 0; p < kPairs; ++p) lo[p][t] = hi[p][t] = _mm512_setzero_ps();
    lo1[t] = hi1[t] = _mm256_setzero_ps();
  }
  const int pairs = (cols + 1) / 2;
  for (int i = 0; i < pairs; ++i) {
    const uint16_t* a = w + static_cast<size_t>(2 * i) * column;
    const bool whole = 2 * i + 1 < cols;  // an odd last column pairs with zeros
    const uint16_t* b = a + column;
    _mm_prefetch(reinterpret_cast<const char*>(a + kAhead), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(a + kAhead + 32), _MM_HINT_T0);
    __m512i wl[kPairs > 0 ? kPairs : 1], wh[kPairs > 0 ? kPairs : 1];
#pragma GCC unroll 2
    for (int p = 0; p < kPairs; ++p) {
      const __m512i ca = _mm512_loadu_si512(a + 32 * p);
      const __m512i cb = whole ? _mm512_loadu_si512(b + 32 * p) : _mm512_setzero_si512();
      wl[p] = _mm512_unpacklo_epi16(ca, cb);
      wh[p] = _mm512_unpackhi_epi16(ca, cb);
    }
    __m256i sl = _mm256_setzero_si256(), sh = _mm256_setzero_si256();
    if constexpr (kSingle) {
      const __m256i ca = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + 32 * kPairs));
      const __m256i cb = whole
                             ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 32 * kPairs))
                             : _mm256_setzero_si256();
      sl = _mm256_unpacklo_epi16(ca, cb);
      sh = _mm256_unpackhi_epi16(ca, cb);
    }
#pragma GCC unroll 6
    for (int t = 0; t < kTokens; ++t) {
      int32_t pair;
      std::memcpy(&pair, x + t * x_pairs + i, 4);
      const __m512i xk = _mm512_set1_epi32(pair);
#pragma GCC unroll 2
      for (int p = 0; p < kPairs; ++p) {
        lo[p][t] = _mm512_dpbf16_ps(lo[p][t], asBh(wl[p]), asBh(xk));
        hi[p][t] = _mm512_dpbf16_ps(hi[p][t], asBh(wh[p]), asBh(xk));
      }
      if constexpr (kSingle) {
        const __m256i xk8 = _mm512_castsi512_si256(xk);
        lo1[t] = _mm256_dpbf16_ps(lo1[t], asBh(sl), asBh(xk8));
        hi1[t] = _mm256_dpbf16_ps(hi1[t], asBh(sh), asBh(xk8));
      }
    }
  }
  const __m512i first = _mm512_load_si512(kFirst), second = _mm512_load_si512(kSecond);
  const __m256i one = _mm256_load_si256(reinterpret_cast<const __m256i*>(kOne)),
                one_high = _mm256_load_si256(reinterpret_cast<const __m256i*>(kOneHigh));
#pragma GCC unroll 6
  for (int t = 0; t < kTokens; ++t) {
    float* o = out + t * out_stride;
#pragma GCC unroll 2
    for (int p = 0; p < kPairs; ++p) {
      _mm512_storeu_ps(o + 32 * p, _mm512_permutex2var_ps(lo[p][t], first, hi[p][t]));
      _mm512_storeu_ps(o + 32 * p + 16, _mm512_permutex2var_ps(lo[p][t], second, hi[p][t]));
    }
    if constexpr (kSingle) {
      _mm256_storeu_ps(o + 32 * kPairs, _mm256_permutex2var_ps(lo1[t], one, hi1[t]));
      _mm256_storeu_ps(o + 32 * kPairs + 8, _mm256_permutex2var_ps(lo1[t], one_high, hi1[t]));
    }
  }
}

template <int kMost, class Fn>
inline void upTo(int n, Fn fn) {
  if constexpr (kMost > 1)
    if (n < kMost) return upTo<kMost - 1>(n, fn);
  fn(std::integral_constant<int, kMost>{});
}

}  // namespace

// GgufKernels::panels_bf16 of the avx512-bf16 set.
TS_TARGET_BF16 void panelsBf16Pairs(const uint16_t* w, int rows, int cols, const float* x,
                                    size_t x_stride, int tokens, float* out, size_t out_stride) {
  constexpr int kWidest = 4;  // slabs per super-panel (QuantMatrix::kF16PanelRows / 16)
  constexpr int kMost = 6;    // 2 x 2 x 6 accumulators, 4 weight pairs and a broadcast
  const int pairs = (cols + 1) / 2;
  thread_local std::vector<uint32_t> xb;
  xb.resize(static_cast<size_t>(tokens) * pairs);
  toPairs(x, x_stride, tokens, cols, pairs, xb.data());
  for (int r = 0; r < rows; r += 16 * kWidest) {
    const uint16_t* panel = w + static_cast<size_t>(r) * cols;
    upTo<kWidest>(std::min(kWidest, (rows - r) / 16), [&](auto slabs) {
      for (int t = 0; t < tokens; t += kMost)
        upTo<kMost>(std::min(kMost, tokens - t), [&](auto count) {
          panelTokens<slabs(), count()>(panel, cols, xb.data() + static_cast<size_t>(t) * pairs,
                                        pairs, out + t * out_stride + r, out_stride);
        });
    });
  }
}

}  // namespace ts::engine::gguf_bf16

#endif
