// Launchers of the plugin's kernels: raw device pointers and a stream, each checking the
// launch. Activations are f32, row-major [count, width]; positions come from device
// memory (d_pos: the pass's first position) so a captured CUDA graph replays unchanged
// for every token.
#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "inference/engine/backend/memory_estimate.h"
#include "inference/engine/backend/plugin_abi.h"

namespace ts::cuda {

// A weight matrix on the device in one of the plugin_abi.h formats.
struct DeviceMatrix {
  int format = 0, rows = 0, cols = 0;
  int padded = 0;  // cols rounded up to 64 (integer formats' row length)
  int group = 128;
  int groups = 0;  // scales per row: int4 ceil(padded / group), q8_0 padded / 32
  const void* data = nullptr;
  const float* scales = nullptr;
};

// m's shape and format as the kernels read it (data and scales still to be set).
inline DeviceMatrix deviceShape(const TsCudaMatrix& m) {
  DeviceMatrix d;
  d.format = m.format;
  d.rows = m.rows;
  d.cols = m.cols;
  d.padded = paddedCols(m.cols);
  d.group = m.group;
  d.groups = m.format == TS_CUDA_W_INT4   ? int4Groups(m.cols, m.group)
             : m.format == TS_CUDA_W_Q8_0 ? d.padded / 32
                                          : 0;
  return d;
}

// The KV cache of one layer: [positions, kv_heads, head_dim] values (f32, f16 or int8)
// and, for int8, [positions, kv_heads] scales.
struct KvLayer {
  int format = 0, kv_heads = 0, head_dim = 0;
  void* k = nullptr;
  void* v = nullptr;
  float* k_scale = nullptr;
  float* v_scale = nullptr;
};

// out[i] = table[tokens[i]], rows of dim.
void embeddingGather(const float* table, int dim, const int* tokens, int count, float* out,
                     cudaStream_t stream);
// out[i] = x[i] * w / sqrt(mean(x[i]^2) + eps) for rows i < count of dim.
void rmsnorm(const float* x, const float* w, int count, int dim, float eps, float* out,
             cudaStream_t stream);
// Rotates adjacent pairs of each head of q [count, n_heads, head_dim] and k [count,
// kv_heads, head_dim] (rope_dim > 0), then stores k and v rows of positions *d_pos + i
// into the cache (int8: one scale per row, amax / 127, as the CPU cache).
void ropeStoreKv(float* q, float* k, const float* v, int count, int n_heads, int rope_dim,
                 float theta, const int* d_pos, const KvLayer& cache, cudaStream_t stream);
// RoPE alone on x [count, n_heads, head_dim] (the self-test's op).
void rope(float* x, int count, int n_heads, int head_dim, int rope_dim, float theta,
          const int* d_pos, cudaStream_t stream);
// out[i] = silu(gate[i]) * up[i]
void swiglu(const float* gate, const float* up, size_t n, float* out, cudaStream_t stream);
// Zeros the cache rows of positions [from, to) in `layers` consecutive layers, each
// `positions` long, starting at `first`.
void kvClear(const KvLayer& first, int layers, int positions, int from, int to,
             cudaStream_t stream);
// Reads rows [0, length) of the cache back as f32 [length, kv_heads, head_dim].
void kvRead(const KvLayer& cache, int length, float* k_out, float* v_out, cudaStream_t stream);

// Fused dequantize-and-multiply for passes of up to kMaxMatvecTokens positions: one warp per
// output row, 16-byte weight loads. Up to three matrices with the same input (q, k, v) in one
// launch. Epilogue: Store out = W x; Accumulate out += W x (the residual add);
// SwiGlu: out[0] = silu(W0 x) * (W1 x) (gate and up).
enum class Epilogue { Store, Accumulate, SwiGlu };
struct MatvecJob {
  DeviceMatrix m[3];
  float* out[3] = {nullptr, nullptr, nullptr};  // [tokens, m[j].rows]
  int count = 1;                                // matrices (SwiGlu: 2, one output)
};
void matvec(const MatvecJob& job, const float* x, int tokens, Epilogue epilogue,
            cudaStream_t stream);

// Decode attention split over the KV length (flash-decoding): queries q [count, n_heads,
// head_dim] at positions *d_pos + i attend causally; each of `splits` blocks per (query,
// head) reduces its share of positions to (max, sum, weighted values) in `partial`
// [count, n_heads, splits, head_dim + 2]; a second kernel merges them into out [count,
// n_heads * head_dim]. slopes: ALiBi [n_heads] or null.
void attentionSplitKv(const float* q, int count, int n_heads, const KvLayer& cache,
                      const int* d_pos, const float* slopes, int splits, float* partial, float* out,
                      cudaStream_t stream);

// For the cuBLAS prefill attention: q [count, n_heads, hd] -> head-major [n_heads, count,
// hd] in f16 or f32; the cache's rows [0, length) -> [kv_heads, capacity, hd]; the
// causal softmax of scores S [n_heads, count, length] (already scaled) into P; and head-major
// O back to [count, n_heads * hd].
void toHeadMajor(const float* q, int count, int n_heads, int head_dim, bool half_out, void* out,
                 cudaStream_t stream);
void kvToHeadMajor(const KvLayer& cache, int length, int capacity, bool half_out, void* k_out,
                   void* v_out, cudaStream_t stream);
void causalSoftmax(const float* scores, int n_heads, int count, int length, int pos,
                   const float* slopes, bool half_out, void* probs, cudaStream_t stream);
void fromHeadMajor(const float* o, int count, int n_heads, int head_dim, float* out,
                   cudaStream_t stream);

// W as f16 [rows, cols] (for cuBLAS), and activations to f16.
void dequantizeToHalf(const DeviceMatrix& w, __half* out, cudaStream_t stream);
void toHalf(const float* x, size_t n, __half* out, cudaStream_t stream);

// Seeded fills for random-weight benchmarks: uniform in [-amplitude, amplitude], random
// bytes, or a constant.
void fillUniform(float* x, size_t n, uint64_t seed, float amplitude, cudaStream_t stream);
void fillUniformHalf(__half* x, size_t n, uint64_t seed, float amplitude, cudaStream_t stream);
void fillBytes(uint8_t* x, size_t n, uint64_t seed, cudaStream_t stream);
void fillConstant(float* x, size_t n, float value, cudaStream_t stream);
// A GGUF's stored rows of random values in about [-amplitude, amplitude] (valid scales).
void fillStoredRandom(int format, uint8_t* x, int rows, int cols, uint64_t seed, float amplitude,
                      cudaStream_t stream);

}  // namespace ts::cuda
