// Device memory a CUDA session needs, computed from the model's shape and the session's
// options before anything is allocated (so a model that does not fit is refused with a
// message instead of failing half-way through the upload). Plain C++17, no CUDA: the
// self-test checks it on machines without a device.
#pragma once
#include <algorithm>
#include <cstddef>

#include "inference/engine/backend/gguf_subblocks.h"
#include "inference/engine/backend/plugin_abi.h"

namespace ts::cuda {

constexpr int kRowAlign = 64;  // integer rows pad to this many inputs (QuantMatrix)
// Passes up to this many positions use the fused matvec: a decode step, or a speculative
// verify of the largest draft (k_max 8) plus the position it continues from.
constexpr int kMaxMatvecTokens = 9;
constexpr size_t kCublasWorkspace = size_t{32} << 20;

inline int paddedCols(int cols) {
  return (cols + kRowAlign - 1) / kRowAlign * kRowAlign;
}
inline int int4Groups(int cols, int group) {
  return group > 0 ? (paddedCols(cols) + group - 1) / group : 0;  // 0: refused (model_checks.h)
}

// Bytes of the data array and of the scales of a [rows, cols] matrix in `format`.
inline size_t matrixDataBytes(int format, int rows, int cols) {
  const size_t r = static_cast<size_t>(rows);
  switch (format) {
    case TS_CUDA_W_F32:
      return r * cols * 4;
    case TS_CUDA_W_F16:
      return r * cols * 2;
    case TS_CUDA_W_INT8:
    case TS_CUDA_W_Q8_0:
      return r * paddedCols(cols);
    case TS_CUDA_W_INT4:
      return r * paddedCols(cols) / 2;
  }
  return r * storedRowBytes(format, cols);  // a GGUF's rows as stored (0 for no format)
}
inline size_t matrixScaleBytes(int format, int rows, int cols, int group) {
  const size_t r = static_cast<size_t>(rows);
  switch (format) {
    case TS_CUDA_W_INT8:
      return r * 4;
    case TS_CUDA_W_Q8_0:
      return r * (paddedCols(cols) / 32) * 4;
    case TS_CUDA_W_INT4:
      return r * int4Groups(cols, group) * 4;
  }
  return 0;
}
inline size_t matrixBytes(const TsCudaMatrix& m) {
  return matrixDataBytes(m.format, m.rows, m.cols) +
         matrixScaleBytes(m.format, m.rows, m.cols, m.group);
}

// KV cache: K and V rows of head_dim per (layer, position, KV head); int8 adds one f32
// scale per row.
inline size_t kvCacheBytes(const TsCudaModel& m, int positions, int kv_format) {
  const size_t rows = static_cast<size_t>(m.n_layers) * positions * m.n_kv_heads;
  const size_t per_value = kv_format == TS_CUDA_KV_F32 ? 4 : kv_format == TS_CUDA_KV_F16 ? 2 : 1;
  return 2 * rows * (m.head_dim * per_value + (kv_format == TS_CUDA_KV_INT8 ? 4 : 0));
}

// Splits of the KV length for decode attention: enough blocks to fill the device at
// long contexts, at least 64 positions each.
inline int attentionSplits(int max_positions) {
  return std::clamp(max_positions / 64, 1, 32);
}

inline size_t workspaceBytes(const TsCudaModel& m, const TsCudaSessionOptions& o) {
  const size_t B = static_cast<size_t>(std::max(1, o.max_batch));
  const size_t P = static_cast<size_t>(o.max_positions);
  const size_t D = m.dim, F = m.ffn_dim, Q = static_cast<size_t>(m.n_heads) * m.head_dim,
               KV = static_cast<size_t>(m.n_kv_heads) * m.head_dim, V = m.vocab;
  // Activations in f32: x, xb (max(D, Q)), q, k, v, hb, hb2, attention out.
  size_t floats = B * (D + std::max(D, Q) + Q + 2 * KV + 2 * F + Q);
  floats += B * V;  // logits of every position of a pass
  // Split-KV decode partials: [tokens, heads, splits, head_dim + 2].
  floats += static_cast<size_t>(kMaxMatvecTokens) * m.n_heads * attentionSplits(o.max_positions) *
            (m.head_dim + 2);
  // Prefill attention (cuBLAS): Q, O head-major; K, V of the layer head-major; scores S and
  // probabilities P [heads, B, positions]. 4 bytes each (f32 when the cache is f32).
  floats += 2 * B * Q + 2 * P * KV + 2 * static_cast<size_t>(m.n_heads) * B * P;
  // Weights dequantized to f16 for cuBLAS (the largest matrix) and the f16 input.
  const size_t largest = std::max({F * D, V * D, Q * D});
  size_t bytes = floats * 4 + largest * 2 + B * std::max(D, F) * 2;
  bytes += kCublasWorkspace + (size_t{16} << 20);  // cuBLAS, small buffers and alignment
  return bytes;
}

inline size_t weightBytes(const TsCudaModel& m) {
  size_t bytes = static_cast<size_t>(m.vocab) * m.dim * 4 + m.dim * 4;  // embeddings, norm
  bytes += matrixBytes(m.classifier);
  for (int l = 0; l < m.n_layers; ++l) {
    const TsCudaLayer& w = m.layers[l];
    bytes += 2 * static_cast<size_t>(m.dim) * 4;
    for (const TsCudaMatrix* x : {&w.wq, &w.wk, &w.wv, &w.wo, &w.gate, &w.up, &w.down})
      bytes += matrixBytes(*x);
  }
  if (m.alibi_slopes) bytes += m.n_heads * 4;
  return bytes;
}

inline TsCudaMemory estimateMemory(const TsCudaModel& m, const TsCudaSessionOptions& o) {
  TsCudaMemory e{};
  e.weights = weightBytes(m);
  e.kv_cache = kvCacheBytes(m, o.max_positions, o.kv_format);
  e.workspace = workspaceBytes(m, o);
  e.total = e.weights + e.kv_cache + e.workspace;
  return e;
}

}  // namespace ts::cuda
