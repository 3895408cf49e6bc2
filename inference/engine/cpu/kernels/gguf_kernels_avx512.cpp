// Q4_0 decode on 512-bit registers (GgufKernels::dot_q4_0_grouped): four blocks' 16 bytes
// of nibbles in one register, their low and high nibbles each multiplied with the
// activations of the four blocks in one vpdpbusd, the activations regrouped once per pass
// to match (Activations::q_grouped). Half the instructions per block of the 256-bit kernel
// and a cheaper reduction to per-block sums: 1.4x the rate on one EPYC thread with the rows
// in L2 (15.5 -> 22.8 GB/s, interleaved runs). On two threads decode is bound by this
// rate, not by memory, whenever the memory is fast. The arithmetic is dot_q4_0's (gguf_kernels_x86.inc):
// per block its exact integer product, value = q.x * x_d - x_offset, S[b % 8] += d_w *
// value, then ((S0 + S4) + (S2 + S6)) + ((S1 + S5) + (S3 + S7)): the same to the bit.
#include "inference/engine/cpu/kernels/gguf_kernels.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include <cmath>
#include <cstring>

#include "inference/engine/core/tensor_types.h"

// GCC 12 reports the undefined upper lanes inside its own AVX-512 intrinsics as
// uninitialized once they are inlined here (as in kernels_avx512.cpp): false positives.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace ts::engine::gguf_avx512 {

#define TS_TARGET __attribute__((target("avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")))

namespace {

// The f16 scales of eight consecutive Q4_0 blocks (18 bytes = 9 words apart) as f32: one
// word permutation of the 128 bytes that hold them.
TS_TARGET inline __m256 scales8(const uint8_t* group) {
  const __m512i pick = _mm512_set_epi16(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                        0, 0, 0, 0, 63, 54, 45, 36, 27, 18, 9, 0);
  const __m512i words =
      _mm512_permutex2var_epi16(_mm512_loadu_si512(group), pick, _mm512_loadu_si512(group + 64));
  return _mm256_cvtph_ps(_mm512_castsi512_si128(words));
}

// Blocks 4q .. 4q + 3 of a group of eight times their regrouped activations (128 bytes):
// 128-bit lane k holds four int32 partial sums of block 4q + k.
TS_TARGET inline __m512i quadDot(const uint8_t* quad, const int8_t* x) {
  const uint8_t* q = quad + 2;  // past the first block's scale
  __m512i v = _mm512_castsi128_si512(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q)));
  v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + 18)), 1);
  v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + 36)), 2);
  v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + 54)), 3);
  const __m512i low4 = _mm512_set1_epi8(15);
  const __m512i lo = _mm512_and_si512(v, low4),
                hi = _mm512_and_si512(_mm512_srli_epi16(v, 4), low4);
  const __m512i sum = _mm512_dpbusd_epi32(_mm512_setzero_si512(), lo, _mm512_loadu_si512(x));
  return _mm512_dpbusd_epi32(sum, hi, _mm512_loadu_si512(x + 64));
}

// The eight blocks' exact sums in block order, from the two quads' partial sums.
TS_TARGET inline __m256i blockSums(__m512i a, __m512i b) {
  // lane k: [a_k0 + a_k2, a_k1 + a_k3, b_k0 + b_k2, b_k1 + b_k3], then [a_k, a_k, b_k, b_k]
  __m512i u = _mm512_add_epi32(_mm512_unpacklo_epi64(a, b), _mm512_unpackhi_epi64(a, b));
  u = _mm512_add_epi32(u, _mm512_shuffle_epi32(u, _MM_PERM_CDAB));
  // block k of quad 0 sits at dword 4k, block k of quad 1 at 4k + 2
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 2, 6, 10, 14, 0, 0, 0, 0, 0, 0, 0, 0);
  return _mm512_castsi512_si256(_mm512_permutexvar_epi32(order, u));
}

TS_TARGET inline float horizontalSum(__m256 v) {  // ((S0 + S4) + (S2 + S6)) + ((S1 + S5) + ...)
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

}  // namespace

TS_TARGET float dotQ4_0Grouped(const uint8_t* w, const int8_t* x, const float* x_d,
                               const float* x_offset, int blocks) {
  __m256 sums = _mm256_setzero_ps();
  int b = 0;
  for (; b + 8 <= blocks; b += 8, x += 256) {
    const uint8_t* group = w + static_cast<size_t>(b) * sizeof(BlockQ4_0);
    _mm_prefetch(reinterpret_cast<const char*>(group + 2048), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(group + 2048 + 64), _MM_HINT_T0);
    const __m256i dots =
        blockSums(quadDot(group, x), quadDot(group + 4 * sizeof(BlockQ4_0), x + 128));
    const __m256 value = _mm256_fmsub_ps(_mm256_cvtepi32_ps(dots), _mm256_loadu_ps(x_d + b),
                                         _mm256_loadu_ps(x_offset + b));
    sums = _mm256_fmadd_ps(scales8(group), value, sums);
  }
  if (b == blocks) return horizontalSum(sums);
  alignas(32) float s[8];  // the last blocks (in q's order) one at a time, into S[b % 8]
  _mm256_store_ps(s, sums);
  for (; b < blocks; ++b, x += 32) {
    const uint8_t* blk = w + static_cast<size_t>(b) * sizeof(BlockQ4_0);
    int32_t dot = 0;
    for (int j = 0; j < 16; ++j) dot += (blk[2 + j] & 15) * x[j] + (blk[2 + j] >> 4) * x[j + 16];
    uint16_t half;
    std::memcpy(&half, blk, 2);
    const float value = std::fma(static_cast<float>(dot), x_d[b], -x_offset[b]);
    s[b % 8] = std::fma(f16ToF32(half), value, s[b % 8]);
  }
  return ((s[0] + s[4]) + (s[2] + s[6])) + ((s[1] + s[5]) + (s[3] + s[7]));
}

}  // namespace ts::engine::gguf_avx512

#endif
