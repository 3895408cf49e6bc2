// Q4_K / Q5_K / Q6_K rows in panels of sixteen (QuantMatrix::inPanels; GgufKernels::
// panels_q4_k ...): sixteen rows in the lanes of a 512-bit register, every product a
// vpdpbusd of four elements of each row with four activation bytes, as Q4_0's panels.
// The K-type kernels of gguf_kernels_x86.inc keep eight element lanes per row (llama.cpp's
// order), which costs two operations per 32 products on 256 bits; here a row's integer sum
// over a super-block is one exact int32 (each 32 or 16 values' sum times the sub-block's
// scale, vpmulld), so a pass costs about what Q4_0's does per product.
// Per row, super-block s and position t (x_d, bsums: Activations' Q8_K form):
//   Q4_K / Q5_K: I = sum_j sc_j (q_j . x_j), M = sum_j m_j (bsum_2j + bsum_2j+1), exact;
//                F += (d x_d) I, N += (dmin x_d) M; the product is F - N.
//   Q6_K:        I = sum_j sc_j (q_j . x_j) - 32 sum_j sc_j bsum_j (q unsigned 0..63), exact;
//                F += (d x_d) I; the product is F.
// The f32 steps are the same for any number of positions and rows, so decode (which reads
// the panels too) and every pass agree to the bit.
#include "inference/engine/cpu/kernels/gguf_kernels.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "inference/engine/core/tensor_types.h"
#include "inference/engine/cpu/kernels/gguf_avx512_common.h"
#include "inference/engine/cpu/kernels/kernels.h"

namespace ts::engine::gguf_avx512 {

namespace {

enum class KType { Q4, Q5, Q6 };

// A row's super-block in bytes, and where its words lie in a panel: word w (bytes 4w ..
// 4w + 3) of row i at 64 w + 4 i (Q6_K: its first 48 words; then its scales 2j, 2j + 1 of row
// i at 3072 + 32 j + 2 i, its d at 3328 + 2 i: QuantMatrix::inPanels).
template <KType kType>
constexpr size_t kBlockBytes = kType == KType::Q4   ? sizeof(BlockQ4K)
                               : kType == KType::Q5 ? sizeof(BlockQ5K)
                                                    : sizeof(BlockQ6K);

TS_TARGET inline __m512i word(const uint8_t* panel, int w) {
  return _mm512_loadu_si512(panel + 64 * w);
}

// What every position's products with one super-block of a slab share: per row, d (and
// dmin) as f32, the sub-block scales as int32 (Q4_K / Q5_K: 8; Q6_K: 16, signed) and the
// pairs the block sums are multiplied with (Q4_K / Q5_K: m_j in both halves of a dword;
// Q6_K: sc_2i and sc_2i+1).
struct Prepared {
  __m512 d, dmin;
  __m512i scale[16];
  __m512i pair[8];
};

TS_TARGET inline __m512i bits(__m512i v, int shift, __m512i mask) {  // (v >> shift) & mask
  return _mm512_and_si512(_mm512_srli_epi32(v, shift), mask);
}

template <KType kType>
TS_TARGET inline void prepare(const uint8_t* panel, Prepared& p) {
  if constexpr (kType == KType::Q6) {
    // the scales in pairs (sc_2i, sc_2i+1 of row r at 32 i + 2 r), sign-extended to 16 bits
    // (vpdpwssd's pairs as they are), each also as a dword
    for (int i = 0; i < 8; ++i) {
      p.pair[i] = _mm512_cvtepi8_epi16(
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + 3072 + 32 * i)));
      p.scale[2 * i] = _mm512_srai_epi32(_mm512_slli_epi32(p.pair[i], 16), 16);
      p.scale[2 * i + 1] = _mm512_srai_epi32(p.pair[i], 16);
    }
    p.d = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + 3328)));
  } else {
    const __m512i w0 = word(panel, 0);
    p.d = _mm512_cvtph_ps(_mm512_cvtepi32_epi16(w0));
    p.dmin = _mm512_cvtph_ps(_mm512_cvtepi32_epi16(_mm512_srli_epi32(w0, 16)));
    // the 12 packed bytes as three words per row (get_scale_min_k4's layout)
    const __m512i u0 = word(panel, 1), u1 = word(panel, 2), u2 = word(panel, 3);
    const __m512i low6 = _mm512_set1_epi32(63), low4 = _mm512_set1_epi32(15),
                  low2 = _mm512_set1_epi32(3);
    for (int j = 0; j < 4; ++j) {
      p.scale[j] = bits(u0, 8 * j, low6);
      const __m512i m = bits(u1, 8 * j, low6);
      p.pair[j] = _mm512_or_si512(m, _mm512_slli_epi32(m, 16));
      p.scale[j + 4] =
          _mm512_or_si512(bits(u2, 8 * j, low4), _mm512_slli_epi32(bits(u0, 8 * j + 6, low2), 4));
      const __m512i m4 = _mm512_or_si512(bits(u2, 8 * j + 4, low4),
                                         _mm512_slli_epi32(bits(u1, 8 * j + 6, low2), 4));
      p.pair[j + 4] = _mm512_or_si512(m4, _mm512_slli_epi32(m4, 16));
    }
  }
}

// Group g (elements 32 g .. 32 g + 31) of a super-block of sixteen rows: w[k] holds
// elements 32 g + 4k .. + 3 of row i in dword i, unsigned (vpdpbusd's unsigned side).
// (g a run-time value: with it a template parameter, or the bits merged by vpternlogd, Q6_K
// decode went from 35 to 25 tok/s on the 7B shape, interleaved runs.)
template <KType kType>
TS_TARGET inline void groupWeights(const uint8_t* panel, int g, __m512i* w) {
  const __m512i low4 = _mm512_set1_epi8(15);
  if constexpr (kType == KType::Q6) {
    // half h = g / 4, quarter j = g % 4: ql's low (j < 2) or high nibbles of its 32 bytes
    // 64 h + 32 (j % 2) .., two bits of qh's 32 bytes 32 h .. at 2 j
    const int h = g / 4, j = g % 4;
    const __m512i low2 = _mm512_set1_epi8(3);
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) {
      const __m512i ql = word(panel, 16 * h + 8 * (j % 2) + k), qh = word(panel, 32 + 8 * h + k);
      const __m512i lo =
          j < 2 ? _mm512_and_si512(ql, low4) : _mm512_and_si512(_mm512_srli_epi16(ql, 4), low4);
      const __m512i hi = _mm512_and_si512(_mm512_srli_epi16(qh, 2 * j), low2);
      w[k] = _mm512_or_si512(lo, _mm512_slli_epi16(hi, 4));
    }
  } else {
    // chunk c = g / 2: the low (g even) or high nibbles of qs' 32 bytes 32 c ..; Q5_K's
    // fifth bit from bit g of qh's bytes
    constexpr int kQs = kType == KType::Q4 ? 4 : 12;  // first word of qs
    const int c = g / 2;
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) {
      const __m512i v = word(panel, kQs + 8 * c + k);
      w[k] = g % 2 ? _mm512_and_si512(_mm512_srli_epi16(v, 4), low4) : _mm512_and_si512(v, low4);
      if constexpr (kType == KType::Q5) {
        const __m512i qh = word(panel, 4 + k), one = _mm512_set1_epi8(1);
        w[k] = _mm512_or_si512(
            w[k], _mm512_slli_epi16(_mm512_and_si512(_mm512_srli_epi16(qh, g), one), 4));
      }
    }
  }
}

// Q6_K decode (one position): the integer sums of a super-block of kSlabs slabs into
// isum[s], as the groups' loop below makes them (exact integers: the same values), but half a
// super-block at a time, each word of ql and qh loaded once for the four groups that read it
// (the groups' loop loads qh four times and ql twice, which one position cannot spread over
// others) and the sums kept in registers.
template <int kSlabs>
TS_TARGET inline void q6OnePosition(const uint8_t* const* panel, const Prepared* p, const int8_t* x,
                                    int32_t (*isum)[16]) {
  const __m512i low4 = _mm512_set1_epi8(15), low2 = _mm512_set1_epi8(3);
  __m512i total[kSlabs];
  for (int s = 0; s < kSlabs; ++s) total[s] = _mm512_setzero_si512();
  for (int h = 0; h < 2; ++h) {
    __m512i acc[kSlabs][4][2];  // [slab][quarter j][elements 0..15, 16..31 of group 4h + j]
    for (int s = 0; s < kSlabs; ++s)
      for (int j = 0; j < 4; ++j) acc[s][j][0] = acc[s][j][1] = _mm512_setzero_si512();
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) {
      __m512i xj[4];
      for (int j = 0; j < 4; ++j) xj[j] = broadcast4(x + 128 * h + 32 * j + 4 * k);
      for (int s = 0; s < kSlabs; ++s) {
        const __m512i ql0 = word(panel[s], 16 * h + k), ql1 = word(panel[s], 16 * h + 8 + k),
                      qh = word(panel[s], 32 + 8 * h + k);
#pragma GCC unroll 4
        for (int j = 0; j < 4; ++j) {  // as groupWeights
          const __m512i ql = j % 2 ? ql1 : ql0;
          const __m512i lo =
              j < 2 ? _mm512_and_si512(ql, low4) : _mm512_and_si512(_mm512_srli_epi16(ql, 4), low4);
          const __m512i hi = _mm512_and_si512(_mm512_srli_epi16(qh, 2 * j), low2);
          acc[s][j][k / 4] = _mm512_dpbusd_epi32(
              acc[s][j][k / 4], _mm512_or_si512(lo, _mm512_slli_epi16(hi, 4)), xj[j]);
        }
      }
    }
    for (int s = 0; s < kSlabs; ++s)
      for (int j = 0; j < 4; ++j) {
        const int g = 4 * h + j;
        total[s] = _mm512_add_epi32(
            total[s], _mm512_add_epi32(_mm512_mullo_epi32(acc[s][j][0], p[s].scale[2 * g]),
                                       _mm512_mullo_epi32(acc[s][j][1], p[s].scale[2 * g + 1])));
      }
  }
  for (int s = 0; s < kSlabs; ++s) _mm512_store_si512(isum[s], total[s]);
}

// Prefetch distance, running on into the same slab of the next pass past a slab's end (as
// the Q4_0 panels').
constexpr size_t kAhead = 4096;

// kSlabs slabs of sixteen rows (slab r at w + r * 16 * row_bytes) times every position of x.
template <KType kType, int kSlabs>
TS_TARGET void kSlabsPass(const uint8_t* w, size_t row_bytes, const Activations& x, int superblocks,
                          float* out, size_t out_stride) {
  constexpr size_t kPanelBlock = 16 * kBlockBytes<kType>;  // one super-block of a slab
  constexpr int kChunk = 32;
  const size_t slab_bytes = 16 * row_bytes, skip = (kSlabs - 1) * slab_bytes;
  alignas(64) int32_t isum[kChunk][kSlabs][16];
  alignas(64) float f[kChunk][kSlabs][16], n[kChunk][kSlabs][16];
  for (int t0 = 0; t0 < x.count; t0 += kChunk) {
    const int count = std::min(kChunk, x.count - t0);
    for (int t = 0; t < count; ++t)
      for (int s = 0; s < kSlabs; ++s) {
        _mm512_store_ps(f[t][s], _mm512_setzero_ps());
        _mm512_store_ps(n[t][s], _mm512_setzero_ps());
      }
    for (int sb = 0; sb < superblocks; ++sb) {
      Prepared p[kSlabs];
      const uint8_t* panel[kSlabs];
      for (int s = 0; s < kSlabs; ++s) {
        panel[s] = w + s * slab_bytes + sb * kPanelBlock;
        const uint8_t* ahead = panel[s] + kAhead;
        if (sb * kPanelBlock + kAhead >= slab_bytes) ahead += skip;
        for (size_t line = 0; line < kPanelBlock; line += 64)
          _mm_prefetch(reinterpret_cast<const char*>(ahead + line), _MM_HINT_T0);
        prepare<kType>(panel[s], p[s]);
      }
      if (kType == KType::Q6 && count == 1) {  // decode
        q6OnePosition<kSlabs>(panel, p, x.qkRow(t0) + sb * 256, isum[0]);
      } else {
        for (int g = 0; g < 8; ++g) {
          __m512i wg[kSlabs][8];
          for (int s = 0; s < kSlabs; ++s) groupWeights<kType>(panel[s], g, wg[s]);
          for (int t = 0; t < count; ++t) {
            const int8_t* xg = x.qkRow(t0 + t) + sb * 256 + 32 * g;
            __m512i a0[kSlabs], a1[kSlabs];
            for (int s = 0; s < kSlabs; ++s) a0[s] = a1[s] = _mm512_setzero_si512();
#pragma GCC unroll 4
            for (int k = 0; k < 4; ++k) {
              const __m512i x0 = broadcast4(xg + 4 * k), x1 = broadcast4(xg + 16 + 4 * k);
              for (int s = 0; s < kSlabs; ++s) {
                a0[s] = _mm512_dpbusd_epi32(a0[s], wg[s][k], x0);
                a1[s] = _mm512_dpbusd_epi32(a1[s], wg[s][k + 4], x1);
              }
            }
            for (int s = 0; s < kSlabs; ++s) {
              __m512i scaled;  // Q6_K: elements 0..15 and 16..31 have scales 2g and 2g + 1
              if constexpr (kType == KType::Q6)
                scaled = _mm512_add_epi32(_mm512_mullo_epi32(a0[s], p[s].scale[2 * g]),
                                          _mm512_mullo_epi32(a1[s], p[s].scale[2 * g + 1]));
              else
                scaled = _mm512_mullo_epi32(_mm512_add_epi32(a0[s], a1[s]), p[s].scale[g]);
              int32_t* sum = isum[t][s];
              _mm512_store_si512(sum,
                                 g ? _mm512_add_epi32(_mm512_load_si512(sum), scaled) : scaled);
            }
          }
        }
      }
      for (int t = 0; t < count; ++t) {
        const int16_t* bsums = x.bsumsRow(t0 + t) + sb * 16;
        const __m512 x_d = _mm512_set1_ps(x.kscaleRow(t0 + t)[sb]);
        for (int s = 0; s < kSlabs; ++s) {
          __m512i m = _mm512_setzero_si512();
#pragma GCC unroll 8
          for (int i = 0; i < 8; ++i)  // block sums 2i, 2i + 1 times the pair
            m = _mm512_dpwssd_epi32(m, p[s].pair[i], broadcast4(bsums + 2 * i));
          __m512i total = _mm512_load_si512(isum[t][s]);
          if constexpr (kType == KType::Q6)
            total = _mm512_sub_epi32(total, _mm512_slli_epi32(m, 5));
          _mm512_store_ps(f[t][s],
                          _mm512_fmadd_ps(_mm512_cvtepi32_ps(total), _mm512_mul_ps(p[s].d, x_d),
                                          _mm512_load_ps(f[t][s])));
          if constexpr (kType != KType::Q6)
            _mm512_store_ps(n[t][s],
                            _mm512_fmadd_ps(_mm512_cvtepi32_ps(m), _mm512_mul_ps(p[s].dmin, x_d),
                                            _mm512_load_ps(n[t][s])));
        }
      }
    }
    for (int t = 0; t < count; ++t)
      for (int s = 0; s < kSlabs; ++s)
        _mm512_storeu_ps(out + (t0 + t) * out_stride + 16 * s,
                         kType == KType::Q6
                             ? _mm512_load_ps(f[t][s])
                             : _mm512_sub_ps(_mm512_load_ps(f[t][s]), _mm512_load_ps(n[t][s])));
  }
}

template <KType kType>
TS_TARGET void kPanels(const uint8_t* w, size_t row_bytes, int rows, const Activations& x,
                       int superblocks, float* out, size_t out_stride) {
  int r = 0;
  for (; r + 32 <= rows; r += 32)
    kSlabsPass<kType, 2>(w + r * row_bytes, row_bytes, x, superblocks, out + r, out_stride);
  if (r < rows)
    kSlabsPass<kType, 1>(w + r * row_bytes, row_bytes, x, superblocks, out + r, out_stride);
}

}  // namespace

// GgufKernels::panels_q4_k / panels_q5_k / panels_q6_k.
void panelsQ4K(const uint8_t* w, size_t row_bytes, int rows, const Activations& x, int superblocks,
               float* out, size_t out_stride) {
  kPanels<KType::Q4>(w, row_bytes, rows, x, superblocks, out, out_stride);
}
void panelsQ5K(const uint8_t* w, size_t row_bytes, int rows, const Activations& x, int superblocks,
               float* out, size_t out_stride) {
  kPanels<KType::Q5>(w, row_bytes, rows, x, superblocks, out, out_stride);
}
void panelsQ6K(const uint8_t* w, size_t row_bytes, int rows, const Activations& x, int superblocks,
               float* out, size_t out_stride) {
  kPanels<KType::Q6>(w, row_bytes, rows, x, superblocks, out, out_stride);
}

}  // namespace ts::engine::gguf_avx512

#endif
