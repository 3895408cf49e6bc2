// Q4_0 decode on 512-bit registers (GgufKernels::dot_q4_0_grouped): four blocks' 16 bytes
// of nibbles in one register, their low and high nibbles each multiplied with the
// activations of the four blocks in one vpdpbusd, the activations regrouped once per pass
// to match (Activations::q_grouped). Half the instructions per block of the 256-bit kernel
// and a cheaper reduction to per-block sums: 1.4x the rate on one EPYC thread with the rows
// in L2 (15.5 -> 22.8 GB/s, interleaved runs). On two threads decode is bound by this
// rate, not by memory, whenever the memory is fast. The arithmetic is dot_q4_0's
// (gguf_kernels_x86.inc): per block its exact integer product, value = q.x * x_d - x_offset, S[b %
// 8] += d_w * value, then ((S0 + S4) + (S2 + S6)) + ((S1 + S5) + (S3 + S7)): the same to the bit.
#include "inference/engine/cpu/kernels/gguf_kernels.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "inference/engine/core/tensor_types.h"
#include "inference/engine/cpu/kernels/gguf_avx512_common.h"
#include "inference/engine/cpu/kernels/kernels.h"

namespace ts::engine::gguf_avx512 {

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

// ---- Passes over several positions: sixteen rows in the lanes of one register ----

namespace {

// a..d hold four dwords per 128-bit lane; out[k] gets dword k of a, b, c, d in each lane.
TS_TARGET inline void transpose4Dwords(__m512i a, __m512i b, __m512i c, __m512i d, __m512i* out) {
  const __m512i t0 = _mm512_unpacklo_epi32(a, b), t1 = _mm512_unpackhi_epi32(a, b),
                t2 = _mm512_unpacklo_epi32(c, d), t3 = _mm512_unpackhi_epi32(c, d);
  out[0] = _mm512_unpacklo_epi64(t0, t2);
  out[1] = _mm512_unpackhi_epi64(t0, t2);
  out[2] = _mm512_unpacklo_epi64(t1, t3);
  out[3] = _mm512_unpackhi_epi64(t1, t3);
}

TS_TARGET inline __m128i load128(const uint8_t* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}

// Sixteen bytes at `at` of rows m, m + 4, m + 8, m + 12 in the four lanes of a register.
TS_TARGET inline __m512i rowQuad(const uint8_t* at, size_t row_bytes, int m) {
  __m512i v = _mm512_castsi128_si512(load128(at + m * row_bytes));
  v = _mm512_inserti32x4(v, load128(at + (m + 4) * row_bytes), 1);
  v = _mm512_inserti32x4(v, load128(at + (m + 8) * row_bytes), 2);
  return _mm512_inserti32x4(v, load128(at + (m + 12) * row_bytes), 3);
}

// Block b of sixteen rows: group[k] holds elements 4k .. 4k + 3 of row i in dword i (the
// in-lane transposition of rowQuad m puts row 4 L + m at dword 4 L + m). Q4_0: the unsigned
// nibbles; Q8_0: the signed bytes as they are.
template <bool kQ4>
TS_TARGET inline void pack16(const uint8_t* w, size_t row_bytes, int b, __m512i* group) {
  constexpr size_t kBlock = kQ4 ? sizeof(BlockQ4_0) : sizeof(BlockQ8_0);
  const uint8_t* at = w + static_cast<size_t>(b) * kBlock + 2;
  __m512i lo[4], hi[4];
  for (int m = 0; m < 4; ++m) {
    if constexpr (kQ4) {
      const __m512i low4 = _mm512_set1_epi8(15), v = rowQuad(at, row_bytes, m);
      lo[m] = _mm512_and_si512(v, low4);                        // elements 0..15
      hi[m] = _mm512_and_si512(_mm512_srli_epi16(v, 4), low4);  // elements 16..31
    } else {
      lo[m] = rowQuad(at, row_bytes, m);
      hi[m] = rowQuad(at + 16, row_bytes, m);
    }
  }
  transpose4Dwords(lo[0], lo[1], lo[2], lo[3], group);
  transpose4Dwords(hi[0], hi[1], hi[2], hi[3], group + 4);
}

// The f16 scales of block b of the sixteen rows, as f32 in row order.
template <bool kQ4>
TS_TARGET inline __m512 rowScales16(const uint8_t* w, size_t row_bytes, int b) {
  constexpr size_t kBlock = kQ4 ? sizeof(BlockQ4_0) : sizeof(BlockQ8_0);
  const uint8_t* at = w + static_cast<size_t>(b) * kBlock;
  const auto half = [&](int i) {
    uint16_t h;
    std::memcpy(&h, at + i * row_bytes, 2);
    return static_cast<short>(h);
  };
  // inserted word by word: 2-byte stores and a 32-byte load would stall the load
  const __m128i low = _mm_setr_epi16(half(0), half(1), half(2), half(3), half(4), half(5), half(6),
                                     half(7)),
                high = _mm_setr_epi16(half(8), half(9), half(10), half(11), half(12), half(13),
                                      half(14), half(15));
  return _mm512_cvtph_ps(_mm256_set_m128i(high, low));
}

// Block b of a slab of sixteen rows into gemm16's registers: its eight weight registers
// (group[k]: elements 4k .. 4k + 3 of row i in dword i, vpdpbusd's unsigned side) and the
// rows' scales d. Rows as stored: pack16 and rowScales16. A panel (QuantMatrix::inPanels:
// the slab's scales, then for each k row i's bytes 4k .. 4k + 3 at dword i, Q8_0's already
// + 128): its registers loaded as they are, Q4_0's nibbles split.
// A panel's prefetch distance in bytes, and where it goes past the slab's end: into the same
// slab of the next pass (`skip` bytes on, past the other slabs of this one), so that a pass
// starts on lines already asked for. With both threads streaming a 7B shape's Q4_0 panels,
// a pass of five positions took 1.26-1.28x decode's time with 2 KiB ahead that ran off into
// the partner slab, 1.13-1.16x with 4 KiB that go on into the next pass (decode itself 5%
// faster).
constexpr size_t kPanelAhead = 4096;

// Where a slab's blocks lie: as stored (sixteen rows gathered per block), GGUF panels
// (QuantMatrix::inPanels: each block its f16 scales, then its words), or the runtime int8 /
// q8_0 / int4 formats' panels (f32 scales once per group of per_group blocks, then the
// group's blocks' words: QuantMatrix's runtime panels).
enum class Layout { Rows, Panels, Runtime };

template <bool kQ4, Layout kLayout>
TS_TARGET inline void slabBlock(const uint8_t* slab, size_t row_bytes, size_t skip, int b,
                                int per_group, __m512i* group, __m512& d) {
  if constexpr (kLayout != Layout::Rows) {
    constexpr size_t kBlock = kQ4 ? sizeof(BlockQ4_0) : sizeof(BlockQ8_0);
    const uint8_t* at;  // the block's first word of sixteen rows (64 bytes per word)
    size_t offset;      // the block's start within the slab
    if constexpr (kLayout == Layout::Panels) {
      offset = static_cast<size_t>(b) * 16 * kBlock;
      d = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(slab + offset)));
      at = slab + offset + 32;
    } else {  // runtime panels: each group's 16 f32 scales, then its blocks' words
      constexpr size_t kWords = 64 * (kQ4 ? 4 : 8);
      const size_t group_bytes = 64 + per_group * kWords;
      const uint8_t* head = slab + static_cast<size_t>(b / per_group) * group_bytes;
      d = _mm512_loadu_ps(head);
      at = head + 64 + static_cast<size_t>(b % per_group) * kWords;
      offset = static_cast<size_t>(at - slab);
    }
    const __m512i low4 = _mm512_set1_epi8(15);
    // the next blocks' lines on their way: one stream, but the hardware's prefetch alone
    // left the 16-row passes waiting on it
    const uint8_t* ahead = slab + offset + kPanelAhead;
    if (offset + kPanelAhead >= 16 * row_bytes) ahead += skip;
    for (size_t line = 0; line < 16 * kBlock; line += 64)
      _mm_prefetch(reinterpret_cast<const char*>(ahead + line), _MM_HINT_T0);
#pragma GCC unroll 8  // group[] in registers (a loop kept it in memory)
    for (int k = 0; k < (kQ4 ? 4 : 8); ++k) {
      const __m512i v = _mm512_loadu_si512(at + 64 * k);
      if constexpr (kQ4) {
        group[k] = _mm512_and_si512(v, low4);                            // elements 4k ..
        group[k + 4] = _mm512_and_si512(_mm512_srli_epi16(v, 4), low4);  // 16 + 4k ..
      } else {
        group[k] = v;
      }
    }
  } else {
    pack16<kQ4>(slab, row_bytes, b, group);
    if constexpr (!kQ4)
      for (int k = 0; k < 8; ++k) group[k] = _mm512_xor_si512(group[k], _mm512_set1_epi8(-128));
    d = rowScales16<kQ4>(slab, row_bytes, b);
  }
}

// gemm8's arithmetic (gguf_kernels.h) with sixteen rows in a register's lanes, kSlabs slabs of
// sixteen at a time: each of a block's eight broadcast activation groups takes 64 x kSlabs
// products, so the pass does fewer broadcasts, conversions and partial-sum updates per product.
// With two slabs a block of a position is 16 vpdpbusd and 4 f32 multiply-adds for 12 loads:
// the products (on the two pipes they share with the FMAs) bound it, 5.3 cycles per slab, block
// and position with the weights in L2 where one slab took 6.1 (one EPYC Zen 5 thread). The
// weights are vpdpbusd's unsigned side: Q4_0's nibbles as they are, Q8_0's signed bytes as
// w + 128 (a flip of each byte's top bit), less 128 x the position's block sum, which is exact.
// The activations come in Activations' tiles: one sequential stream per chunk of positions.
// Slab r starts at w + r * row_bytes in both layouts (a panel holds its sixteen rows' bytes).
template <bool kQ4, Layout kLayout, int kSlabs>
TS_TARGET void slabsPass(const uint8_t* w, size_t row_bytes, const Activations& x, int blocks,
                         int per_group, float* out, size_t out_stride) {
  const int8_t* q_tiles = x.q_tiles.data();
  // GGUF's blocks read the activation scales rounded to f16 (as llama.cpp), from the tiles;
  // the runtime formats the f32 ones, where Activations keep them ([position, block])
  constexpr bool kF32Scales = kLayout == Layout::Runtime;
  const float* x_scale = kF32Scales ? x.scale.data() : x.tile_scale16.data();
  const float* x_offset = kF32Scales ? x.offset.data() : x.tile_offset16.data();
  const int32_t* tile_bias = x.tile_bias.data();
  const int tile_blocks = x.blocks, tokens = x.count;
  constexpr int kChunk = Activations::kTileChunk, kRows = 16 * kSlabs;
  alignas(64) float sums[kChunk][8][kRows];  // [token][position b % 8][row]
  for (int t0 = 0; t0 < tokens; t0 += kChunk) {
    const int count = std::min(kChunk, tokens - t0);
    const size_t base = static_cast<size_t>(t0) * tile_blocks;  // the chunk's first cell
    for (int t = 0; t < count; ++t)
      for (int j = 0; j < 8; ++j)
        for (int s = 0; s < kSlabs; ++s) _mm512_store_ps(sums[t][j] + 16 * s, _mm512_setzero_ps());
    for (int b = 0; b < blocks; ++b) {
      __m512i group[kSlabs][8];
      __m512 d[kSlabs];
      for (int s = 0; s < kSlabs; ++s)
        slabBlock<kQ4, kLayout>(w + 16 * s * row_bytes, row_bytes, (kSlabs - 1) * 16 * row_bytes, b,
                                per_group, group[s], d[s]);
      const size_t first = base + static_cast<size_t>(b) * count;
      const int8_t* xb = q_tiles + first * 32;
      for (int t = 0; t < count; ++t, xb += 32) {
        const size_t cell = first + t,
                     at = kF32Scales ? static_cast<size_t>(t0 + t) * tile_blocks + b : cell;
        // four chains of two products per slab (the integer sum is exact in any order): with
        // two chains of four, one 32-row pass took 11.5-12.0 cycles per block and position
        // (one Zen 5 thread, paired runs), 3-4% more than this
        __m512i a[4][kSlabs];
        for (int c = 0; c < 4; ++c)
          for (int s = 0; s < kSlabs; ++s) a[c][s] = _mm512_setzero_si512();
#pragma GCC unroll 2
        for (int k = 0; k < 8; k += 4) {
          __m512i x[4];
          for (int c = 0; c < 4; ++c) x[c] = broadcast4(xb + 4 * (k + c));
          for (int s = 0; s < kSlabs; ++s)
            for (int c = 0; c < 4; ++c)
              a[c][s] = _mm512_dpbusd_epi32(a[c][s], group[s][k + c], x[c]);
        }
        const __m512 scale = _mm512_set1_ps(x_scale[at]);
        for (int s = 0; s < kSlabs; ++s) {
          __m512i dot = _mm512_add_epi32(_mm512_add_epi32(a[0][s], a[2][s]),
                                         _mm512_add_epi32(a[1][s], a[3][s]));
          if constexpr (!kQ4) dot = _mm512_sub_epi32(dot, _mm512_set1_epi32(tile_bias[cell]));
          const __m512 dots = _mm512_cvtepi32_ps(dot);
          // d_w * (x_d * dot - zero point) for Q4_0, d_w * (x_d * dot) for Q8_0
          const __m512 value = kQ4 ? _mm512_fmsub_ps(dots, scale, _mm512_set1_ps(x_offset[at]))
                                   : _mm512_mul_ps(dots, scale);
          float* sum = sums[t][b % 8] + 16 * s;
          _mm512_store_ps(sum, _mm512_fmadd_ps(d[s], value, _mm512_load_ps(sum)));
        }
      }
    }
    for (int t = 0; t < count; ++t)  // ((S0 + S4) + (S2 + S6)) + ((S1 + S5) + (S3 + S7))
      for (int h = 0; h < kRows; h += 16) {
        __m512 s[8];
        for (int j = 0; j < 8; ++j) s[j] = _mm512_load_ps(sums[t][j] + h);
        const __m512 even = _mm512_add_ps(_mm512_add_ps(s[0], s[4]), _mm512_add_ps(s[2], s[6])),
                     odd = _mm512_add_ps(_mm512_add_ps(s[1], s[5]), _mm512_add_ps(s[3], s[7]));
        _mm512_storeu_ps(out + (t0 + t) * out_stride + h, _mm512_add_ps(even, odd));
      }
  }
}

template <bool kQ4, Layout kLayout>
TS_TARGET void slabPairs(const uint8_t* w, size_t row_bytes, int rows, const Activations& x,
                         int blocks, int per_group, float* out, size_t out_stride) {
  int r = 0;
  for (; r + 32 <= rows; r += 32)
    slabsPass<kQ4, kLayout, 2>(w + r * row_bytes, row_bytes, x, blocks, per_group, out + r,
                               out_stride);
  if (r < rows)
    slabsPass<kQ4, kLayout, 1>(w + r * row_bytes, row_bytes, x, blocks, per_group, out + r,
                               out_stride);
}

}  // namespace

// GgufKernels::gemm16_q4_0 / gemm16_q8_0 (kPanel false) and panels_q4_0 / panels_q8_0: two
// slabs at a time, the last one alone when the rows are an odd number of slabs.
template <bool kQ4, bool kPanel>
TS_TARGET void gemm16(const uint8_t* w, size_t row_bytes, int rows, const Activations& x,
                      int blocks, float* out, size_t out_stride) {
  slabPairs<kQ4, kPanel ? Layout::Panels : Layout::Rows>(w, row_bytes, rows, x, blocks, 1, out,
                                                         out_stride);
}

// GgufKernels::panels_int8 / panels_int4: the same arithmetic on the runtime formats' panels.
template <bool kQ4>
TS_TARGET void panelsRuntime(const uint8_t* w, size_t row_bytes, int rows, const Activations& x,
                             int blocks, int per_group, float* out, size_t out_stride) {
  slabPairs<kQ4, Layout::Runtime>(w, row_bytes, rows, x, blocks, per_group, out, out_stride);
}

// F16 super-panels (GgufKernels::panels_f16): kSlabs slabs of sixteen rows, column k's
// kSlabs x 16 halves at w + k * 16 * kSlabs, times kTokens tokens. The accumulators are
// rows in lanes (kSlabs x kTokens registers), so a column costs kSlabs conversions, kTokens
// broadcasts and kSlabs x kTokens FMAs, and the super-panel is one sequential stream: the
// pass of five runs at 2.1-2.6x the rate of four rows at a time in dotFloat's order
// (measured with both threads streaming from memory: 150-180 against 70-120 GMAC/s).
// Sixteen halves at p as f32: F16 (kBf16 false) by conversion, BF16 (the top half of an f32)
// by widening and a shift.
template <bool kBf16>
TS_TARGET inline __m512 widen16(const uint16_t* p) {
  const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  if constexpr (kBf16) return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
  return _mm512_cvtph_ps(h);
}

// Aligned to a cache line so that where its loop falls does not move with unrelated code: F16
// decode (this loop streaming memory) read 2-5% apart between builds whose only difference was
// code elsewhere, the loop starting 32 or 0 bytes into a line against 48 (interleaved runs).
template <bool kBf16, int kSlabs, int kTokens>
__attribute__((aligned(64))) TS_TARGET void f16PanelTokens(const uint16_t* w, int cols,
                                                           const float* x, size_t x_stride,
                                                           float* out, size_t out_stride) {
  // 8 KiB on at the full width (a pass of five on the 7B shape: 71 ms with 4 KiB, 68 with
  // 8, 12 or 16; decode the same with each; without, decode took 71 ms where it takes 60)
  constexpr size_t kAhead = 4096;
  __m512 acc[kSlabs][kTokens];
#pragma GCC unroll 4
  for (int s = 0; s < kSlabs; ++s)
#pragma GCC unroll 6
    for (int t = 0; t < kTokens; ++t) acc[s][t] = _mm512_setzero_ps();
  for (int k = 0; k < cols; ++k) {
    const uint16_t* column = w + static_cast<size_t>(k) * 16 * kSlabs;
    _mm_prefetch(reinterpret_cast<const char*>(column + kAhead), _MM_HINT_T0);
    if constexpr (kSlabs > 2)
      _mm_prefetch(reinterpret_cast<const char*>(column + kAhead + 32), _MM_HINT_T0);
    __m512 wk[kSlabs];
#pragma GCC unroll 4
    for (int s = 0; s < kSlabs; ++s) wk[s] = widen16<kBf16>(column + 16 * s);
#pragma GCC unroll 6
    for (int t = 0; t < kTokens; ++t) {
      const __m512 xk = _mm512_set1_ps(x[t * x_stride + k]);
#pragma GCC unroll 4
      for (int s = 0; s < kSlabs; ++s) acc[s][t] = _mm512_fmadd_ps(wk[s], xk, acc[s][t]);
    }
  }
#pragma GCC unroll 4
  for (int s = 0; s < kSlabs; ++s)
#pragma GCC unroll 6
    for (int t = 0; t < kTokens; ++t) _mm512_storeu_ps(out + t * out_stride + 16 * s, acc[s][t]);
}

// fn(std::integral_constant<int, n>) for 1 <= n <= kMost.
template <int kMost, class Fn>
inline void upTo(int n, Fn fn) {
  if constexpr (kMost > 1)
    if (n < kMost) return upTo<kMost - 1>(n, fn);
  fn(std::integral_constant<int, kMost>{});
}

template <bool kBf16>
TS_TARGET void panelsHalves(const uint16_t* w, int rows, int cols, const float* x, size_t x_stride,
                            int tokens, float* out, size_t out_stride) {
  constexpr int kWidest = 4;  // slabs per super-panel (QuantMatrix::kF16PanelRows / 16)
  constexpr int kMost = 6;    // 4 x 6 accumulators, 4 weights and a broadcast: 29 registers
  for (int r = 0; r < rows; r += 16 * kWidest) {
    const uint16_t* panel = w + static_cast<size_t>(r) * cols;
    upTo<kWidest>(std::min(kWidest, (rows - r) / 16), [&](auto slabs) {
      for (int t = 0; t < tokens; t += kMost)
        upTo<kMost>(std::min(kMost, tokens - t), [&](auto count) {
          f16PanelTokens<kBf16, slabs(), count()>(panel, cols, x + t * x_stride, x_stride,
                                                  out + t * out_stride + r, out_stride);
        });
    });
  }
}

// GgufKernels::panels_f16 / panels_bf16.
TS_TARGET void panelsF16(const uint16_t* w, int rows, int cols, const float* x, size_t x_stride,
                         int tokens, float* out, size_t out_stride) {
  panelsHalves<false>(w, rows, cols, x, x_stride, tokens, out, out_stride);
}
TS_TARGET void panelsBf16(const uint16_t* w, int rows, int cols, const float* x, size_t x_stride,
                          int tokens, float* out, size_t out_stride) {
  panelsHalves<true>(w, rows, cols, x, x_stride, tokens, out, out_stride);
}

template void gemm16<true, false>(const uint8_t*, size_t, int, const Activations&, int, float*,
                                  size_t);
template void gemm16<false, false>(const uint8_t*, size_t, int, const Activations&, int, float*,
                                   size_t);
template void gemm16<true, true>(const uint8_t*, size_t, int, const Activations&, int, float*,
                                 size_t);
template void gemm16<false, true>(const uint8_t*, size_t, int, const Activations&, int, float*,
                                  size_t);
template void panelsRuntime<true>(const uint8_t*, size_t, int, const Activations&, int, int, float*,
                                  size_t);
template void panelsRuntime<false>(const uint8_t*, size_t, int, const Activations&, int, int,
                                   float*, size_t);

}  // namespace ts::engine::gguf_avx512

#endif
