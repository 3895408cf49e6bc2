// The sum or the maximum of one value per thread over a block (blockDim.x a multiple of
// 32, at most 1024), returned to every thread. Synchronises the block.
#pragma once
#include <cfloat>

namespace ts::cuda {

__device__ __forceinline__ float blockReduce(float v, bool is_max) {
  __shared__ float partial[32];
  for (int o = 16; o > 0; o >>= 1) {
    const float other = __shfl_xor_sync(0xffffffffu, v, o);
    v = is_max ? fmaxf(v, other) : v + other;
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __syncthreads();
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  v = lane < static_cast<int>(blockDim.x / 32) ? partial[lane] : (is_max ? -FLT_MAX : 0.f);
  for (int o = 16; o > 0; o >>= 1) {
    const float other = __shfl_xor_sync(0xffffffffu, v, o);
    v = is_max ? fmaxf(v, other) : v + other;
  }
  return v;
}

}  // namespace ts::cuda
