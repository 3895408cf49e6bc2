// The inner loops of the CPU backend: dot products of one weight row with one activation
// vector, in every runtime weight format. Two implementations with the same arithmetic:
// a portable one (any CPU; the reference) and AVX2/FMA/F16C (chosen at run time when the
// CPU has them). Integer formats multiply int8 weights (or int4 nibbles) by activations
// quantized to int8 in blocks of 32 with one f32 scale each, as llama.cpp's Q8 path does:
// the products are exact integers, so the two implementations differ only in the order
// of f32 additions.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "inference/engine/core/large_buffer.h"

namespace ts::engine {

constexpr int kQuantBlock = 32;  // elements per activation block (one f32 scale each)
constexpr int kRowAlign = 64;    // int8 / int4 rows and quantized activations pad to this

inline int paddedToBlock(int n) {
  return (n + kRowAlign - 1) / kRowAlign * kRowAlign;
}

// `count` activation vectors of `n` values, in the forms the kernels read (ScratchBuffer: a
// prompt's first pass does not fault page by page, a new session reuses the last one's
// blocks, and resizing does not zero: every form is written whole before it is read).
struct Activations {
  int count = 0, n = 0, blocks = 0;   // blocks = paddedToBlock(n) / 32 (even)
  ScratchBuffer<float> f32;           // [count, n]
  ScratchBuffer<int8_t> q;            // [count, blocks * 32], zero past n; empty unless quantized
  ScratchBuffer<float> scale;         // [count, blocks]: value = scale * q
  ScratchBuffer<float> offset;        // [count, blocks]: 8 * scale * sum(q): int4's zero point
  ScratchBuffer<float> scale16;       // [count, blocks]: scale rounded to f16, as GGUF's Q8_0
  ScratchBuffer<float> offset16;      // [count, blocks]: 8 * scale16 * sum(q): Q4_0's zero point
  ScratchBuffer<int32_t> q_sums;      // [count, blocks]: sum(q)
  ScratchBuffer<float> halves;        // [count, n]: f32 rounded to f16 (roundToHalf), for F16 rows
  ScratchBuffer<uint16_t> half_bits;  // [count, n]: the same values as f16
  // The Q8_K form (quantizeK; gguf_kernels.h): blocks of 256, n a multiple of 256.
  int superblocks = 0;
  ScratchBuffer<int8_t> qk;      // [count, superblocks * 256]
  ScratchBuffer<float> kscale;   // [count, superblocks]: value = kscale * qk
  ScratchBuffer<int16_t> bsums;  // [count, superblocks * 16]: sums of each 16 qk values
  // q regrouped for GgufKernels::dot_q4_0_grouped (groupForQ4_0): in each run of 8 blocks,
  // each 4 of them as elements 0..15 of the four, then elements 16..31 of the four (a Q4_0
  // block's low nibbles, then its high ones, four blocks to a 512-bit register); the blocks
  // after the last whole 8 of n / 32 as in q. [count, blocks * 32]; current when `grouped`.
  ScratchBuffer<int8_t> q_grouped;
  // q and its block values in the order the 16-row pass kernels read them (tileForPasses;
  // GgufKernels::gemm16_q4_0): positions in chunks of kTileChunk; within chunk c, block b
  // holds its positions' 32 bytes one after another, so that a pass over sixteen rows reads
  // one sequential stream. Cell (c, b, t) = c * kTileChunk * blocks + b * (positions in c) + t
  // holds scale16, offset16 and 128 x the sum of the block's q (Q8_0's bias). Current when
  // `tiled`.
  static constexpr int kTileChunk = 32;
  ScratchBuffer<int8_t> q_tiles;                     // [cells, 32]
  ScratchBuffer<float> tile_scale16, tile_offset16;  // [cells]
  ScratchBuffer<int32_t> tile_bias;                  // [cells]
  // Whether q_grouped and the tiles hold the current values: shape() and set() clear the
  // flags but keep the buffers, which a pass's next product refills without zeroing them
  // first (zeroing them was 1.4% of a 128-position pass, on one thread).
  bool grouped = false, tiled = false;

  // Copies x [count, n]; quantize: also fill q / scale / offset (needed by int8 / int4).
  void set(const float* x, int count, int n, bool quantize);
  // Fills the Q8_K form from f32 as llama.cpp's quantize_row_q8_K does (scale -max/127 of
  // the signed value of largest magnitude, round half to even). Leaves it empty when n is
  // not a multiple of 256.
  void quantizeK();
  // Fills q_grouped from q (set clears `grouped`: it never outlives the values it was made
  // from).
  void groupForQ4_0();
  // Fills the tiles from q (set clears `tiled` as well).
  void tileForPasses();
  // set and tileForPasses in parts, so that threads can share a pass's rows: shape sizes
  // every form for count x n; setRows copies and quantizes rows [first, last) of
  // x; shapeTiles sizes the tiles, tileRows fills rows [first, last) of them. keep_f32
  // false: f32 stays empty (setRows quantizes x as it is), for a session none of whose
  // products, quantizeK or roundToHalf read it (copying it was 1.2% of a 128-position pass).
  void shape(int count, int n, bool quantize, bool keep_f32 = true);
  void setRows(const float* x, int first, int last);
  void shapeTiles();
  void tileRows(int first, int last);
  // Fills `halves` and `half_bits`: the products with stored F16 rows read the activations rounded
  // to f16, as llama.cpp's CPU backend converts them.
  void roundToHalf();
  const float* halfRow(int t) const { return halves.data() + static_cast<size_t>(t) * n; }
  const uint16_t* halfBitsRow(int t) const { return half_bits.data() + static_cast<size_t>(t) * n; }
  const float* f32Row(int t) const { return f32.data() + static_cast<size_t>(t) * n; }
  const int8_t* qRow(int t) const { return q.data() + static_cast<size_t>(t) * blocks * 32; }
  const int8_t* qGroupedRow(int t) const {
    return q_grouped.data() + static_cast<size_t>(t) * blocks * 32;
  }
  const float* scaleRow(int t) const { return scale.data() + static_cast<size_t>(t) * blocks; }
  const float* offsetRow(int t) const { return offset.data() + static_cast<size_t>(t) * blocks; }
  const float* scale16Row(int t) const { return scale16.data() + static_cast<size_t>(t) * blocks; }
  const float* offset16Row(int t) const {
    return offset16.data() + static_cast<size_t>(t) * blocks;
  }
  const int8_t* qkRow(int t) const {
    return qk.data() + static_cast<size_t>(t) * superblocks * 256;
  }
  const float* kscaleRow(int t) const {
    return kscale.data() + static_cast<size_t>(t) * superblocks;
  }
  const int16_t* bsumsRow(int t) const {
    return bsums.data() + static_cast<size_t>(t) * superblocks * 16;
  }
};

struct Kernels {
  const char* name;  // "avx512-vnni" | "avx-vnni" | "avx2" | "portable"
  float (*dot_f32)(const float* w, const float* x, int n);
  float (*dot_f16)(const uint16_t* w, const float* x, int n);
  // sum over blocks b of x_scale[b] * (w_b . x_b); w, x: [blocks * 32] int8.
  float (*dot_q8)(const int8_t* w, const int8_t* x, const float* x_scale, int blocks);
  // sum over blocks b of w_scale[b / blocks_per_group] * (x_scale[b] * (q_b . x_b) -
  // x_offset[b]): the int4 value is q - 8 with q the nibble; w: [blocks * 16] bytes, each
  // 32 bytes holding two blocks: byte j has element j of block 2p in its low nibble and
  // element j of block 2p + 1 in its high nibble. blocks is even.
  float (*dot_q4)(const uint8_t* w, const float* w_scale, int blocks_per_group, const int8_t* x,
                  const float* x_scale, const float* x_offset, int blocks);
  // The same for four activation vectors (rows t = 0..3 of x, x_scale, x_offset, laid out
  // as in Activations) into out[4]: prefill loads and unpacks each weight block once.
  // (F16 rows: dot_f16_rows, for up to kHalfTokens.)
  void (*dot_f32_x4)(const float* w, const float* x, size_t x_stride, int n, float* out);
  void (*dot_q8_x4)(const int8_t* w, const int8_t* x, const float* x_scale, int blocks, float* out);
  void (*dot_q4_x4)(const uint8_t* w, const float* w_scale, int blocks_per_group, const int8_t* x,
                    const float* x_scale, const float* x_offset, int blocks, float* out);
  double (*sum_f32)(const float* x, size_t n);  // for measuring memory-read bandwidth
  // y[n] += a * x[n]: attention's weighted sum of values (f32 or f16 cache rows).
  void (*axpy_f32)(float* y, float a, const float* x, int n);
  void (*axpy_f16)(float* y, float a, const uint16_t* x, int n);
  // The int8 KV cache's rows (the row scale is applied by the caller).
  float (*dot_i8_f32)(const int8_t* w, const float* x, int n);
  void (*axpy_i8)(float* y, float a, const int8_t* x, int n);
  // f16 weights times f16 activations (Activations::half_bits): bit-identical to dot_f16
  // of the same values as f32, with half the activation bytes loaded (stored F16 rows).
  float (*dot_f16_f16)(const uint16_t* w, const uint16_t* x, int n);
  // Activations' quantization of one block of 32 values (every set gives the same bytes):
  // q[i] = clamp(round-half-even(x[i] * 127 / amax), -127, 127) with amax = max |x[i]| (q 0
  // when amax is 0); returns amax and writes *qsum = sum of q.
  float (*quantize_block_q8)(const float* x, int8_t* q, int32_t* qsum);
  // Q8_K, one superblock of 256 (the K-quants' activations, as the GGUF reference makes
  // them): max = the first x[i] of largest magnitude, q[i] = min(127, round-half-even(
  // -127 / max * x[i])), bsums[j] = sum of q[16j .. 16j + 15]; returns the scale max / -127
  // (0 when every x[i] is 0).
  float (*quantize_block_q8k)(const float* x, int8_t* q, int16_t* bsums);
  // out[i] = f32ToF16(x[i]) (round to nearest even; NaN stays a NaN): the f16 KV cache's
  // rows and F16 weights' activations.
  void (*to_f16)(const float* x, uint16_t* out, size_t n);
  // out[i] = the f16 x[i] as f32 (the f16 KV cache's rows, read a block at a time).
  void (*from_f16)(const uint16_t* x, float* out, size_t n);
  // Attention over a block of cache rows (cpu_attention.h): `keys` rows of head_dim values,
  // row t at rows + t * row_stride elements, stored as `type`; `queries` query rows
  // (q + i * q_stride).
  // - scores: s[i * s_stride + t] = q_i . row_t, as eight fma chains (lane l over d = l,
  //   l + 8, ... below head_dim rounded down to 8) summed ((l0 + l1) + (l2 + l3)) + ((l4 +
  //   l5) + (l6 + l7)), plus one chain over the remaining d (the AVX-512 set, for head_dim
  //   a multiple of 16: sixteen chains, lanes l and l + 8 added, then the same tree);
  // - values: acc[i * acc_stride + d] += p[i * p_stride + t] * row_t[d] for t = 0, 1, ... in
  //   order, one fused multiply-add each.
  // A query's results do not depend on the other queries of the call nor on the row type
  // holding the same values (f16 and int8 rows are converted exactly), so a pass may read
  // rows converted to f32 once and decode the cache's rows as they are, to the same bits.
  enum class Rows { F32, F16, I8 };
  void (*attention_scores)(Rows type, const void* rows, size_t row_stride, int keys, const float* q,
                           size_t q_stride, int queries, int head_dim, float* s, size_t s_stride);
  void (*attention_values)(Rows type, const void* rows, size_t row_stride, int keys, const float* p,
                           size_t p_stride, int queries, int head_dim, float* acc,
                           size_t acc_stride);
  // F16 rows times 1 .. kHalfTokens tokens: out[t * out_stride + r] = w_r . x_t for rows
  // r < rows (row r at w + r * row_stride), one pass over the weights for all of a
  // speculative verification's positions, each token's sum dot_f16's to the bit.
  static constexpr int kHalfTokens = 6;
  void (*dot_f16_rows)(const uint16_t* w, size_t row_stride, int rows, const float* x,
                       size_t x_stride, int n, int tokens, float* out, size_t out_stride);
  // gate[i] = silu(gate[i]) * up[i] = gate[i] / (1 + e^-gate[i]) * up[i], the FFN's
  // activation. Portable: std::exp. x86: e^x as 2^n e^r, |r| <= ln 2 / 2, r's degree-7 Taylor
  // polynomial (within 2 ulp of std::exp; the same bits for decode and every pass, which is
  // what speculative decoding needs), eight values per step where std::exp took 15 ns each:
  // a verification of five spent 4% of its time there.
  void (*swiglu)(float* gate, const float* up, size_t n);
  // out[i] = e^x[i] (out may be x), with swiglu's e^x: attention's softmax weights.
  void (*exp)(const float* x, float* out, size_t n);
  // Activations::setRows's `blocks` whole blocks of a row (x: blocks * 32 values): each as
  // quantize_block_q8 into q, and per block b: q_sums[b] = its sum, scale[b] = amax / 127,
  // offset[b] = 8 * scale[b] * sum, scale16[b] = scale[b] rounded to f16 (half to even) as
  // f32, offset16[b] = 8 * scale16[b] * sum. The x86 sets convert eight blocks' scales at a
  // time (F16C) where one at a time in software took half of a row's time.
  void (*quantize_row_q8)(const float* x, int blocks, int8_t* q, float* scale, float* offset,
                          float* scale16, float* offset16, int32_t* q_sums);
};

// f(rows as const float*, const uint16_t* or const int8_t*) by the rows' type: the attention
// kernels' one body for every row type.
template <class F>
void withRows(Kernels::Rows type, const void* rows, const F& f) {
  switch (type) {
    case Kernels::Rows::F32:
      return f(static_cast<const float*>(rows));
    case Kernels::Rows::F16:
      return f(static_cast<const uint16_t*>(rows));
    case Kernels::Rows::I8:
      return f(static_cast<const int8_t*>(rows));
  }
}

const Kernels& portableKernels();
const Kernels* avx2Kernels();  // null when the CPU (or the compiler's target) lacks AVX2/FMA/F16C
const Kernels* vnniKernels();  // AVX2 plus AVX-VNNI; null without it
// AVX-512 VNNI for the integer formats, the rest from the sets above; null without it.
const Kernels* avx512Kernels();
// The fastest set this CPU runs, or the one TOKENSCOPE_KERNELS names (portable, avx2,
// avx-vnni, avx512-vnni) when the CPU has it: for comparisons and benchmarks.
const Kernels& activeKernels();

}  // namespace ts::engine
