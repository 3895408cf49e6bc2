// Fused products of GGUF-stored weight rows (as in the file: no repacking) with activations
// quantized the way llama.cpp's CPU backend quantizes them, so that the integer products
// are the same and only the order of f32 additions differs:
// - Q4_0, Q8_0 rows with 8-bit activation blocks of 32 (Activations::q) whose scales are
//   rounded to f16 (Activations::scale16), as Q8_0 stores them;
// - Q4_K, Q5_K, Q6_K rows with Q8_K activations: 8-bit blocks of 256 with an f32 scale and
//   the sums of each 16 values (Activations::qk / kscale / bsums).
// A portable set (the reference), AVX2 and AVX2 with AVX-512 VNNI (chosen at run time, as
// kernels.h's sets).
#pragma once
#include <cstddef>
#include <cstdint>

namespace ts::engine {

struct Activations;

constexpr int kSuperBlock = 256;  // K-quant and Q8_K block

struct GgufKernels {
  // A pass over several positions (gemm8_q4_0 below).
  using Pass = void (*)(const uint8_t* w, size_t row_bytes, const int8_t* x, size_t x_stride,
                        const float* x_d, const float* x_offset, size_t s_stride, int blocks,
                        int tokens, float* out, size_t out_stride);
  const char* name;  // "avx512-bf16" | "avx512-vnni" | "avx2" | "portable"
  // Sum over blocks b of d_w[b] * x_d[b] * (w_b . x_b). x_offset[b] = 8 * x_d[b] * sum(x_b)
  // (Activations::offset16): Q4_0 may multiply the unsigned nibbles and subtract it.
  float (*dot_q4_0)(const uint8_t* w, const int8_t* x, const float* x_d, const float* x_offset,
                    int blocks);
  float (*dot_q8_0)(const uint8_t* w, const int8_t* x, const float* x_d, const float* x_offset,
                    int blocks);
  // Sum over super-blocks s of x_d[s] * (d * sum(scale_j * q_j . x_j) - dmin * sum(min_j *
  // bsums_j)) for Q4_K / Q5_K; Q6_K: x_d[s] * d * sum(scale_j * (q_j - 32) . x_j).
  float (*dot_q4_k)(const uint8_t* w, const int8_t* x, const float* x_d, const int16_t* bsums,
                    int superblocks);
  float (*dot_q5_k)(const uint8_t* w, const int8_t* x, const float* x_d, const int16_t* bsums,
                    int superblocks);
  float (*dot_q6_k)(const uint8_t* w, const int8_t* x, const float* x_d, const int16_t* bsums,
                    int superblocks);
  // BF16 rows (Hugging Face shards) with f32 activations: w . x over n values.
  float (*dot_bf16)(const uint16_t* w, const float* x, int n);
  // Passes over several positions: eight rows (w, w + row_bytes, ...) times `tokens`
  // activation rows (token t's blocks at x + t * x_stride, its scales and offsets at
  // x_d / x_offset + t * s_stride) into out[t * out_stride + i], i < 8. Each block of the
  // eight rows is unpacked once and used for every token (rows in vector lanes), so that
  // prefill is bound by multiplies, not by unpacking. Bit-identical to dot_q4_0 / dot_q8_0
  // of the same set (they share the arithmetic: per block an exact integer product, one
  // scaled value, S[b % 8] += d_w * value, then ((S0+S4)+(S2+S6))+((S1+S5)+(S3+S7))), so a
  // conversation's next turn and speculative verification match plain decoding.
  Pass gemm8_q4_0, gemm8_q8_0;
  // dot_q4_0 with x in Activations::q_grouped's order (four blocks per 512-bit product: ~1.4x
  // dot_q4_0's rate with the weights in cache, so decode, which these kernels bound on few
  // threads, goes faster). Bit-identical to dot_q4_0. Null in sets without AVX-512 BW.
  float (*dot_q4_0_grouped)(const uint8_t* w, const int8_t* x, const float* x_d,
                            const float* x_offset, int blocks);
  // gemm8_q4_0 / gemm8_q8_0 over `rows` rows (a multiple of 16), sixteen in the lanes of a
  // 512-bit register and two such slabs per activation broadcast, with all of x's positions,
  // read from its tiles (Activations::tileForPasses): the same results to the bit, with a
  // quarter of the activation broadcasts per product. Null as above.
  using Slabs = void (*)(const uint8_t* w, size_t row_bytes, int rows, const Activations& x,
                         int blocks, float* out, size_t out_stride);
  Slabs gemm16_q4_0, gemm16_q8_0;
  // dot_q4_k / dot_q5_k / dot_q6_k for 1 .. kKTokens tokens (token t's Q8_K values at x +
  // t * x_stride, its scales at x_d + t * s_stride, its block sums at bsums + t * b_stride)
  // into out[tokens]: each super-block unpacked once for as many tokens as the set's
  // registers hold (AVX2 four, VNNI six; a verification's five in one pass), every result
  // the one-token kernel's to the bit.
  static constexpr int kKTokens = 6;
  using KTokens = void (*)(const uint8_t* w, const int8_t* x, size_t x_stride, const float* x_d,
                           size_t s_stride, const int16_t* bsums, size_t b_stride, int superblocks,
                           int tokens, float* out);
  KTokens dot_q4_k_tokens, dot_q5_k_tokens, dot_q6_k_tokens;
  // gemm16_q4_0 / gemm16_q8_0 reading rows repacked into panels of sixteen
  // (QuantMatrix::inPanels), for any number of positions, decode's one included: a block of
  // the sixteen rows is four (Q4_0) or eight (Q8_0) 64-byte loads and its scales one more,
  // instead of sixteen scattered loads, a transposition and sixteen scale inserts. The same
  // results to the bit. Null as above.
  Slabs panels_q4_0, panels_q8_0;
  // F16 rows in super-panels (QuantMatrix::inPanels: up to four slabs of sixteen rows
  // interleaved column by column, rows in the lanes of a register), `rows` rows (a multiple
  // of 16) from a super-panel's start, times `tokens` f32 activation rows (token t at x +
  // t * x_stride) into out[t * out_stride + i]. Each product is one f32 chain of fused
  // multiply-adds in column order from 0 (fma(w[i][k], x[t][k], acc)), whatever the
  // number of tokens: decode and a verification's five agree to the bit, and every
  // column's 64 weights serve six tokens per load. Null as above.
  using F16Panels = void (*)(const uint16_t* w, int rows, int cols, const float* x, size_t x_stride,
                             int tokens, float* out, size_t out_stride);
  F16Panels panels_f16;
  // The same for BF16 rows (Hugging Face weights as stored) in super-panels, each weight
  // widened exactly to f32; the activations as they are (f32). Null as above. In the
  // avx512-bf16 set (bf16_pairs): AVX-512 BF16's vdpbf16ps instead, the activations rounded
  // to bf16 (to nearest even) and multiplied two columns at a time (gguf_kernels_bf16.cpp):
  // again one chain per product whatever the number of tokens, so decode and every pass
  // agree to the bit.
  F16Panels panels_bf16;
  // Q4_K / Q5_K / Q6_K rows in panels of sixteen (QuantMatrix::inPanels: each super-block
  // of a slab its sixteen rows' words interleaved, word w of row i at 64 w + 4 i), `rows`
  // rows (a multiple of 16) times all of x's positions in the Q8_K form (blocks: super-
  // blocks per row). Sixteen rows in the lanes of a register, four elements per product,
  // each row's integer sum over a super-block exact: decode (which reads the panels too)
  // and every pass give the same results to the bit, within rounding of dot_q4_k's (whose
  // f32 steps follow llama.cpp's lanes). Null as above.
  Slabs panels_q4_k, panels_q5_k, panels_q6_k;
  // The runtime formats (QuantMatrix's int8, q8_0: panels_int8; int4: panels_int4) in their
  // panels of sixteen rows (QuantMatrix::inPanels: for each group of per_group blocks the
  // sixteen rows' f32 scales, then the group's blocks, each as panels_q8_0's / panels_q4_0's
  // words), `rows` rows (a multiple of 16) times all of x's positions from its tiles, with
  // the activations' f32 scales (Activations::scale / offset): per block an exact
  // integer product, S[b % 8] += d_w * value as gemm16's. Decode reads the panels too, so
  // decode and every pass agree to the bit. Null as above.
  using RuntimeSlabs = void (*)(const uint8_t* w, size_t row_bytes, int rows, const Activations& x,
                                int blocks, int per_group, float* out, size_t out_stride);
  RuntimeSlabs panels_int8, panels_int4;
  bool bf16_pairs = false;  // panels_bf16 is AVX-512 BF16's (above)
};

const GgufKernels& portableGgufKernels();
const GgufKernels* avx2GgufKernels();  // null without AVX2
const GgufKernels* vnniGgufKernels();  // AVX2 with AVX-512 VNNI's vpdpbusd; null without it
// vnniGgufKernels with AVX-512 BF16's products for BF16 panels; null without AVX-512 BF16.
const GgufKernels* bf16GgufKernels();
// The fastest set this CPU has, or the one TOKENSCOPE_KERNELS names (portable, avx2,
// avx512-vnni, avx512-bf16) when it has that.
const GgufKernels& activeGgufKernels();

}  // namespace ts::engine
