// Weights to f16 [rows, cols] for the cuBLAS paths (prefill and passes longer than the
// fused matvec takes): one element per thread for the engine's formats, one 32-element
// sub-block per thread for a GGUF's stored rows.
#include <cuda_fp16.h>

#include "cuda/cuda_check.h"
#include "cuda/kernels.h"
#include "inference/engine/backend/plugin_abi.h"

namespace ts::cuda {
namespace {

__device__ __forceinline__ float weightAt(const DeviceMatrix& m, int r, int c) {
  const size_t rr = static_cast<size_t>(r);
  switch (m.format) {
    case TS_CUDA_W_F32:
      return static_cast<const float*>(m.data)[rr * m.cols + c];
    case TS_CUDA_W_F16:
      return __half2float(static_cast<const __half*>(m.data)[rr * m.cols + c]);
    case TS_CUDA_W_INT8:
      return static_cast<const int8_t*>(m.data)[rr * m.padded + c] * m.scales[r];
    case TS_CUDA_W_Q8_0:
      return static_cast<const int8_t*>(m.data)[rr * m.padded + c] *
             m.scales[rr * m.groups + c / 32];
    default: {  // int4: byte (c / 64) * 32 + c % 32, low nibble for even 32-blocks
      const uint8_t b =
          static_cast<const uint8_t*>(m.data)[rr * m.padded / 2 + c / 64 * 32 + c % 32];
      const int q = (c / 32) % 2 == 0 ? (b & 15) : (b >> 4);
      return (q - 8) * m.scales[rr * m.groups + c / m.group];
    }
  }
}

__global__ void dequantizeKernel(DeviceMatrix m, __half* out) {
  const size_t n = static_cast<size_t>(m.rows) * m.cols;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    out[i] =
        __float2half_rn(weightAt(m, static_cast<int>(i / m.cols), static_cast<int>(i % m.cols)));
}

// A GGUF's stored rows: one thread per 32-element sub-block (gguf_subblocks.h).
__global__ void storedToHalfKernel(DeviceMatrix m, __half* out) {
  const int per_row = m.cols / 32;
  const size_t n = static_cast<size_t>(m.rows) * per_row;
  const size_t row_bytes = storedRowBytes(m.format, m.cols);
  float v[32];
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const size_t r = i / per_row;
    const int j = static_cast<int>(i % per_row);
    decodeSubBlock(m.format, static_cast<const uint8_t*>(m.data) + r * row_bytes, j, v);
    __half* o = out + r * m.cols + static_cast<size_t>(j) * 32;
    for (int e = 0; e < 32; ++e) o[e] = __float2half_rn(v[e]);
  }
}

}  // namespace

void dequantizeToHalf(const DeviceMatrix& w, __half* out, cudaStream_t stream) {
  if (isStoredFormat(w.format)) {
    const size_t n = static_cast<size_t>(w.rows) * (w.cols / 32);
    const unsigned blocks = static_cast<unsigned>(std::min<size_t>((n + 255) / 256, 65535 * 4));
    storedToHalfKernel<<<blocks, 256, 0, stream>>>(w, out);
    TS_CUDA_LAUNCHED("dequantizeToHalf (stored rows)");
    return;
  }
  const size_t n = static_cast<size_t>(w.rows) * w.cols;
  const unsigned blocks = static_cast<unsigned>(std::min<size_t>((n + 255) / 256, 65535 * 4));
  dequantizeKernel<<<blocks, 256, 0, stream>>>(w, out);
  TS_CUDA_LAUNCHED("dequantizeToHalf");
}

}  // namespace ts::cuda
