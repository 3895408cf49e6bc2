// The cuBLAS half of the plugin: weight products for passes longer than the fused matvec
// takes (prefill), with f16 inputs and f32 accumulation (f32 weights stay f32), and the
// prefill attention as two strided-batched products around a causal softmax.
#pragma once
#include <cublas_v2.h>
#include <cuda_fp16.h>

#include "cuda/device_buffer.h"
#include "cuda/kernels.h"

namespace ts::cuda {

// Scratch the cuBLAS paths use, sized by memory_estimate.h's workspaceBytes.
struct BlasScratch {
  __half* weights = nullptr;  // the largest matrix as f16
  __half* input = nullptr;    // [max_batch, max width] f16
  void* q = nullptr;          // [n_heads, max_batch, hd] (f16, or f32 for an f32 cache)
  void* k = nullptr;          // [kv_heads, capacity, hd]
  void* v = nullptr;
  float* scores = nullptr;  // [n_heads, max_batch, capacity]
  void* probs = nullptr;    // same shape, f16 or f32
  float* o = nullptr;       // [n_heads, max_batch, hd]
};

class Blas {
 public:
  explicit Blas(cudaStream_t stream);
  ~Blas();
  Blas(const Blas&) = delete;
  Blas& operator=(const Blas&) = delete;

  // out[count, w.rows] = x[count, w.cols] . W^T, or += with accumulate.
  void multiply(const DeviceMatrix& w, const float* x, int count, float* out, bool accumulate,
                const BlasScratch& scratch);
  // Causal attention of q [count, n_heads, hd] at positions pos .. pos + count - 1 over
  // the cache rows [0, pos + count) into out [count, n_heads * hd].
  void attention(const float* q, int count, int pos, int n_heads, const KvLayer& cache,
                 int capacity, const float* slopes, const BlasScratch& scratch, float* out);

 private:
  cudaStream_t stream_;
  cublasHandle_t handle_ = nullptr;
  DeviceBuffer workspace_;
};

}  // namespace ts::cuda
