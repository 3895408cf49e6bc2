// Weights to f16 [rows, cols] for the cuBLAS paths (prefill and passes longer than the
// fused matvec takes): one element per thread, every stored format.
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

}  // namespace

void dequantizeToHalf(const DeviceMatrix& w, __half* out, cudaStream_t stream) {
  const size_t n = static_cast<size_t>(w.rows) * w.cols;
  const unsigned blocks = static_cast<unsigned>(std::min<size_t>((n + 255) / 256, 65535 * 4));
  dequantizeKernel<<<blocks, 256, 0, stream>>>(w, out);
  TS_CUDA_LAUNCHED("dequantizeToHalf");
}

}  // namespace ts::cuda
