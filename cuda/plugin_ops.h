// The plugin's single-op entry points (host arrays in and out) for the self-test, and the
// device-to-device copy bandwidth for the benchmark. Throw CudaError.
#pragma once
#include <cstddef>

#include "inference/engine/backend/plugin_abi.h"

namespace ts::cuda {

void opEmbedding(const float* table, int vocab, int dim, const int* tokens, int count, float* out);
void opRmsnorm(const float* x, const float* weight, int count, int dim, float eps, float* out);
void opRope(float* x, int count, int n_heads, int head_dim, int rope_dim, int pos, float theta);
void opSwiglu(const float* gate, const float* up, size_t n, float* out);
void opMatmul(const TsCudaMatrix& w, const float* x, int count, const float* residual, int path,
              float* out);
void opAttention(const TsCudaAttentionOp& op);
// (read + written) bytes per second of a device-to-device copy, median of `iterations`
// (>= 1, bytes > 0: plugin_api.cu checks them).
double copyBandwidth(int device, size_t bytes, int iterations);

}  // namespace ts::cuda
