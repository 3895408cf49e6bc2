// Fused dequantize-and-multiply for decode and small passes (up to kMaxMatvecTokens = 9
// positions: a speculative verify of 8 drafts and the position before): one warp per output row,
// each lane streaming 16-byte chunks of the row in its stored format and multiplying them with
// every position's activations, so the weights are read once per pass whatever the number of
// positions. Four warps per block; a 4096-row matrix is 1024 blocks, enough to keep every SM of an
// H200 loading.
#include <cuda_fp16.h>

#include "cuda/cuda_check.h"
#include "cuda/kernels.h"
#include "inference/engine/backend/memory_estimate.h"
#include "inference/engine/backend/plugin_abi.h"

namespace ts::cuda {
namespace {

constexpr int kWarps = 4;

// acc[t] += sum over e < n of w[e] * x[t * xs + col + e], cols past `cols` skipped.
template <int T>
__device__ __forceinline__ void addChunk(const float* w, int n, const float* x, int xs, int col,
                                         int cols, bool vector_x, float (&acc)[T]) {
  if (vector_x && col + n <= cols) {
#pragma unroll
    for (int t = 0; t < T; ++t) {
      const float4* xv = reinterpret_cast<const float4*>(x + static_cast<size_t>(t) * xs + col);
      float s = 0.f;
      for (int e = 0; e < n / 4; ++e) {
        const float4 v = __ldg(xv + e);
        s += w[4 * e] * v.x + w[4 * e + 1] * v.y + w[4 * e + 2] * v.z + w[4 * e + 3] * v.w;
      }
      acc[t] += s;
    }
    return;
  }
  for (int e = 0; e < n && col + e < cols; ++e)
#pragma unroll
    for (int t = 0; t < T; ++t) acc[t] += w[e] * __ldg(x + static_cast<size_t>(t) * xs + col + e);
}

// The dot products of row r of m with T activation rows x [T, m.cols] into acc (this lane's
// share; the warp sums them).
template <int F, int T>
__device__ void rowDot(const DeviceMatrix& m, int r, const float* x, float (&acc)[T]) {
  const int lane = threadIdx.x % 32, cols = m.cols;
  const bool vector_x = cols % 4 == 0;  // every x row starts 16-byte aligned
  float w[16];
  if constexpr (F == TS_CUDA_W_F32 || F == TS_CUDA_W_F16) {
    constexpr int per = F == TS_CUDA_W_F32 ? 4 : 8;  // elements per 16 bytes
    if (cols % per == 0) {
      const uint4* row = reinterpret_cast<const uint4*>(static_cast<const char*>(m.data) +
                                                        static_cast<size_t>(r) * cols * (16 / per));
      for (int c = lane; c < cols / per; c += 32) {
        const uint4 raw = __ldg(row + c);
        if constexpr (F == TS_CUDA_W_F32) {
          const float* f = reinterpret_cast<const float*>(&raw);
          for (int e = 0; e < 4; ++e) w[e] = f[e];
        } else {
          const __half2* h = reinterpret_cast<const __half2*>(&raw);
          for (int e = 0; e < 4; ++e) {
            const float2 f = __half22float2(h[e]);
            w[2 * e] = f.x;
            w[2 * e + 1] = f.y;
          }
        }
        addChunk<T>(w, per, x, cols, c * per, cols, vector_x, acc);
      }
    } else {  // rows not 16-byte aligned: element by element
      for (int c = lane; c < cols; c += 32) {
        const size_t i = static_cast<size_t>(r) * cols + c;
        w[0] = F == TS_CUDA_W_F32 ? static_cast<const float*>(m.data)[i]
                                  : __half2float(static_cast<const __half*>(m.data)[i]);
        addChunk<T>(w, 1, x, cols, c, cols, false, acc);
      }
    }
  } else if constexpr (F == TS_CUDA_W_INT8 || F == TS_CUDA_W_Q8_0) {
    const uint4* row = reinterpret_cast<const uint4*>(static_cast<const int8_t*>(m.data) +
                                                      static_cast<size_t>(r) * m.padded);
    for (int c = lane; c * 16 < cols; c += 32) {
      const uint4 raw = __ldg(row + c);
      const int8_t* q = reinterpret_cast<const int8_t*>(&raw);
      // int8: the row's scale is applied once at the end; q8_0: one scale per 32 inputs.
      const float s =
          F == TS_CUDA_W_Q8_0 ? m.scales[static_cast<size_t>(r) * m.groups + c / 2] : 1.f;
      for (int e = 0; e < 16; ++e) w[e] = q[e] * s;
      addChunk<T>(w, 16, x, cols, c * 16, cols, vector_x, acc);
    }
    if constexpr (F == TS_CUDA_W_INT8) {
      const float s = m.scales[r];
#pragma unroll
      for (int t = 0; t < T; ++t) acc[t] *= s;
    }
  } else if constexpr (F >= TS_CUDA_W_GGUF_Q4_0) {  // a GGUF's rows as stored
    // Lane by lane over the row's 32-element sub-blocks (gguf_subblocks.h, the same code as
    // the self-test's CPU twin): a 4096-wide row is 128 of them, four per lane.
    const uint8_t* row =
        static_cast<const uint8_t*>(m.data) + static_cast<size_t>(r) * storedRowBytes(F, cols);
    float w32[32];
    for (int j = lane; j < cols / 32; j += 32) {
      decodeSubBlock(F, row, j, w32);
      addChunk<T>(w32, 32, x, cols, j * 32, cols, vector_x, acc);
    }
  } else {  // int4: chunk c is half of the 32-byte pair p = c / 2
    const uint4* row = reinterpret_cast<const uint4*>(static_cast<const uint8_t*>(m.data) +
                                                      static_cast<size_t>(r) * m.padded / 2);
    const float* scales = m.scales + static_cast<size_t>(r) * m.groups;
    for (int c = lane; c < m.padded / 32; c += 32) {
      const int lo = 64 * (c / 2) + 16 * (c % 2), hi = lo + 32;  // first inputs of each half
      if (lo >= cols) break;                                     // padding from here on
      const uint4 raw = __ldg(row + c);
      const uint8_t* b = reinterpret_cast<const uint8_t*>(&raw);
      const float s_lo = scales[lo / m.group];
      for (int e = 0; e < 16; ++e) w[e] = static_cast<int>(b[e] & 15) - 8;
      float part[T];
#pragma unroll
      for (int t = 0; t < T; ++t) part[t] = 0.f;
      addChunk<T>(w, 16, x, cols, lo, cols, vector_x, part);
#pragma unroll
      for (int t = 0; t < T; ++t) acc[t] += s_lo * part[t];
      if (hi < cols) {
        const float s_hi = scales[hi / m.group];
        for (int e = 0; e < 16; ++e) w[e] = static_cast<int>(b[e] >> 4) - 8;
#pragma unroll
        for (int t = 0; t < T; ++t) part[t] = 0.f;
        addChunk<T>(w, 16, x, cols, hi, cols, vector_x, part);
#pragma unroll
        for (int t = 0; t < T; ++t) acc[t] += s_hi * part[t];
      }
    }
  }
}

template <int T>
__device__ void warpSum(float (&acc)[T]) {
#pragma unroll
  for (int t = 0; t < T; ++t)
    for (int o = 16; o > 0; o >>= 1) acc[t] += __shfl_xor_sync(0xffffffffu, acc[t], o);
}

template <int F, int T>
__global__ void __launch_bounds__(kWarps * 32)
    matvecKernel(MatvecJob job, const float* __restrict__ x, int total_rows, Epilogue epilogue) {
  int row = blockIdx.x * kWarps + threadIdx.x / 32;
  if (row >= total_rows) return;
  const int lane = threadIdx.x % 32;
  if (epilogue == Epilogue::SwiGlu) {
    float g[T] = {}, u[T] = {};
    rowDot<F, T>(job.m[0], row, x, g);
    rowDot<F, T>(job.m[1], row, x, u);
    warpSum<T>(g);
    warpSum<T>(u);
    const int rows = job.m[0].rows;
#pragma unroll
    for (int t = 0; t < T; ++t)
      if (lane == t)
        job.out[0][static_cast<size_t>(t) * rows + row] = g[t] / (1.0f + expf(-g[t])) * u[t];
    return;
  }
  int j = 0;  // the matrix this row belongs to, rows stacked m[0], m[1], m[2]
  while (row >= job.m[j].rows) row -= job.m[j++].rows;
  float acc[T] = {};
  rowDot<F, T>(job.m[j], row, x, acc);
  warpSum<T>(acc);
  const int rows = job.m[j].rows;
#pragma unroll
  for (int t = 0; t < T; ++t)
    if (lane == t) {
      float& out = job.out[j][static_cast<size_t>(t) * rows + row];
      out = epilogue == Epilogue::Accumulate ? out + acc[t] : acc[t];
    }
}

template <int F>
void launchFormat(const MatvecJob& job, const float* x, int tokens, int total_rows,
                  Epilogue epilogue, cudaStream_t stream) {
  const unsigned blocks = (total_rows + kWarps - 1) / kWarps;
  switch (tokens) {
#define TS_MATVEC_CASE(T)                                                                 \
  case T:                                                                                 \
    matvecKernel<F, T><<<blocks, kWarps * 32, 0, stream>>>(job, x, total_rows, epilogue); \
    break;
    TS_MATVEC_CASE(1)
    TS_MATVEC_CASE(2)
    TS_MATVEC_CASE(3)
    TS_MATVEC_CASE(4)
    TS_MATVEC_CASE(5)
    TS_MATVEC_CASE(6)
    TS_MATVEC_CASE(7)
    TS_MATVEC_CASE(8)
    TS_MATVEC_CASE(9)
#undef TS_MATVEC_CASE
    default:
      throw CudaError("matvec: " + std::to_string(tokens) + " positions in one pass, at most " +
                      std::to_string(kMaxMatvecTokens));
  }
}

}  // namespace

void matvec(const MatvecJob& job, const float* x, int tokens, Epilogue epilogue,
            cudaStream_t stream) {
  // One launch reads every matrix in one format: a job whose matrices differ (a K-quant mix
  // stores some attn_v as Q6_K beside Q4_K siblings) must be split by the caller
  // (Session::projectQkv and gatedFfn, after layerLaunches), never read in the first
  // one's layout.
  const int count = epilogue == Epilogue::SwiGlu ? 2 : job.count;
  for (int j = 1; j < count; ++j)
    if (job.m[j].format != job.m[0].format)
      throw CudaError("matvec: a fused job of formats " + std::to_string(job.m[0].format) +
                      " and " + std::to_string(job.m[j].format) +
                      " (expected one format; split the job)");
  int total_rows = job.m[0].rows;
  if (epilogue != Epilogue::SwiGlu)
    for (int j = 1; j < job.count; ++j) total_rows += job.m[j].rows;
  switch (job.m[0].format) {
    case TS_CUDA_W_F32:
      launchFormat<TS_CUDA_W_F32>(job, x, tokens, total_rows, epilogue, stream);
      break;
    case TS_CUDA_W_F16:
      launchFormat<TS_CUDA_W_F16>(job, x, tokens, total_rows, epilogue, stream);
      break;
    case TS_CUDA_W_INT8:
      launchFormat<TS_CUDA_W_INT8>(job, x, tokens, total_rows, epilogue, stream);
      break;
    case TS_CUDA_W_INT4:
      launchFormat<TS_CUDA_W_INT4>(job, x, tokens, total_rows, epilogue, stream);
      break;
    case TS_CUDA_W_Q8_0:
      launchFormat<TS_CUDA_W_Q8_0>(job, x, tokens, total_rows, epilogue, stream);
      break;
    case TS_CUDA_W_GGUF_Q4_0:
      launchFormat<TS_CUDA_W_GGUF_Q4_0>(job, x, tokens, total_rows, epilogue, stream);
      break;
    case TS_CUDA_W_GGUF_Q8_0:
      launchFormat<TS_CUDA_W_GGUF_Q8_0>(job, x, tokens, total_rows, epilogue, stream);
      break;
    case TS_CUDA_W_GGUF_Q4_K:
      launchFormat<TS_CUDA_W_GGUF_Q4_K>(job, x, tokens, total_rows, epilogue, stream);
      break;
    case TS_CUDA_W_GGUF_Q5_K:
      launchFormat<TS_CUDA_W_GGUF_Q5_K>(job, x, tokens, total_rows, epilogue, stream);
      break;
    case TS_CUDA_W_GGUF_Q6_K:
      launchFormat<TS_CUDA_W_GGUF_Q6_K>(job, x, tokens, total_rows, epilogue, stream);
      break;
    case TS_CUDA_W_BF16:
      launchFormat<TS_CUDA_W_BF16>(job, x, tokens, total_rows, epilogue, stream);
      break;
    default:
      throw CudaError("matvec: unknown weight format " + std::to_string(job.m[0].format));
  }
  TS_CUDA_LAUNCHED("matvec");
}

}  // namespace ts::cuda
