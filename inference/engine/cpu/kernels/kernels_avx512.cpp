// AVX-512 VNNI kernels for the integer formats (int4 and int8 / q8_0), where one vpdpbusd
// on 64 bytes does the work of two AVX-VNNI ones: int4 decode is bound by these multiplies
// (two per 32 weight bytes), so it halves the work per byte. Also F16 rows times up to six
// tokens (dotF16Rows: 32 registers hold four rows' accumulators). The other kernels (float
// formats, KV cache) are the AVX-VNNI set's: they are bound by memory, not instructions.
// Same arithmetic as kernels_portable.cpp; only the order of f32 additions differs.
#include "inference/engine/cpu/kernels/kernels.h"

#include "inference/engine/cpu/kernels/attention_avx512.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>

#include <algorithm>

// GCC 12 reports the deliberately undefined upper lanes inside its own AVX-512 intrinsics
// (_mm512_undefined_*) as uninitialized once they are inlined here: false positives.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace ts::engine {
namespace avx512 {

#define TS_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni,fma")))

TS_TARGET inline float horizontalSum(__m512 v) {
  return _mm512_reduce_add_ps(v);
}

// Four lanes of a __m128 spread over a __m512 as [s0 x8, s1 x8] (first) and [s2 x8,
// s3 x8] (second): the scales of the two blocks each 16-lane product covers.
TS_TARGET inline __m512 spreadFirstPair(__m128 s) {
  return _mm512_permutexvar_ps(_mm512_set_epi32(1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0),
                               _mm512_castps128_ps512(s));
}
TS_TARGET inline __m512 spreadSecondPair(__m128 s) {
  return _mm512_permutexvar_ps(_mm512_set_epi32(3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2),
                               _mm512_castps128_ps512(s));
}

// int4 (layout in kernels.h): 64 weight bytes are blocks b..b+3, the low nibbles of the
// first 32 bytes block b, their high nibbles block b + 1, and so on. Unpacked and
// regrouped as [b | b+1] and [b+2 | b+3], each meets 64 contiguous activation bytes.
// The weight scale of each block times its activation scale multiplies the block's
// integer dot product; the zero point (weight scale x activation offset) sums apart.
template <int kGroup>
TS_TARGET inline __m128 blockWeightScales(const float* w_scale, int b) {  // scales of b..b+3
  if constexpr (kGroup == 1) return _mm_loadu_ps(w_scale + b);
  if constexpr (kGroup == 2)
    return _mm_setr_ps(w_scale[b / 2], w_scale[b / 2], w_scale[b / 2 + 1], w_scale[b / 2 + 1]);
  return _mm_set1_ps(w_scale[b / 4]);
}

template <int kGroup, int kTokens>
TS_TARGET void dotQ4Tokens(const uint8_t* w, const float* w_scale, const int8_t* x,
                           const float* x_scale, const float* x_offset, int blocks, float* out) {
  const size_t x_stride = static_cast<size_t>(blocks) * 32;
  const __m512i low = _mm512_set1_epi8(0x0F);
  __m512 acc_a[kTokens], acc_b[kTokens];
  __m128 zero_point[kTokens];
  for (int t = 0; t < kTokens; ++t) {
    acc_a[t] = acc_b[t] = _mm512_setzero_ps();
    zero_point[t] = _mm_setzero_ps();
  }
  for (int b = 0; b < blocks; b += 4) {
    // A last unit of two blocks (blocks is even) reads only its own 32 weight bytes, 64
    // activation bytes and two scales: the arrays end there.
    const bool half = b + 2 == blocks;
    const __m512i packed = half ? _mm512_zextsi256_si512(_mm256_loadu_si256(
                                      reinterpret_cast<const __m256i*>(w + b * 16)))
                                : _mm512_loadu_si512(w + b * 16);
    const __m512i lo = _mm512_and_si512(packed, low);                        // [b | b+2]
    const __m512i hi = _mm512_and_si512(_mm512_srli_epi16(packed, 4), low);  // [b+1 | b+3]
    const __m512i first = _mm512_shuffle_i64x2(lo, hi, 0x44);                // [b | b+1]
    const __m512i second = _mm512_shuffle_i64x2(lo, hi, 0xEE);               // [b+2 | b+3]
    const __m128 ws = half ? _mm_setr_ps(w_scale[b / kGroup], w_scale[(b + 1) / kGroup], 0.f, 0.f)
                           : blockWeightScales<kGroup>(w_scale, b);
    for (int t = 0; t < kTokens; ++t) {
      const int8_t* xt = x + t * x_stride + b * 32;
      const float* st = x_scale + t * blocks + b;
      const float* ot = x_offset + t * blocks + b;
      const __m128 xs = half ? _mm_setr_ps(st[0], st[1], 0.f, 0.f) : _mm_loadu_ps(st);
      const __m128 offsets = half ? _mm_setr_ps(ot[0], ot[1], 0.f, 0.f) : _mm_loadu_ps(ot);
      zero_point[t] = _mm_fmadd_ps(ws, offsets, zero_point[t]);
      const __m128 scales = _mm_mul_ps(ws, xs);
      const __m512i d0 = _mm512_dpbusd_epi32(_mm512_setzero_si512(), first, _mm512_loadu_si512(xt));
      acc_a[t] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(d0), spreadFirstPair(scales), acc_a[t]);
      if (half) continue;
      const __m512i d1 =
          _mm512_dpbusd_epi32(_mm512_setzero_si512(), second, _mm512_loadu_si512(xt + 64));
      acc_b[t] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(d1), spreadSecondPair(scales), acc_b[t]);
    }
  }
  for (int t = 0; t < kTokens; ++t) {
    __m128 z = _mm_add_ps(zero_point[t], _mm_movehl_ps(zero_point[t], zero_point[t]));
    z = _mm_add_ss(z, _mm_movehdup_ps(z));
    out[t] = horizontalSum(_mm512_add_ps(acc_a[t], acc_b[t])) - _mm_cvtss_f32(z);
  }
}

template <int kTokens>
TS_TARGET void dotQ4Any(const uint8_t* w, const float* w_scale, int blocks_per_group,
                        const int8_t* x, const float* x_scale, const float* x_offset, int blocks,
                        float* out) {
  switch (blocks_per_group) {
    case 1:
      return dotQ4Tokens<1, kTokens>(w, w_scale, x, x_scale, x_offset, blocks, out);
    case 2:
      return dotQ4Tokens<2, kTokens>(w, w_scale, x, x_scale, x_offset, blocks, out);
    default:
      return dotQ4Tokens<4, kTokens>(w, w_scale, x, x_scale, x_offset, blocks, out);
  }
}

TS_TARGET float dotQ4(const uint8_t* w, const float* w_scale, int blocks_per_group, const int8_t* x,
                      const float* x_scale, const float* x_offset, int blocks) {
  float out;
  dotQ4Any<1>(w, w_scale, blocks_per_group, x, x_scale, x_offset, blocks, &out);
  return out;
}

// Four tokens in one pass (32 vector registers hold their accumulators), each computed
// exactly as dotQ4 computes one: bit-identical results.
TS_TARGET void dotQ4X4(const uint8_t* w, const float* w_scale, int blocks_per_group,
                       const int8_t* x, const float* x_scale, const float* x_offset, int blocks,
                       float* out) {
  dotQ4Any<4>(w, w_scale, blocks_per_group, x, x_scale, x_offset, blocks, out);
}

// int8 against int8 activations, 64 bytes (two blocks) per step: vpdpbusd wants unsigned
// x signed, so the weights' signs move to the activations (|w| x sign(w) x).
template <int kTokens>
TS_TARGET void dotQ8Tokens(const int8_t* w, const int8_t* x, const float* x_scale, int blocks,
                           float* out) {
  const size_t x_stride = static_cast<size_t>(blocks) * 32;
  const __m512i zero = _mm512_setzero_si512();
  __m512 acc[kTokens];
  for (int t = 0; t < kTokens; ++t) acc[t] = _mm512_setzero_ps();
  for (int b = 0; b < blocks; b += 2) {  // blocks is even (rows are padded to 64)
    const __m512i wv = _mm512_loadu_si512(w + b * 32);
    const __m512i magnitude = _mm512_abs_epi8(wv);
    const __mmask64 negative = _mm512_movepi8_mask(wv);
    for (int t = 0; t < kTokens; ++t) {
      const __m512i xv = _mm512_loadu_si512(x + t * x_stride + b * 32);
      const __m512i signed_x = _mm512_mask_sub_epi8(xv, negative, zero, xv);
      const __m512i d = _mm512_dpbusd_epi32(zero, magnitude, signed_x);
      const float* st = x_scale + t * blocks + b;
      const __m512 scales = _mm512_insertf32x8(_mm512_set1_ps(st[0]), _mm256_set1_ps(st[1]), 1);
      acc[t] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(d), scales, acc[t]);
    }
  }
  for (int t = 0; t < kTokens; ++t) out[t] = horizontalSum(acc[t]);
}

TS_TARGET float dotQ8(const int8_t* w, const int8_t* x, const float* x_scale, int blocks) {
  float out;
  dotQ8Tokens<1>(w, x, x_scale, blocks, &out);
  return out;
}

TS_TARGET void dotQ8X4(const int8_t* w, const int8_t* x, const float* x_scale, int blocks,
                       float* out) {
  dotQ8Tokens<4>(w, x, x_scale, blocks, out);
}

// F16 rows times up to six f32 activation rows (prefill, speculative verification): each
// group of eight weights is converted once for the tokens, where the AVX2 set converts it
// once per token. AVX-512's 32 vector registers hold the accumulators of four rows, so
// every token's sum is the one dotFloat makes alone (same FMAs in the same order,
// same final additions): bit-identical to dot_f16 of that token. Rows whose width is not a
// multiple of 8 go to the AVX2 set's loop (its scalar tail).
// quantize_row_q8 with a block in two 512-bit registers (one maximum and one sum reduced
// per block, where the 256-bit set reduces four registers), sixteen blocks' scales at a time:
// the same bytes and scales (a NaN is skipped by the maxima as there: max_ps returns its
// second operand when the first is NaN).
// Rounded half to even (the default rounding) and clamped to [-127, 127].
TS_TARGET inline __m512i roundClamped(__m512 v) {
  return _mm512_min_epi32(_mm512_max_epi32(_mm512_cvtps_epi32(v), _mm512_set1_epi32(-127)),
                          _mm512_set1_epi32(127));
}

TS_TARGET void quantizeRowQ8(const float* x, int blocks, int8_t* q, float* scale, float* offset,
                             float* scale16, float* offset16, int32_t* q_sums) {
  const __m512 sign = _mm512_set1_ps(-0.f);
  for (int b0 = 0; b0 < blocks; b0 += 16) {
    const int count = std::min(16, blocks - b0);
    alignas(64) float amax[16] = {};
    alignas(64) int32_t sums[16] = {};
    for (int i = 0; i < count; ++i) {
      const float* xb = x + (b0 + i) * 32;
      const __m512 v0 = _mm512_loadu_ps(xb), v1 = _mm512_loadu_ps(xb + 16);
      const __m512 m =
          _mm512_max_ps(_mm512_andnot_ps(sign, v1),
                        _mm512_max_ps(_mm512_andnot_ps(sign, v0), _mm512_setzero_ps()));
      amax[i] = _mm512_reduce_max_ps(m);
      const __m512 inv = _mm512_set1_ps(amax[i] > 0 ? 127.f / amax[i] : 0.f);
      const __m512i r0 = roundClamped(_mm512_mul_ps(v0, inv)),
                    r1 = roundClamped(_mm512_mul_ps(v1, inv));
      int8_t* to = q + (b0 + i) * 32;
      _mm_storeu_si128(reinterpret_cast<__m128i*>(to), _mm512_cvtepi32_epi8(r0));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(to + 16), _mm512_cvtepi32_epi8(r1));
      sums[i] = _mm512_reduce_add_epi32(_mm512_add_epi32(r0, r1));
    }
    const __m512 eight = _mm512_set1_ps(8.f), sum = _mm512_cvtepi32_ps(_mm512_load_si512(sums)),
                 s = _mm512_div_ps(_mm512_load_ps(amax), _mm512_set1_ps(127.f)),
                 s16 = _mm512_cvtph_ps(_mm512_cvtps_ph(s, _MM_FROUND_TO_NEAREST_INT)),
                 off = _mm512_mul_ps(_mm512_mul_ps(eight, s), sum),
                 off16 = _mm512_mul_ps(_mm512_mul_ps(eight, s16), sum);
    const __mmask16 valid = static_cast<__mmask16>((1u << count) - 1);
    _mm512_mask_storeu_ps(scale + b0, valid, s);
    _mm512_mask_storeu_ps(offset + b0, valid, off);
    _mm512_mask_storeu_ps(scale16 + b0, valid, s16);
    _mm512_mask_storeu_ps(offset16 + b0, valid, off16);
    _mm512_mask_storeu_epi32(q_sums + b0, valid, _mm512_load_si512(sums));
  }
}

#define TS_TARGET_F16 __attribute__((target("avx512f,avx512vl,fma,f16c")))

TS_TARGET_F16 inline float horizontalSum8(__m256 v) {  // kernels_x86.inc's order
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// One chunk [c0, c1) of kRows rows (wr, wr + row_stride, ...) with kTokens tokens, for
// one half m of every step of 32 values: dotFloat's accumulators a0 | a1 (values i .. i + 15,
// m = 0) or a2 | a3 (i + 16 .. i + 31, m = 1) share a 512-bit register, so one FMA does the
// work of two 256-bit ones, lane by lane the same operations. The halves are independent
// sums, so each takes its own pass over the chunk (the second reads the rows' lines from
// L1): kRows x kTokens accumulators fit the registers with four rows per activation load,
// where both halves at once held two rows and loaded each activation once per row (one
// 64-byte load per FMA: the loads, not the FMAs, set the pace).
template <int kTokens, int kRows>
TS_TARGET_F16 inline void f16ChunkHalf(const uint16_t* wr, size_t row_stride, const float* x,
                                       size_t x_stride, int c0, int c1, int m,
                                       float (*state)[kTokens][4][8], const uint16_t* next) {
  // (every loop but the chunk's unrolled: the accumulators stay in registers)
  __m512 a[kRows][kTokens];
#pragma GCC unroll 4
  for (int j = 0; j < kRows; ++j)
#pragma GCC unroll 6
    for (int t = 0; t < kTokens; ++t) a[j][t] = _mm512_load_ps(state[j][t][2 * m]);
  for (int i = c0; i < c1; i += 32) {
    // the same lines kAhead rows on, into L2 (prefetches to L1 held its miss buffers
    // and stalled the loads), half of them in each half's pass
#pragma GCC unroll 2
    for (int j = m; j < 4; j += 2)
      _mm_prefetch(reinterpret_cast<const char*>(next + j * row_stride + i), _MM_HINT_T1);
    __m512 wk[kRows];
#pragma GCC unroll 4
    for (int j = 0; j < kRows; ++j)
      wk[j] = _mm512_cvtph_ps(
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wr + j * row_stride + i + 16 * m)));
#pragma GCC unroll 6
    for (int t = 0; t < kTokens; ++t) {
      __m512 xm = _mm512_loadu_ps(x + t * x_stride + i + 16 * m);
      asm("" : "+v"(xm));  // one load for the rows: GCC would fold it into every FMA
#pragma GCC unroll 4
      for (int j = 0; j < kRows; ++j) a[j][t] = _mm512_fmadd_ps(wk[j], xm, a[j][t]);
    }
  }
#pragma GCC unroll 4
  for (int j = 0; j < kRows; ++j)
#pragma GCC unroll 6
    for (int t = 0; t < kTokens; ++t) _mm512_store_ps(state[j][t][2 * m], a[j][t]);
}

template <int kTokens, int kRows>
TS_TARGET_F16 inline void f16Chunk(const uint16_t* wr, size_t row_stride, const float* x,
                                   size_t x_stride, int c0, int c1, float (*state)[kTokens][4][8],
                                   const uint16_t* next) {
  f16ChunkHalf<kTokens, kRows>(wr, row_stride, x, x_stride, c0, c1, 0, state, next);
  f16ChunkHalf<kTokens, kRows>(wr, row_stride, x, x_stride, c0, c1, 1, state, next);
}

// Rows times 1 .. kTokens tokens with dotFloat's arithmetic, the rows split in chunks of
// kChunk values whose activations (kTokens x 2 KiB) stay in L1 while sixteen rows pass
// over them, four rows at a time (f16Chunk): whole rows would bring kTokens x 16 KiB (a
// 4096-wide row) from L2 for every row, which bounded a pass of five at a third of the
// memory's rate. Each row's accumulators wait in `state` between chunks, so every sum is
// made in dotFloat's order.
template <int kTokens>
TS_TARGET_F16 void dotF16RowsTokens(const uint16_t* w, size_t row_stride, int rows, const float* x,
                                    size_t x_stride, int n, float* out, size_t out_stride) {
  constexpr int kGroup = 16, kChunk = 512, kStep = 4, kAhead = 8;
  alignas(64) float state[kGroup][kTokens][4][8];
  const int whole = n / 32 * 32;
  for (int r0 = 0; r0 < rows; r0 += kGroup) {
    const int count = std::min(kGroup, rows - r0);
    for (int r = 0; r < count; ++r)
      for (int t = 0; t < kTokens; ++t)
        for (int k = 0; k < 4; ++k) _mm256_store_ps(state[r][t][k], _mm256_setzero_ps());
    for (int c0 = 0; c0 < whole; c0 += kChunk) {
      const int c1 = std::min(whole, c0 + kChunk);
      for (int r = 0; r < count; r += kStep) {
        const uint16_t* wr = w + (r0 + r) * row_stride;
        // the chunk kAhead rows on (past the group's last row: the next chunk's first
        // rows) on its way: the rows' segments are row_stride apart, a pattern the
        // hardware's prefetch follows too late
        const int ahead = r + kAhead;
        const uint16_t* next = ahead < count ? wr + kAhead * row_stride
                                             : w + (r0 + ahead - count) * row_stride + kChunk;
        switch (std::min(kStep, count - r)) {
          case 4:
            f16Chunk<kTokens, 4>(wr, row_stride, x, x_stride, c0, c1, state + r, next);
            break;
          case 3:
            f16Chunk<kTokens, 3>(wr, row_stride, x, x_stride, c0, c1, state + r, next);
            break;
          case 2:
            f16Chunk<kTokens, 2>(wr, row_stride, x, x_stride, c0, c1, state + r, next);
            break;
          default:
            f16Chunk<kTokens, 1>(wr, row_stride, x, x_stride, c0, c1, state + r, next);
        }
      }
    }
    for (int r = 0; r < count; ++r) {
      const uint16_t* wr = w + (r0 + r) * row_stride;
      for (int t = 0; t < kTokens; ++t) {
        __m256 a0 = _mm256_load_ps(state[r][t][0]);
        for (int i = whole; i + 8 <= n; i += 8)  // dotFloat's eight at a time into a0
          a0 = _mm256_fmadd_ps(
              _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(wr + i))),
              _mm256_loadu_ps(x + t * x_stride + i), a0);
        const __m256 sum = _mm256_add_ps(
            _mm256_add_ps(a0, _mm256_load_ps(state[r][t][1])),
            _mm256_add_ps(_mm256_load_ps(state[r][t][2]), _mm256_load_ps(state[r][t][3])));
        out[t * out_stride + r0 + r] = horizontalSum8(sum);
      }
    }
  }
}

// 1 .. Kernels::kHalfTokens tokens (6 x 4 accumulators and the weights fit the registers).
TS_TARGET_F16 void dotF16Rows(const uint16_t* w, size_t row_stride, int rows, const float* x,
                              size_t x_stride, int n, int tokens, float* out, size_t out_stride) {
  switch (tokens) {
    case 1:
      return dotF16RowsTokens<1>(w, row_stride, rows, x, x_stride, n, out, out_stride);
    case 2:
      return dotF16RowsTokens<2>(w, row_stride, rows, x, x_stride, n, out, out_stride);
    case 3:
      return dotF16RowsTokens<3>(w, row_stride, rows, x, x_stride, n, out, out_stride);
    case 4:
      return dotF16RowsTokens<4>(w, row_stride, rows, x, x_stride, n, out, out_stride);
    case 5:
      return dotF16RowsTokens<5>(w, row_stride, rows, x, x_stride, n, out, out_stride);
    default:
      return dotF16RowsTokens<6>(w, row_stride, rows, x, x_stride, n, out, out_stride);
  }
}
#undef TS_TARGET_F16

#undef TS_TARGET

}  // namespace avx512

namespace {

bool hasAvx512Vnni() {
  // CPUID leaf 7 sub-leaf 0: ECX bit 11 is AVX512_VNNI; __builtin_cpu_supports checks the
  // others together with the operating system's saving of the 512-bit registers.
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
         __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 11));
}

}  // namespace

const Kernels* avx512Kernels() {
  static const Kernels* k = []() -> const Kernels* {
    const Kernels* base = vnniKernels() ? vnniKernels() : avx2Kernels();
    if (!base || !hasAvx512Vnni()) return nullptr;
    static Kernels set = *base;
    set.name = "avx512-vnni";
    set.dot_q8 = avx512::dotQ8;
    set.dot_q8_x4 = avx512::dotQ8X4;
    set.dot_q4 = avx512::dotQ4;
    set.dot_q4_x4 = avx512::dotQ4X4;
    set.quantize_row_q8 = avx512::quantizeRowQ8;
    // whole groups of 8 here; a ragged row's scalar tail stays with the base set
    static const auto base_f16_rows = base->dot_f16_rows;
    set.dot_f16_rows = [](const uint16_t* w, size_t row_stride, int rows, const float* x,
                          size_t x_stride, int n, int tokens, float* out, size_t out_stride) {
      if (n % 8 == 0)
        return avx512::dotF16Rows(w, row_stride, rows, x, x_stride, n, tokens, out, out_stride);
      base_f16_rows(w, row_stride, rows, x, x_stride, n, tokens, out, out_stride);
    };
    // attention in 512-bit registers where head_dim is whole registers (attention_avx512.h)
    static const auto base_scores = base->attention_scores;
    static const auto base_values = base->attention_values;
    set.attention_scores = [](Kernels::Rows type, const void* rows, size_t row_stride, int keys,
                              const float* q, size_t q_stride, int queries, int head_dim, float* s,
                              size_t s_stride) {
      (head_dim % 16 == 0 ? avx512::attentionScores16 : base_scores)(
          type, rows, row_stride, keys, q, q_stride, queries, head_dim, s, s_stride);
    };
    set.attention_values = [](Kernels::Rows type, const void* rows, size_t row_stride, int keys,
                              const float* p, size_t p_stride, int queries, int head_dim,
                              float* acc, size_t acc_stride) {
      (head_dim % 16 == 0 ? avx512::attentionValues16 : base_values)(
          type, rows, row_stride, keys, p, p_stride, queries, head_dim, acc, acc_stride);
    };
    return &set;
  }();
  return k;
}

}  // namespace ts::engine

#else  // not x86-64 with GCC/Clang

namespace ts::engine {
const Kernels* avx512Kernels() {
  return nullptr;
}
}  // namespace ts::engine

#endif
