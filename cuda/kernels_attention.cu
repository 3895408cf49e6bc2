// Attention kernels. Decode and small passes: the KV length split across blocks
// (flash-decoding), each block reducing its share with an online softmax, then one merge
// per (position, head). Prefill runs through cuBLAS (attention_prefill.cu); the layout
// changes and the causal softmax it needs are here.
#include <cuda_fp16.h>

#include <cfloat>

#include "cuda/block_reduce.cuh"
#include "cuda/cuda_check.h"
#include "cuda/kernels.h"
#include "inference/engine/backend/plugin_abi.h"

namespace ts::cuda {
namespace {

constexpr int kAttnWarps = 4;
constexpr int kMaxDimsPerLane = 8;  // head_dim <= 256

__device__ __forceinline__ float kvValue(const KvLayer& c, const void* values, const float* scales,
                                         size_t row, int d) {
  const size_t i = row * c.head_dim + d;
  if (c.format == TS_CUDA_KV_F32) return static_cast<const float*>(values)[i];
  if (c.format == TS_CUDA_KV_F16) return __half2float(static_cast<const __half*>(values)[i]);
  return static_cast<const int8_t*>(values)[i] * scales[row];
}

// blockIdx: x head, y split, z position of the pass. partial row: [head_dim values, max, sum].
__global__ void __launch_bounds__(kAttnWarps * 32)
    splitKvKernel(const float* q, int n_heads, KvLayer cache, const int* d_pos, const float* slopes,
                  int splits, float* partial) {
  const int h = blockIdx.x, s = blockIdx.y, i = blockIdx.z;
  const int hd = cache.head_dim, lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int at = *d_pos + i, length = at + 1;
  const int chunk = (length + splits - 1) / splits;
  const int begin = s * chunk, end = min(length, begin + chunk);
  const int kv_head = h / (n_heads / cache.kv_heads);
  const float scale = 1.0f / sqrtf(static_cast<float>(hd));
  const float slope = slopes ? slopes[h] : 0.f;
  const float* qrow = q + (static_cast<size_t>(i) * n_heads + h) * hd;
  float qd[kMaxDimsPerLane], acc[kMaxDimsPerLane];
#pragma unroll
  for (int k = 0; k < kMaxDimsPerLane; ++k) {
    const int d = lane + 32 * k;
    qd[k] = d < hd ? qrow[d] : 0.f;
    acc[k] = 0.f;
  }
  float m = -FLT_MAX, l = 0.f;
  for (int t = begin + warp; t < end; t += kAttnWarps) {
    const size_t row = static_cast<size_t>(t) * cache.kv_heads + kv_head;
    float dot = 0.f;
#pragma unroll
    for (int k = 0; k < kMaxDimsPerLane; ++k) {
      const int d = lane + 32 * k;
      if (d < hd) dot += qd[k] * kvValue(cache, cache.k, cache.k_scale, row, d);
    }
    for (int o = 16; o > 0; o >>= 1) dot += __shfl_xor_sync(0xffffffffu, dot, o);
    const float score = dot * scale + slope * static_cast<float>(t - at);
    const float m_new = fmaxf(m, score);
    const float correction = expf(m - m_new), p = expf(score - m_new);
    l = l * correction + p;
#pragma unroll
    for (int k = 0; k < kMaxDimsPerLane; ++k) {
      const int d = lane + 32 * k;
      if (d < hd) acc[k] = acc[k] * correction + p * kvValue(cache, cache.v, cache.v_scale, row, d);
    }
    m = m_new;
  }
  // Merge the warps: [warp][head_dim + 2] in shared memory.
  extern __shared__ float merge[];
  float* mine = merge + warp * (hd + 2);
#pragma unroll
  for (int k = 0; k < kMaxDimsPerLane; ++k)
    if (lane + 32 * k < hd) mine[lane + 32 * k] = acc[k];
  if (lane == 0) {
    mine[hd] = m;
    mine[hd + 1] = l;
  }
  __syncthreads();
  float* out = partial + ((static_cast<size_t>(i) * n_heads + h) * splits + s) * (hd + 2);
  float mx = -FLT_MAX;
  for (int w = 0; w < kAttnWarps; ++w)
    if (merge[w * (hd + 2) + hd + 1] > 0.f) mx = fmaxf(mx, merge[w * (hd + 2) + hd]);
  for (int d = threadIdx.x; d < hd + 2; d += blockDim.x) {
    float sum = 0.f;
    for (int w = 0; w < kAttnWarps; ++w) {
      const float* part = merge + w * (hd + 2);
      if (part[hd + 1] <= 0.f) continue;  // a warp that saw no position
      const float weight = expf(part[hd] - mx);
      sum += d < hd ? part[d] * weight : d == hd + 1 ? part[hd + 1] * weight : 0.f;
    }
    out[d] = d == hd ? mx : sum;
  }
}

// blockIdx: x head, y position of the pass. out [count, n_heads * head_dim].
__global__ void mergeSplitsKernel(const float* partial, int n_heads, int head_dim, int splits,
                                  float* out) {
  const int h = blockIdx.x, i = blockIdx.y, hd = head_dim;
  const float* parts = partial + (static_cast<size_t>(i) * n_heads + h) * splits * (hd + 2);
  float mx = -FLT_MAX;
  for (int s = 0; s < splits; ++s)
    if (parts[s * (hd + 2) + hd + 1] > 0.f) mx = fmaxf(mx, parts[s * (hd + 2) + hd]);
  float total = 0.f;
  for (int s = 0; s < splits; ++s) {
    const float* p = parts + s * (hd + 2);
    if (p[hd + 1] > 0.f) total += p[hd + 1] * expf(p[hd] - mx);
  }
  for (int d = threadIdx.x; d < hd; d += blockDim.x) {
    float sum = 0.f;
    for (int s = 0; s < splits; ++s) {
      const float* p = parts + s * (hd + 2);
      if (p[hd + 1] > 0.f) sum += p[d] * expf(p[hd] - mx);
    }
    out[(static_cast<size_t>(i) * n_heads + h) * hd + d] = sum / total;
  }
}

__device__ __forceinline__ void put(void* out, size_t i, float v, bool half_out) {
  if (half_out)
    static_cast<__half*>(out)[i] = __float2half_rn(v);
  else
    static_cast<float*>(out)[i] = v;
}

// [count, n_heads, hd] -> [n_heads, count, hd]
__global__ void toHeadMajorKernel(const float* q, int count, int n_heads, int hd, bool half_out,
                                  void* out) {
  const int i = blockIdx.x, h = blockIdx.y;
  for (int d = threadIdx.x; d < hd; d += blockDim.x)
    put(out, (static_cast<size_t>(h) * count + i) * hd + d,
        q[(static_cast<size_t>(i) * n_heads + h) * hd + d], half_out);
}

// cache [t, kv_heads, hd] -> [kv_heads, capacity, hd], t < length
__global__ void kvToHeadMajorKernel(KvLayer c, int capacity, bool half_out, void* k_out,
                                    void* v_out) {
  const int t = blockIdx.x, h = blockIdx.y;
  const size_t row = static_cast<size_t>(t) * c.kv_heads + h;
  const size_t dst = (static_cast<size_t>(h) * capacity + t) * c.head_dim;
  for (int d = threadIdx.x; d < c.head_dim; d += blockDim.x) {
    put(k_out, dst + d, kvValue(c, c.k, c.k_scale, row, d), half_out);
    put(v_out, dst + d, kvValue(c, c.v, c.v_scale, row, d), half_out);
  }
}

// One block per row (head h, position i); scores [n_heads, count, length] already scaled.
__global__ void causalSoftmaxKernel(const float* scores, int n_heads, int count, int length,
                                    int pos, const float* slopes, bool half_out, void* probs) {
  const int i = blockIdx.x, h = blockIdx.y, at = pos + i;
  const size_t base = (static_cast<size_t>(h) * count + i) * length;
  const float slope = slopes ? slopes[h] : 0.f;
  float mx = -FLT_MAX;
  for (int t = threadIdx.x; t <= at; t += blockDim.x)
    mx = fmaxf(mx, scores[base + t] + slope * static_cast<float>(t - at));
  mx = blockReduce(mx, true);
  float sum = 0.f;
  for (int t = threadIdx.x; t <= at; t += blockDim.x)
    sum += expf(scores[base + t] + slope * static_cast<float>(t - at) - mx);
  sum = blockReduce(sum, false);
  for (int t = threadIdx.x; t < length; t += blockDim.x) {
    const float p =
        t <= at ? expf(scores[base + t] + slope * static_cast<float>(t - at) - mx) / sum : 0.f;
    put(probs, base + t, p, half_out);
  }
}

// [n_heads, count, hd] -> [count, n_heads * hd]
__global__ void fromHeadMajorKernel(const float* o, int count, int n_heads, int hd, float* out) {
  const int i = blockIdx.x, h = blockIdx.y;
  for (int d = threadIdx.x; d < hd; d += blockDim.x)
    out[(static_cast<size_t>(i) * n_heads + h) * hd + d] =
        o[(static_cast<size_t>(h) * count + i) * hd + d];
}

int threadsFor(int width) {
  return std::min(1024, std::max(32, (width + 31) / 32 * 32));
}

}  // namespace

void attentionSplitKv(const float* q, int count, int n_heads, const KvLayer& cache,
                      const int* d_pos, const float* slopes, int splits, float* partial, float* out,
                      cudaStream_t stream) {
  if (cache.head_dim > 32 * kMaxDimsPerLane)
    throw CudaError("attention: head_dim " + std::to_string(cache.head_dim) + " above " +
                    std::to_string(32 * kMaxDimsPerLane));
  const size_t shared = kAttnWarps * (cache.head_dim + 2) * sizeof(float);
  splitKvKernel<<<dim3(n_heads, splits, count), kAttnWarps * 32, shared, stream>>>(
      q, n_heads, cache, d_pos, slopes, splits, partial);
  TS_CUDA_LAUNCHED("attention (split KV)");
  mergeSplitsKernel<<<dim3(n_heads, count), threadsFor(cache.head_dim), 0, stream>>>(
      partial, n_heads, cache.head_dim, splits, out);
  TS_CUDA_LAUNCHED("attention (merge splits)");
}

void toHeadMajor(const float* q, int count, int n_heads, int head_dim, bool half_out, void* out,
                 cudaStream_t stream) {
  toHeadMajorKernel<<<dim3(count, n_heads), threadsFor(head_dim), 0, stream>>>(
      q, count, n_heads, head_dim, half_out, out);
  TS_CUDA_LAUNCHED("toHeadMajor");
}

void kvToHeadMajor(const KvLayer& cache, int length, int capacity, bool half_out, void* k_out,
                   void* v_out, cudaStream_t stream) {
  kvToHeadMajorKernel<<<dim3(length, cache.kv_heads), threadsFor(cache.head_dim), 0, stream>>>(
      cache, capacity, half_out, k_out, v_out);
  TS_CUDA_LAUNCHED("kvToHeadMajor");
}

void causalSoftmax(const float* scores, int n_heads, int count, int length, int pos,
                   const float* slopes, bool half_out, void* probs, cudaStream_t stream) {
  causalSoftmaxKernel<<<dim3(count, n_heads), 256, 0, stream>>>(scores, n_heads, count, length, pos,
                                                                slopes, half_out, probs);
  TS_CUDA_LAUNCHED("causalSoftmax");
}

void fromHeadMajor(const float* o, int count, int n_heads, int head_dim, float* out,
                   cudaStream_t stream) {
  fromHeadMajorKernel<<<dim3(count, n_heads), threadsFor(head_dim), 0, stream>>>(o, count, n_heads,
                                                                                 head_dim, out);
  TS_CUDA_LAUNCHED("fromHeadMajor");
}

}  // namespace ts::cuda
