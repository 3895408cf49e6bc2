// Attention's two products (Kernels::attention_scores / attention_values) on 512-bit
// registers, for head_dim a multiple of 16 (kernels_avx512.cpp sends other shapes to the
// 256-bit set). A prefill's attention is a small matrix product per head: the 256-bit
// kernels take one query at a time for the scores (nine loads per eight multiply-adds, so
// bound by the loads) and two for the values; here two queries share each key row's load
// (sixteen multiply-adds per ten loads) and four each value row's, which halves the time of
// a 512-position prefill's attention.
// - scores: sixteen fma chains per query and row (lane l over d = l, l + 16, ...), lanes l
//   and l + 8 added, then the 256-bit set's tree over the eight sums. A query's score does
//   not depend on the other queries of the call nor on the row type holding the same
//   values, as kernels.h requires, so decode and passes agree to the bit; the values differ
//   from the 256-bit set's in rounding only.
// - values: acc[d] += p[t] * row_t[d] for t in order, one fused multiply-add each: the same
//   arithmetic as the 256-bit set, so the same bits.
#include "inference/engine/cpu/kernels/attention_avx512.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include <algorithm>

#if defined(__GNUC__) && !defined(__clang__)  // as in kernels_avx512.cpp: false positives
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace ts::engine::avx512 {

#define TS_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,fma")))

namespace {

TS_TARGET inline __m512 load16(const float* p) {
  return _mm512_loadu_ps(p);
}
TS_TARGET inline __m512 load16(const uint16_t* p) {
  return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}
TS_TARGET inline __m512 load16(const int8_t* p) {
  return _mm512_cvtepi32_ps(
      _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
}

// Eight rows' chains to their eight scores: lane j of the result is row j's
// ((c0 + c1) + (c2 + c3)) + ((c4 + c5) + (c6 + c7)) with c_l = lane l + lane l + 8.
TS_TARGET inline __m256 scoresOf8(const __m512* a) {
  __m256 c[8];
#pragma GCC unroll 8
  for (int j = 0; j < 8; ++j)
    c[j] = _mm256_add_ps(_mm512_castps512_ps256(a[j]), _mm512_extractf32x8_ps(a[j], 1));
  const __m256 t0 = _mm256_hadd_ps(c[0], c[1]), t1 = _mm256_hadd_ps(c[2], c[3]),
               t2 = _mm256_hadd_ps(c[4], c[5]), t3 = _mm256_hadd_ps(c[6], c[7]);
  const __m256 u0 = _mm256_hadd_ps(t0, t1), u1 = _mm256_hadd_ps(t2, t3);
  return _mm256_add_ps(_mm256_permute2f128_ps(u0, u1, 0x20), _mm256_permute2f128_ps(u0, u1, 0x31));
}

// Scores of kQueries (1 or 2) queries against rows t0 .. t0 + n - 1 (n <= 8).
template <int kQueries, typename W>
TS_TARGET inline void scoreRows(const W* rows, size_t row_stride, int t0, int n, const float* q,
                                size_t q_stride, int head_dim, float* s, size_t s_stride) {
  const W* row[8];  // rows past n repeat the last one (their lanes are dropped)
#pragma GCC unroll 8
  for (int j = 0; j < 8; ++j) row[j] = rows + (t0 + std::min(j, n - 1)) * row_stride;
  __m512 a[kQueries][8];
#pragma GCC unroll 2
  for (int i = 0; i < kQueries; ++i)
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) a[i][j] = _mm512_setzero_ps();
  for (int d = 0; d < head_dim; d += 16) {
    __m512 x[kQueries];
#pragma GCC unroll 2
    for (int i = 0; i < kQueries; ++i) x[i] = _mm512_loadu_ps(q + i * q_stride + d);
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) {
      const __m512 r = load16(row[j] + d);
#pragma GCC unroll 2
      for (int i = 0; i < kQueries; ++i) a[i][j] = _mm512_fmadd_ps(x[i], r, a[i][j]);
    }
  }
  for (int i = 0; i < kQueries; ++i) {
    alignas(32) float out[8];
    _mm256_store_ps(out, scoresOf8(a[i]));
    std::copy(out, out + n, s + i * s_stride + t0);
  }
}

template <typename W>
TS_TARGET void scoresOf(const W* rows, size_t row_stride, int keys, const float* q, size_t q_stride,
                        int queries, int head_dim, float* s, size_t s_stride) {
  int i = 0;
  for (; i + 2 <= queries; i += 2)
    for (int t0 = 0; t0 < keys; t0 += 8)
      scoreRows<2>(rows, row_stride, t0, std::min(8, keys - t0), q + i * q_stride, q_stride,
                   head_dim, s + i * s_stride, s_stride);
  if (i < queries)
    for (int t0 = 0; t0 < keys; t0 += 8)
      scoreRows<1>(rows, row_stride, t0, std::min(8, keys - t0), q + i * q_stride, q_stride,
                   head_dim, s + i * s_stride, s_stride);
}

// kQueries queries' accumulators over kWidth x 16 of head_dim from d on, in registers
// across the rows.
template <int kQueries, int kWidth, typename W>
TS_TARGET inline void addRows(const W* v, size_t v_stride, int keys, const float* p,
                              size_t p_stride, int d, float* acc, size_t acc_stride) {
  __m512 a[kQueries][kWidth];
#pragma GCC unroll 4
  for (int i = 0; i < kQueries; ++i)
#pragma GCC unroll 4
    for (int k = 0; k < kWidth; ++k) a[i][k] = _mm512_loadu_ps(acc + i * acc_stride + d + 16 * k);
  for (int t = 0; t < keys; ++t) {
    const W* row = v + t * v_stride + d;
    __m512 x[kWidth];
#pragma GCC unroll 4
    for (int k = 0; k < kWidth; ++k) x[k] = load16(row + 16 * k);
#pragma GCC unroll 4
    for (int i = 0; i < kQueries; ++i) {
      const __m512 w = _mm512_set1_ps(p[i * p_stride + t]);
#pragma GCC unroll 4
      for (int k = 0; k < kWidth; ++k) a[i][k] = _mm512_fmadd_ps(w, x[k], a[i][k]);
    }
  }
#pragma GCC unroll 4
  for (int i = 0; i < kQueries; ++i)
#pragma GCC unroll 4
    for (int k = 0; k < kWidth; ++k) _mm512_storeu_ps(acc + i * acc_stride + d + 16 * k, a[i][k]);
}

template <int kQueries, typename W>
TS_TARGET void valuesOfQueries(const W* v, size_t v_stride, int keys, const float* p,
                               size_t p_stride, int head_dim, float* acc, size_t acc_stride) {
  int d = 0;
  for (; d + 64 <= head_dim; d += 64)
    addRows<kQueries, 4>(v, v_stride, keys, p, p_stride, d, acc, acc_stride);
  for (; d < head_dim; d += 16)
    addRows<kQueries, 1>(v, v_stride, keys, p, p_stride, d, acc, acc_stride);
}

template <typename W>
TS_TARGET void valuesOf(const W* v, size_t v_stride, int keys, const float* p, size_t p_stride,
                        int queries, int head_dim, float* acc, size_t acc_stride) {
  int i = 0;
  for (; i + 4 <= queries; i += 4)
    valuesOfQueries<4>(v, v_stride, keys, p + i * p_stride, p_stride, head_dim,
                       acc + i * acc_stride, acc_stride);
  for (; i < queries; ++i)
    valuesOfQueries<1>(v, v_stride, keys, p + i * p_stride, p_stride, head_dim,
                       acc + i * acc_stride, acc_stride);
}

}  // namespace

void attentionScores16(Kernels::Rows type, const void* rows, size_t row_stride, int keys,
                       const float* q, size_t q_stride, int queries, int head_dim, float* s,
                       size_t s_stride) {
  withRows(type, rows, [&](const auto* r) {
    scoresOf(r, row_stride, keys, q, q_stride, queries, head_dim, s, s_stride);
  });
}

void attentionValues16(Kernels::Rows type, const void* rows, size_t row_stride, int keys,
                       const float* p, size_t p_stride, int queries, int head_dim, float* acc,
                       size_t acc_stride) {
  withRows(type, rows, [&](const auto* r) {
    valuesOf(r, row_stride, keys, p, p_stride, queries, head_dim, acc, acc_stride);
  });
}

#undef TS_TARGET

}  // namespace ts::engine::avx512

#endif
