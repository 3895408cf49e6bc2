// The portable kernels (plain C++) and activation quantization; the AVX2 set is checked
// against these.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

#include "inference/engine/core/tensor_types.h"
#include "inference/engine/cpu/kernels/kernels.h"

namespace ts::engine {
namespace {

float dotF32(const float* w, const float* x, int n) {
  float sum = 0.f;
  for (int i = 0; i < n; ++i) sum += w[i] * x[i];
  return sum;
}

float dotF16(const uint16_t* w, const float* x, int n) {
  float sum = 0.f;
  for (int i = 0; i < n; ++i) sum += f16ToF32(w[i]) * x[i];
  return sum;
}

float dotF16F16(const uint16_t* w, const uint16_t* x, int n) {
  float sum = 0.f;
  for (int i = 0; i < n; ++i) sum += f16ToF32(w[i]) * f16ToF32(x[i]);
  return sum;
}

float dotQ8(const int8_t* w, const int8_t* x, const float* x_scale, int blocks) {
  float sum = 0.f;
  for (int b = 0; b < blocks; ++b, w += kQuantBlock, x += kQuantBlock) {
    int32_t dot = 0;
    for (int i = 0; i < kQuantBlock; ++i) dot += w[i] * x[i];
    sum += x_scale[b] * static_cast<float>(dot);
  }
  return sum;
}

float dotQ4(const uint8_t* w, const float* w_scale, int blocks_per_group, const int8_t* x,
            const float* x_scale, const float* x_offset, int blocks) {
  float sum = 0.f;
  for (int b = 0; b < blocks; ++b, x += kQuantBlock) {
    const uint8_t* pair = w + b / 2 * kQuantBlock;  // block 2p: low nibbles, 2p + 1: high
    const int shift = b % 2 ? 4 : 0;
    int32_t dot = 0;
    for (int j = 0; j < kQuantBlock; ++j) dot += ((pair[j] >> shift) & 15) * x[j];
    sum += w_scale[b / blocks_per_group] * (x_scale[b] * static_cast<float>(dot) - x_offset[b]);
  }
  return sum;
}

void dotF32X4(const float* w, const float* x, size_t stride, int n, float* out) {
  for (int t = 0; t < 4; ++t) out[t] = dotF32(w, x + t * stride, n);
}

void dotF16Rows(const uint16_t* w, size_t row_stride, int rows, const float* x, size_t x_stride,
                int n, int tokens, float* out, size_t out_stride) {
  for (int r = 0; r < rows; ++r)
    for (int t = 0; t < tokens; ++t)
      out[t * out_stride + r] = dotF16(w + r * row_stride, x + t * x_stride, n);
}

void dotQ8X4(const int8_t* w, const int8_t* x, const float* x_scale, int blocks, float* out) {
  for (int t = 0; t < 4; ++t)
    out[t] =
        dotQ8(w, x + static_cast<size_t>(t) * blocks * kQuantBlock, x_scale + t * blocks, blocks);
}

void dotQ4X4(const uint8_t* w, const float* w_scale, int blocks_per_group, const int8_t* x,
             const float* x_scale, const float* x_offset, int blocks, float* out) {
  for (int t = 0; t < 4; ++t)
    out[t] = dotQ4(w, w_scale, blocks_per_group, x + static_cast<size_t>(t) * blocks * kQuantBlock,
                   x_scale + t * blocks, x_offset + t * blocks, blocks);
}

double sumF32(const float* x, size_t n) {
  float s[4] = {0, 0, 0, 0};
  size_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (int k = 0; k < 4; ++k) s[k] += x[i + k];
  for (; i < n; ++i) s[0] += x[i];
  return static_cast<double>(s[0]) + s[1] + s[2] + s[3];
}

void axpyF32(float* y, float a, const float* x, int n) {
  for (int i = 0; i < n; ++i) y[i] += a * x[i];
}

void axpyF16(float* y, float a, const uint16_t* x, int n) {
  for (int i = 0; i < n; ++i) y[i] += a * f16ToF32(x[i]);
}

float dotI8F32(const int8_t* w, const float* x, int n) {
  float sum = 0.f;
  for (int i = 0; i < n; ++i) sum += static_cast<float>(w[i]) * x[i];
  return sum;
}

void axpyI8(float* y, float a, const int8_t* x, int n) {
  for (int i = 0; i < n; ++i) y[i] += a * static_cast<float>(x[i]);
}

// quantize_block_q8 for `valid` values (the rest of the 32 left as they are): also the
// short last block of a row whose width is not a multiple of 32.
float quantizeBlockQ8(const float* x, int valid, int8_t* q, int32_t* qsum) {
  float amax = 0.f;
  for (int i = 0; i < valid; ++i) amax = std::max(amax, std::abs(x[i]));
  const float inv = amax > 0 ? 127.f / amax : 0.f;
  *qsum = 0;
  for (int i = 0; i < valid; ++i) {
    // nearbyint: round half to even, as the vector conversion does
    q[i] = static_cast<int8_t>(std::clamp(std::nearbyint(x[i] * inv), -127.f, 127.f));
    *qsum += q[i];
  }
  return amax;
}

float quantizeFullBlockQ8(const float* x, int8_t* q, int32_t* qsum) {
  return quantizeBlockQ8(x, kQuantBlock, q, qsum);
}

// A block's scales from its largest magnitude and sum (Kernels::quantize_row_q8).
void blockScales(float amax, int32_t qsum, float* scale, float* offset, float* scale16,
                 float* offset16, int32_t* q_sums) {
  *scale = amax / 127.f;
  *offset = 8.f * *scale * static_cast<float>(qsum);
  *scale16 = f16ToF32(f32ToF16(*scale));
  *offset16 = 8.f * *scale16 * static_cast<float>(qsum);
  *q_sums = qsum;
}

void quantizeRowQ8(const float* x, int blocks, int8_t* q, float* scale, float* offset,
                   float* scale16, float* offset16, int32_t* q_sums) {
  for (int b = 0; b < blocks; ++b) {
    int32_t qsum = 0;
    const float amax =
        quantizeBlockQ8(x + b * kQuantBlock, kQuantBlock, q + b * kQuantBlock, &qsum);
    blockScales(amax, qsum, scale + b, offset + b, scale16 + b, offset16 + b, q_sums + b);
  }
}

float quantizeBlockQ8K(const float* x, int8_t* q, int16_t* bsums) {
  float amax = 0.f, max = 0.f;  // largest magnitude, and that value with its sign
  for (int i = 0; i < 256; ++i)
    if (std::abs(x[i]) > amax) {
      amax = std::abs(x[i]);
      max = x[i];
    }
  const float iscale = amax > 0 ? -127.f / max : 0.f;
  for (int i = 0; i < 256; ++i)
    q[i] = static_cast<int8_t>(std::min(127.f, std::nearbyint(iscale * x[i])));
  for (int j = 0; j < 16; ++j) {
    int sum = 0;
    for (int i = 0; i < 16; ++i) sum += q[16 * j + i];
    bsums[j] = static_cast<int16_t>(sum);
  }
  return amax > 0 ? 1.f / iscale : 0.f;
}

void toF16(const float* x, uint16_t* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = f32ToF16(x[i]);
}

}  // namespace

void Activations::set(const float* x, int count_, int n_, bool quantize) {
  shape(count_, n_, quantize);
  setRows(x, 0, count);
}

void Activations::shape(int count_, int n_, bool quantize, bool keep_f32) {
  count = count_;
  n = n_;
  blocks = paddedToBlock(n) / kQuantBlock;  // even: int4 rows hold blocks in pairs
  if (keep_f32)
    f32.resize(static_cast<size_t>(count) * n);
  else
    f32.clear();
  grouped = tiled = false;
  if (!quantize) {
    q.clear();
    return;
  }
  q.resize(static_cast<size_t>(count) * blocks * kQuantBlock);  // setRows writes every byte
  scale.resize(static_cast<size_t>(count) * blocks);
  offset.resize(scale.size());
  scale16.resize(scale.size());
  offset16.resize(scale.size());
  q_sums.resize(scale.size());
}

void Activations::setRows(const float* x, int first, int last) {
  if (!f32.empty())
    std::copy(x + static_cast<size_t>(first) * n, x + static_cast<size_t>(last) * n,
              f32.data() + static_cast<size_t>(first) * n);
  if (q.empty()) return;
  const Kernels& k = activeKernels();
  const int whole = n / kQuantBlock;  // blocks of 32 values; then a short one, padding
  for (int t = first; t < last; ++t) {
    const float* row = x + static_cast<size_t>(t) * n;
    int8_t* qrow = q.data() + static_cast<size_t>(t) * blocks * kQuantBlock;
    const size_t at = static_cast<size_t>(t) * blocks;
    k.quantize_row_q8(row, whole, qrow, scale.data() + at, offset.data() + at, scale16.data() + at,
                      offset16.data() + at, q_sums.data() + at);
    for (int b = whole; b < blocks; ++b) {  // zeros past n (and a padding block all zeros)
      const int begin = b * kQuantBlock, valid = std::max(0, std::min(n - begin, kQuantBlock));
      int32_t qsum = 0;
      const float amax = quantizeBlockQ8(row + begin, valid, qrow + begin, &qsum);
      std::fill(qrow + begin + valid, qrow + begin + kQuantBlock, 0);
      blockScales(amax, qsum, &scale[at + b], &offset[at + b], &scale16[at + b], &offset16[at + b],
                  &q_sums[at + b]);
    }
  }
}

void Activations::tileForPasses() {
  shapeTiles();
  tileRows(0, count);
}

void Activations::shapeTiles() {
  const size_t cells = static_cast<size_t>(count) * blocks;
  tiled = true;
  q_tiles.resize(cells * kQuantBlock);
  tile_scale16.resize(cells);
  tile_offset16.resize(cells);
  tile_bias.resize(cells);
}

void Activations::tileRows(int first, int last) {
  // Cell by cell in the tiles' order (for each chunk, block by block, positions within it):
  // writes that follow each other. Position by position, each block's cell and its three
  // scalars landed on four lines of their own, read for ownership from memory after a
  // product had streamed its weights through the caches: 24 ns a block, 60% of preparing a
  // pass's activations.
  for (int chunk = first / kTileChunk * kTileChunk; chunk < last; chunk += kTileChunk) {
    const int positions = std::min(kTileChunk, count - chunk), from_t = std::max(first, chunk),
              to_t = std::min(last, chunk + positions);
    const size_t base = static_cast<size_t>(chunk) * blocks;
    for (int b = 0; b < blocks; ++b) {
      const size_t column = base + static_cast<size_t>(b) * positions - chunk;  // + t: the cell
      for (int t = from_t; t < to_t; ++t) {
        const size_t from = static_cast<size_t>(t) * blocks + b, cell = column + t;
        std::memcpy(q_tiles.data() + cell * kQuantBlock, q.data() + from * kQuantBlock,
                    kQuantBlock);
        tile_scale16[cell] = scale16[from];
        tile_offset16[cell] = offset16[from];
        tile_bias[cell] = 128 * q_sums[from];
      }
    }
  }
}

void Activations::groupForQ4_0() {
  grouped = true;
  q_grouped.resize(q.size());
  const int whole = n / kQuantBlock / 8 * 8;  // blocks in whole runs of 8
  for (int t = 0; t < count; ++t) {
    const int8_t* from = qRow(t);
    int8_t* to = q_grouped.data() + static_cast<size_t>(t) * blocks * kQuantBlock;
    std::memcpy(to + whole * kQuantBlock, from + whole * kQuantBlock,
                static_cast<size_t>(blocks - whole) * kQuantBlock);  // as in q
    for (int b = 0; b < whole; ++b) {
      // block b's halves go to quad (b / 4): its low half at [quad, 0, b % 4], high at [quad, 1]
      int8_t* quad = to + (b / 4) * 128 + (b % 4) * 16;
      std::memcpy(quad, from + b * kQuantBlock, 16);
      std::memcpy(quad + 64, from + b * kQuantBlock + 16, 16);
    }
  }
}

void Activations::roundToHalf() {
  halves.resize(f32.size());
  half_bits.resize(f32.size());
  activeKernels().to_f16(f32.data(), half_bits.data(), f32.size());
  for (size_t i = 0; i < f32.size(); ++i) halves[i] = f16ToF32(half_bits[i]);
}

void Activations::quantizeK() {
  superblocks = n % 256 == 0 ? n / 256 : 0;
  qk.resize(static_cast<size_t>(count) * superblocks * 256);
  kscale.resize(static_cast<size_t>(count) * superblocks);
  bsums.resize(static_cast<size_t>(count) * superblocks * 16);
  const Kernels& k = activeKernels();
  for (int t = 0; t < count; ++t)
    for (int s = 0; s < superblocks; ++s) {
      const size_t at = static_cast<size_t>(t) * superblocks + s;
      kscale[at] =
          k.quantize_block_q8k(f32Row(t) + s * 256, qk.data() + at * 256, bsums.data() + at * 16);
    }
}

void fromF16(const uint16_t* x, float* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = f16ToF32(x[i]);
}

template <typename W>
float rowValue(const W* row, int d) {
  if constexpr (std::is_same_v<W, uint16_t>)
    return f16ToF32(row[d]);
  else
    return static_cast<float>(row[d]);
}

template <typename W>
void scoresOf(const W* rows, size_t row_stride, int keys, const float* q, size_t q_stride,
              int queries, int head_dim, float* s, size_t s_stride) {
  const int body = head_dim / 8 * 8;
  for (int i = 0; i < queries; ++i)
    for (int t = 0; t < keys; ++t) {
      const W* row = rows + t * row_stride;
      const float* qi = q + i * q_stride;
      float l[8] = {}, tail = 0.f;
      for (int d = 0; d < body; ++d) l[d % 8] = std::fma(qi[d], rowValue(row, d), l[d % 8]);
      for (int d = body; d < head_dim; ++d) tail = std::fma(qi[d], rowValue(row, d), tail);
      s[i * s_stride + t] =
          (((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]))) + tail;
    }
}

template <typename W>
void valuesOf(const W* rows, size_t row_stride, int keys, const float* p, size_t p_stride,
              int queries, int head_dim, float* acc, size_t acc_stride) {
  for (int i = 0; i < queries; ++i)
    for (int t = 0; t < keys; ++t)
      for (int d = 0; d < head_dim; ++d)
        acc[i * acc_stride + d] = std::fma(p[i * p_stride + t], rowValue(rows + t * row_stride, d),
                                           acc[i * acc_stride + d]);
}

void attentionScores(Kernels::Rows type, const void* rows, size_t row_stride, int keys,
                     const float* q, size_t q_stride, int queries, int head_dim, float* s,
                     size_t s_stride) {
  withRows(type, rows, [&](const auto* r) {
    scoresOf(r, row_stride, keys, q, q_stride, queries, head_dim, s, s_stride);
  });
}

void attentionValues(Kernels::Rows type, const void* rows, size_t row_stride, int keys,
                     const float* p, size_t p_stride, int queries, int head_dim, float* acc,
                     size_t acc_stride) {
  withRows(type, rows, [&](const auto* r) {
    valuesOf(r, row_stride, keys, p, p_stride, queries, head_dim, acc, acc_stride);
  });
}

namespace {

void swigluExact(float* gate, const float* up, size_t n) {  // cpu_ops.h's swiglu calls it
  for (size_t i = 0; i < n; ++i) gate[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
}

void expExact(const float* x, float* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = std::exp(x[i]);
}

}  // namespace

const Kernels& portableKernels() {
  static const Kernels k{
      "portable",       dotF32,      dotF16,   dotQ8,           dotQ4,
      dotF32X4,         dotQ8X4,     dotQ4X4,  sumF32,          axpyF32,
      axpyF16,          dotI8F32,    axpyI8,   dotF16F16,       quantizeFullBlockQ8,
      quantizeBlockQ8K, toF16,       fromF16,  attentionScores, attentionValues,
      dotF16Rows,       swigluExact, expExact, quantizeRowQ8};
  return k;
}

const Kernels& activeKernels() {
  static const Kernels* chosen = [] {
    const char* force = std::getenv("TOKENSCOPE_KERNELS");
    const std::string wanted = force ? force : "";
    if (wanted == "portable") return &portableKernels();
    for (const Kernels* k : {avx512Kernels(), vnniKernels(), avx2Kernels()})
      if (k && wanted == k->name) return k;
    for (const Kernels* k : {avx512Kernels(), vnniKernels(), avx2Kernels()})
      if (k) return k;
    return &portableKernels();
  }();
  return *chosen;
}

}  // namespace ts::engine
