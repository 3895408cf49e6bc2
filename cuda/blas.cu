#include "cuda/blas.h"

#include <cmath>

#include "inference/engine/backend/memory_estimate.h"
#include "inference/engine/backend/plugin_abi.h"

namespace ts::cuda {

Blas::Blas(cudaStream_t stream) : stream_(stream), workspace_(kCublasWorkspace) {
  TS_CUDA(cublasCreate(&handle_));
  TS_CUDA(cublasSetStream(handle_, stream_));
  TS_CUDA(cublasSetWorkspace(handle_, workspace_.get(), workspace_.bytes()));
}

Blas::~Blas() {
  if (handle_) cublasDestroy(handle_);
}

// Row-major W [rows, cols] is column-major W^T, so out^T [rows, count] = op_T(W^T) . x^T.
void Blas::multiply(const DeviceMatrix& w, const float* x, int count, float* out, bool accumulate,
                    const BlasScratch& scratch) {
  const float alpha = 1.f, beta = accumulate ? 1.f : 0.f;
  if (w.format == TS_CUDA_W_F32) {
    TS_CUDA(cublasGemmEx(handle_, CUBLAS_OP_T, CUBLAS_OP_N, w.rows, count, w.cols, &alpha, w.data,
                         CUDA_R_32F, w.cols, x, CUDA_R_32F, w.cols, &beta, out, CUDA_R_32F, w.rows,
                         CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    return;
  }
  const void* weights = w.data;
  if (w.format != TS_CUDA_W_F16) {
    dequantizeToHalf(w, scratch.weights, stream_);
    weights = scratch.weights;
  }
  toHalf(x, static_cast<size_t>(count) * w.cols, scratch.input, stream_);
  TS_CUDA(cublasGemmEx(handle_, CUBLAS_OP_T, CUBLAS_OP_N, w.rows, count, w.cols, &alpha, weights,
                       CUDA_R_16F, w.cols, scratch.input, CUDA_R_16F, w.cols, &beta, out,
                       CUDA_R_32F, w.rows, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

// Per KV head (one batch entry): the `group` query heads sharing it are R = group * count
// consecutive rows of head-major Q. Scores S [R, L] = Q K^T / sqrt(hd) (column-major: S^T
// = op_T(K^T) . Q^T), then O [R, hd] = P V (column-major: O^T = V^T . P^T).
void Blas::attention(const float* q, int count, int pos, int n_heads, const KvLayer& cache,
                     int capacity, const float* slopes, const BlasScratch& scratch, float* out) {
  const bool half = cache.format != TS_CUDA_KV_F32;
  const cudaDataType_t type = half ? CUDA_R_16F : CUDA_R_32F;
  const int hd = cache.head_dim, length = pos + count, group = n_heads / cache.kv_heads;
  const int R = group * count;
  toHeadMajor(q, count, n_heads, hd, half, scratch.q, stream_);
  kvToHeadMajor(cache, length, capacity, half, scratch.k, scratch.v, stream_);
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd)), one = 1.f, zero = 0.f;
  TS_CUDA(cublasGemmStridedBatchedEx(
      handle_, CUBLAS_OP_T, CUBLAS_OP_N, length, R, hd, &scale, scratch.k, type, hd,
      static_cast<long long>(capacity) * hd, scratch.q, type, hd, static_cast<long long>(R) * hd,
      &zero, scratch.scores, CUDA_R_32F, length, static_cast<long long>(R) * length, cache.kv_heads,
      CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  causalSoftmax(scratch.scores, n_heads, count, length, pos, slopes, half, scratch.probs, stream_);
  TS_CUDA(cublasGemmStridedBatchedEx(
      handle_, CUBLAS_OP_N, CUBLAS_OP_N, hd, R, length, &one, scratch.v, type, hd,
      static_cast<long long>(capacity) * hd, scratch.probs, type, length,
      static_cast<long long>(R) * length, &zero, scratch.o, CUDA_R_32F, hd,
      static_cast<long long>(R) * hd, cache.kv_heads, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  fromHeadMajor(scratch.o, count, n_heads, hd, out, stream_);
}

}  // namespace ts::cuda
