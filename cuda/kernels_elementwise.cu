// Element-wise and per-row kernels: embedding gather, RMSNorm, RoPE with the KV-cache
// write, SwiGLU, cache clearing and read-back, f16 conversions and seeded fills.
#include <cuda_fp16.h>

#include <cmath>

#include "cuda/block_reduce.cuh"
#include "cuda/cuda_check.h"
#include "cuda/kernels.h"
#include "inference/engine/backend/plugin_abi.h"
#include "inference/engine/model/kv_int8.h"

namespace ts::cuda {
namespace {

constexpr int kThreads = 256;

unsigned blocksFor(size_t n, int threads = kThreads) {
  return static_cast<unsigned>((n + threads - 1) / threads);
}

__global__ void embeddingKernel(const float* table, int dim, const int* tokens, float* out) {
  const float* row = table + static_cast<size_t>(tokens[blockIdx.y]) * dim;
  float* dst = out + static_cast<size_t>(blockIdx.y) * dim;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < dim; i += gridDim.x * blockDim.x)
    dst[i] = row[i];
}

__global__ void rmsnormKernel(const float* x, const float* w, int dim, float eps, float* out) {
  const float* row = x + static_cast<size_t>(blockIdx.x) * dim;
  float ss = 0.f;
  for (int i = threadIdx.x; i < dim; i += blockDim.x) ss += row[i] * row[i];
  const float scale = 1.0f / sqrtf(blockReduce(ss, false) / dim + eps);
  float* dst = out + static_cast<size_t>(blockIdx.x) * dim;
  for (int i = threadIdx.x; i < dim; i += blockDim.x) dst[i] = w[i] * (row[i] * scale);
}

// Pair i of a head at position `at`: the angle pos * theta^(-i / rope_dim), as the CPU.
__device__ void rotatePairs(float* head, int rope_dim, int at, float theta) {
  for (int i = 2 * threadIdx.x; i < rope_dim; i += 2 * blockDim.x) {
    const float freq = powf(theta, -static_cast<float>(i) / rope_dim);
    float s, c;
    sincosf(at * freq, &s, &c);
    const float a = head[i], b = head[i + 1];
    head[i] = a * c - b * s;
    head[i + 1] = a * s + b * c;
  }
}

__device__ void storeRow(const float* src, int head_dim, int format, void* values, float* scales,
                         size_t row) {
  if (format == TS_CUDA_KV_F32) {
    float* dst = static_cast<float*>(values) + row * head_dim;
    for (int d = threadIdx.x; d < head_dim; d += blockDim.x) dst[d] = src[d];
  } else if (format == TS_CUDA_KV_F16) {
    __half* dst = static_cast<__half*>(values) + row * head_dim;
    for (int d = threadIdx.x; d < head_dim; d += blockDim.x) dst[d] = __float2half_rn(src[d]);
  } else {
    float amax = 0.f;
    for (int d = threadIdx.x; d < head_dim; d += blockDim.x) amax = fmaxf(amax, fabsf(src[d]));
    amax = blockReduce(amax, true);
    const float scale = kv_int8::scaleFor(amax);
    int8_t* dst = static_cast<int8_t*>(values) + row * head_dim;
    for (int d = threadIdx.x; d < head_dim; d += blockDim.x)
      dst[d] = kv_int8::quantize(src[d], scale);  // the CPU cache's rule, bit for bit
    if (threadIdx.x == 0) scales[row] = scale;
  }
}

// blockIdx.x: position i of the pass; blockIdx.y < kv_heads: rotate and store K (and V)
// of that KV head; otherwise rotate query head blockIdx.y - kv_heads.
__global__ void ropeStoreKvKernel(float* q, float* k, const float* v, int n_heads, int rope_dim,
                                  float theta, const int* d_pos, KvLayer cache) {
  const int i = blockIdx.x, hd = cache.head_dim, at = *d_pos + i;
  if (static_cast<int>(blockIdx.y) >= cache.kv_heads) {
    if (rope_dim == 0) return;
    const int h = blockIdx.y - cache.kv_heads;
    rotatePairs(q + (static_cast<size_t>(i) * n_heads + h) * hd, rope_dim, at, theta);
    return;
  }
  const int h = blockIdx.y;
  float* krow = k + (static_cast<size_t>(i) * cache.kv_heads + h) * hd;
  if (rope_dim > 0) {
    rotatePairs(krow, rope_dim, at, theta);
    __syncthreads();  // every pair rotated before the row is read whole (int8 amax)
  }
  const size_t row = static_cast<size_t>(at) * cache.kv_heads + h;
  storeRow(krow, hd, cache.format, cache.k, cache.k_scale, row);
  storeRow(v + (static_cast<size_t>(i) * cache.kv_heads + h) * hd, hd, cache.format, cache.v,
           cache.v_scale, row);
}

__global__ void ropeKernel(float* x, int n_heads, int head_dim, int rope_dim, float theta,
                           const int* d_pos) {
  const int i = blockIdx.x, h = blockIdx.y;
  rotatePairs(x + (static_cast<size_t>(i) * n_heads + h) * head_dim, rope_dim, *d_pos + i, theta);
}

__global__ void swigluKernel(const float* gate, const float* up, size_t n, float* out) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const float g = gate[i];
    out[i] = g / (1.0f + expf(-g)) * up[i];
  }
}

size_t kvValueBytes(int format) {
  return format == TS_CUDA_KV_F32 ? 4 : format == TS_CUDA_KV_F16 ? 2 : 1;
}

__global__ void kvReadKernel(KvLayer cache, int length, float* k_out, float* v_out) {
  const size_t n = static_cast<size_t>(length) * cache.kv_heads * cache.head_dim;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const size_t row = i / cache.head_dim;
    if (cache.format == TS_CUDA_KV_F32) {
      k_out[i] = static_cast<const float*>(cache.k)[i];
      v_out[i] = static_cast<const float*>(cache.v)[i];
    } else if (cache.format == TS_CUDA_KV_F16) {
      k_out[i] = __half2float(static_cast<const __half*>(cache.k)[i]);
      v_out[i] = __half2float(static_cast<const __half*>(cache.v)[i]);
    } else {
      k_out[i] = static_cast<const int8_t*>(cache.k)[i] * cache.k_scale[row];
      v_out[i] = static_cast<const int8_t*>(cache.v)[i] * cache.v_scale[row];
    }
  }
}

__global__ void toHalfKernel(const float* x, size_t n, __half* out) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    out[i] = __float2half_rn(x[i]);
}

// splitmix64 of (seed, index): independent of the launch shape.
__device__ uint64_t mix(uint64_t seed, uint64_t i) {
  uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
__device__ float uniform(uint64_t seed, uint64_t i, float amplitude) {
  return ((mix(seed, i) >> 40) * (1.0f / 16777216.0f) * 2.f - 1.f) * amplitude;
}

__global__ void fillUniformKernel(float* x, size_t n, uint64_t seed, float amplitude) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    x[i] = uniform(seed, i, amplitude);
}
__global__ void fillUniformHalfKernel(__half* x, size_t n, uint64_t seed, float amplitude) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    x[i] = __float2half_rn(uniform(seed, i, amplitude));
}
__global__ void fillBytesKernel(uint8_t* x, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    x[i] = static_cast<uint8_t>(mix(seed, i) >> 56);
}
__global__ void fillConstantKernel(float* x, size_t n, float value) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    x[i] = value;
}

// Random stored rows: bytes already random; each block's f16 scales set so the values span
// about [-amplitude, amplitude] (random bytes there would give NaN and infinities); BF16
// element by element.
__global__ void fixStoredScalesKernel(int format, uint8_t* x, size_t blocks, uint64_t seed,
                                      float amplitude) {
  for (size_t b = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; b < blocks;
       b += static_cast<size_t>(gridDim.x) * blockDim.x) {
    uint8_t* block = x + b * storedBlockBytes(format);
    if (format == TS_CUDA_W_BF16) {
      const uint32_t bits = __float_as_uint(uniform(seed, b, amplitude));
      block[0] = static_cast<uint8_t>(bits >> 16);
      block[1] = static_cast<uint8_t>(bits >> 24);
      continue;
    }
    float d = amplitude / 8.f;  // Q4_0: nibbles - 8
    int at = 0;
    if (format == TS_CUDA_W_GGUF_Q8_0) d = amplitude / 128.f;
    // K-quants: value = d * scale * q - dmin * min (6-bit scale and min, q 4 or 5 bits):
    // dmin = d * (the quants' midpoint) centres them.
    float dmin = 0.f;
    if (format == TS_CUDA_W_GGUF_Q4_K) d = amplitude / (63.f * 15.f), dmin = 7.5f * d;
    if (format == TS_CUDA_W_GGUF_Q5_K) d = amplitude / (63.f * 31.f), dmin = 15.5f * d;
    if (format == TS_CUDA_W_GGUF_Q6_K) d = amplitude / (127.f * 32.f), at = 208;
    const unsigned short h = __half_as_ushort(__float2half_rn(d));
    block[at] = static_cast<uint8_t>(h), block[at + 1] = static_cast<uint8_t>(h >> 8);
    if (dmin > 0.f) {
      const unsigned short hm = __half_as_ushort(__float2half_rn(dmin));
      block[2] = static_cast<uint8_t>(hm), block[3] = static_cast<uint8_t>(hm >> 8);
    }
  }
}

unsigned gridFor(size_t n) {  // grid-stride loops: enough blocks to fill any device
  return static_cast<unsigned>(std::min<size_t>(blocksFor(n), 65535));
}

int rowThreads(int width) {  // a multiple of 32 covering `width` up to 1024
  return std::min(1024, std::max(32, (width + 31) / 32 * 32));
}

}  // namespace

void embeddingGather(const float* table, int dim, const int* tokens, int count, float* out,
                     cudaStream_t stream) {
  embeddingKernel<<<dim3(blocksFor(dim), count), kThreads, 0, stream>>>(table, dim, tokens, out);
  TS_CUDA_LAUNCHED("embeddingGather");
}

void rmsnorm(const float* x, const float* w, int count, int dim, float eps, float* out,
             cudaStream_t stream) {
  rmsnormKernel<<<count, rowThreads(dim / 4), 0, stream>>>(x, w, dim, eps, out);
  TS_CUDA_LAUNCHED("rmsnorm");
}

void ropeStoreKv(float* q, float* k, const float* v, int count, int n_heads, int rope_dim,
                 float theta, const int* d_pos, const KvLayer& cache, cudaStream_t stream) {
  ropeStoreKvKernel<<<dim3(count, cache.kv_heads + n_heads), rowThreads(cache.head_dim), 0,
                      stream>>>(q, k, v, n_heads, rope_dim, theta, d_pos, cache);
  TS_CUDA_LAUNCHED("ropeStoreKv");
}

void rope(float* x, int count, int n_heads, int head_dim, int rope_dim, float theta,
          const int* d_pos, cudaStream_t stream) {
  ropeKernel<<<dim3(count, n_heads), rowThreads(rope_dim / 2), 0, stream>>>(x, n_heads, head_dim,
                                                                            rope_dim, theta, d_pos);
  TS_CUDA_LAUNCHED("rope");
}

void swiglu(const float* gate, const float* up, size_t n, float* out, cudaStream_t stream) {
  swigluKernel<<<gridFor(n), kThreads, 0, stream>>>(gate, up, n, out);
  TS_CUDA_LAUNCHED("swiglu");
}

void kvClear(const KvLayer& first, int layers, int positions, int from, int to,
             cudaStream_t stream) {
  if (from >= to) return;
  const size_t rows_per_layer = static_cast<size_t>(positions) * first.kv_heads;
  const size_t row_bytes = first.head_dim * kvValueBytes(first.format);
  const size_t begin = static_cast<size_t>(from) * first.kv_heads,
               n = static_cast<size_t>(to - from) * first.kv_heads;
  // One memset per layer and array: layer l's rows start rows_per_layer later. (One 2D
  // memset over all layers would need a pitch of a whole layer's bytes, beyond the
  // maximum pitch at long contexts.)
  for (int l = 0; l < layers; ++l) {
    const size_t at = l * rows_per_layer + begin;
    for (void* base : {first.k, first.v})
      TS_CUDA(cudaMemsetAsync(static_cast<char*>(base) + at * row_bytes, 0, n * row_bytes, stream));
    if (first.format == TS_CUDA_KV_INT8)
      for (float* base : {first.k_scale, first.v_scale})
        TS_CUDA(cudaMemsetAsync(base + at, 0, n * 4, stream));
  }
}

void kvRead(const KvLayer& cache, int length, float* k_out, float* v_out, cudaStream_t stream) {
  const size_t n = static_cast<size_t>(length) * cache.kv_heads * cache.head_dim;
  kvReadKernel<<<gridFor(n), kThreads, 0, stream>>>(cache, length, k_out, v_out);
  TS_CUDA_LAUNCHED("kvRead");
}

void toHalf(const float* x, size_t n, __half* out, cudaStream_t stream) {
  toHalfKernel<<<gridFor(n), kThreads, 0, stream>>>(x, n, out);
  TS_CUDA_LAUNCHED("toHalf");
}

void fillUniform(float* x, size_t n, uint64_t seed, float amplitude, cudaStream_t stream) {
  fillUniformKernel<<<gridFor(n), kThreads, 0, stream>>>(x, n, seed, amplitude);
  TS_CUDA_LAUNCHED("fillUniform");
}
void fillUniformHalf(__half* x, size_t n, uint64_t seed, float amplitude, cudaStream_t stream) {
  fillUniformHalfKernel<<<gridFor(n), kThreads, 0, stream>>>(x, n, seed, amplitude);
  TS_CUDA_LAUNCHED("fillUniformHalf");
}
void fillBytes(uint8_t* x, size_t n, uint64_t seed, cudaStream_t stream) {
  fillBytesKernel<<<gridFor(n), kThreads, 0, stream>>>(x, n, seed);
  TS_CUDA_LAUNCHED("fillBytes");
}
void fillStoredRandom(int format, uint8_t* x, int rows, int cols, uint64_t seed, float amplitude,
                      cudaStream_t stream) {
  const size_t bytes = static_cast<size_t>(rows) * storedRowBytes(format, cols);
  fillBytes(x, bytes, seed, stream);
  const size_t blocks = bytes / storedBlockBytes(format);
  fixStoredScalesKernel<<<gridFor(blocks), kThreads, 0, stream>>>(format, x, blocks, seed,
                                                                  amplitude);
  TS_CUDA_LAUNCHED("fillStoredRandom");
}
void fillConstant(float* x, size_t n, float value, cudaStream_t stream) {
  fillConstantKernel<<<gridFor(n), kThreads, 0, stream>>>(x, n, value);
  TS_CUDA_LAUNCHED("fillConstant");
}

}  // namespace ts::cuda
