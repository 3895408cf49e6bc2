// Single ops on host arrays for the self-test: upload, poison the output, run the same
// launcher the session runs, download. Each returns its error through the C wrappers in
// plugin_api.cu.
#include "cuda/plugin_ops.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "cuda/blas.h"
#include "cuda/device_buffer.h"
#include "cuda/kernels.h"
#include "inference/engine/backend/memory_estimate.h"

namespace ts::cuda {
namespace {

// A stream for one op, synchronised and destroyed on scope exit.
struct OpStream {
  cudaStream_t s = nullptr;
  OpStream() { TS_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~OpStream() {
    if (s) cudaStreamDestroy(s);
  }
  void sync() { TS_CUDA(cudaStreamSynchronize(s)); }
};

DeviceBuffer poisoned(size_t floats) {
  DeviceBuffer d(floats * sizeof(float));
  poison(d.get(), d.bytes());
  return d;
}

DeviceBuffer uploadInt(int value) {
  return upload(&value, 1);
}

}  // namespace

void opEmbedding(const float* table, int vocab, int dim, const int* tokens, int count, float* out) {
  for (int i = 0; i < count; ++i)
    if (tokens[i] < 0 || tokens[i] >= vocab) throw CudaError("token outside the vocabulary");
  OpStream stream;
  DeviceBuffer d_table = upload(table, static_cast<size_t>(vocab) * dim);
  DeviceBuffer d_tokens = upload(tokens, count);
  DeviceBuffer d_out = poisoned(static_cast<size_t>(count) * dim);
  embeddingGather(d_table.as<float>(), dim, d_tokens.as<int>(), count, d_out.as<float>(), stream.s);
  stream.sync();
  download(out, d_out.get(), static_cast<size_t>(count) * dim);
}

void opRmsnorm(const float* x, const float* weight, int count, int dim, float eps, float* out) {
  OpStream stream;
  const size_t n = static_cast<size_t>(count) * dim;
  DeviceBuffer d_x = upload(x, n), d_w = upload(weight, dim), d_out = poisoned(n);
  rmsnorm(d_x.as<float>(), d_w.as<float>(), count, dim, eps, d_out.as<float>(), stream.s);
  stream.sync();
  download(out, d_out.get(), n);
}

void opRope(float* x, int count, int n_heads, int head_dim, int rope_dim, int pos, float theta) {
  OpStream stream;
  const size_t n = static_cast<size_t>(count) * n_heads * head_dim;
  DeviceBuffer d_x = upload(x, n), d_pos = uploadInt(pos);
  rope(d_x.as<float>(), count, n_heads, head_dim, rope_dim, theta, d_pos.as<int>(), stream.s);
  stream.sync();
  download(x, d_x.get(), n);
}

void opSwiglu(const float* gate, const float* up, size_t n, float* out) {
  OpStream stream;
  DeviceBuffer d_gate = upload(gate, n), d_up = upload(up, n), d_out = poisoned(n);
  swiglu(d_gate.as<float>(), d_up.as<float>(), n, d_out.as<float>(), stream.s);
  stream.sync();
  download(out, d_out.get(), n);
}

void opMatmul(const TsCudaMatrix& w, const float* x, int count, const float* residual, int path,
              float* out) {
  const bool use_matvec = path == 1 || (path == 0 && count <= kMaxMatvecTokens);
  if (use_matvec && count > kMaxMatvecTokens)
    throw CudaError("matvec path: " + std::to_string(count) + " positions, at most " +
                    std::to_string(kMaxMatvecTokens));
  OpStream stream;
  DeviceMatrix m = deviceShape(w);
  DeviceBuffer d_data =
      upload(static_cast<const uint8_t*>(w.data), matrixDataBytes(w.format, w.rows, w.cols));
  DeviceBuffer d_scales;
  if (const size_t s = matrixScaleBytes(w.format, w.rows, w.cols, w.group))
    d_scales = upload(w.scales, s / 4);
  m.data = d_data.get();
  m.scales = d_scales.as<float>();
  const size_t out_n = static_cast<size_t>(count) * w.rows;
  DeviceBuffer d_x = upload(x, static_cast<size_t>(count) * w.cols);
  DeviceBuffer d_out = residual ? upload(residual, out_n) : poisoned(out_n);
  if (use_matvec) {
    MatvecJob job;
    job.m[0] = m;
    job.out[0] = d_out.as<float>();
    matvec(job, d_x.as<float>(), count, residual ? Epilogue::Accumulate : Epilogue::Store,
           stream.s);
  } else {
    DeviceBuffer weights(static_cast<size_t>(w.rows) * w.cols * 2),
        input(static_cast<size_t>(count) * w.cols * 2);
    BlasScratch scratch;
    scratch.weights = weights.as<__half>();
    scratch.input = input.as<__half>();
    Blas blas(stream.s);
    blas.multiply(m, d_x.as<float>(), count, d_out.as<float>(), residual != nullptr, scratch);
    stream.sync();
  }
  stream.sync();
  download(out, d_out.get(), out_n);
}

void opAttention(const TsCudaAttentionOp& op) {
  const bool split = op.path == 1 || (op.path == 0 && op.count <= kMaxMatvecTokens);
  if (split && op.count > kMaxMatvecTokens)
    throw CudaError("split-KV path: " + std::to_string(op.count) + " positions, at most " +
                    std::to_string(kMaxMatvecTokens));
  OpStream stream;
  const int length = op.pos + op.count, hd = op.head_dim;
  const size_t kv_n = static_cast<size_t>(length) * op.n_kv_heads * hd;
  const size_t q_n = static_cast<size_t>(op.count) * op.n_heads * hd;
  const size_t value = op.kv_format == TS_CUDA_KV_F32 ? 4 : op.kv_format == TS_CUDA_KV_F16 ? 2 : 1;
  DeviceBuffer k_cache(kv_n * value), v_cache(kv_n * value), k_scale(kv_n / hd * 4 + 4),
      v_scale(kv_n / hd * 4 + 4);
  KvLayer cache;
  cache.format = op.kv_format, cache.kv_heads = op.n_kv_heads, cache.head_dim = hd;
  cache.k = k_cache.get(), cache.v = v_cache.get();
  cache.k_scale = k_scale.as<float>(), cache.v_scale = v_scale.as<float>();
  // Store every position's K and V through the session's write kernel (no rotation).
  DeviceBuffer d_k = upload(op.k, kv_n), d_v = upload(op.v, kv_n), zero = uploadInt(0);
  ropeStoreKv(nullptr, d_k.as<float>(), d_v.as<float>(), length, 0, 0, 0.f, zero.as<int>(), cache,
              stream.s);
  DeviceBuffer d_q = upload(op.q, q_n), d_out = poisoned(q_n), d_pos = uploadInt(op.pos);
  DeviceBuffer d_slopes;
  if (op.alibi_slopes) d_slopes = upload(op.alibi_slopes, op.n_heads);
  if (split) {
    const int splits = attentionSplits(length);
    DeviceBuffer partial(static_cast<size_t>(op.count) * op.n_heads * splits * (hd + 2) * 4);
    attentionSplitKv(d_q.as<float>(), op.count, op.n_heads, cache, d_pos.as<int>(),
                     d_slopes.as<float>(), splits, partial.as<float>(), d_out.as<float>(),
                     stream.s);
    stream.sync();
  } else {
    const size_t B = op.count, P = length, KV = static_cast<size_t>(op.n_kv_heads) * hd;
    DeviceBuffer q(B * op.n_heads * hd * 4), k(P * KV * 4), v(P * KV * 4),
        scores(op.n_heads * B * P * 4), probs(op.n_heads * B * P * 4), o(B * op.n_heads * hd * 4);
    BlasScratch scratch;
    scratch.q = q.get(), scratch.k = k.get(), scratch.v = v.get();
    scratch.scores = scores.as<float>(), scratch.probs = probs.get(), scratch.o = o.as<float>();
    Blas blas(stream.s);
    blas.attention(d_q.as<float>(), op.count, op.pos, op.n_heads, cache, length,
                   d_slopes.as<float>(), scratch, d_out.as<float>());
    stream.sync();
  }
  download(op.out, d_out.get(), q_n);
  if (op.k_read && op.v_read) {
    DeviceBuffer k_back = poisoned(kv_n), v_back = poisoned(kv_n);
    kvRead(cache, length, k_back.as<float>(), v_back.as<float>(), stream.s);
    stream.sync();
    download(op.k_read, k_back.get(), kv_n);
    download(op.v_read, v_back.get(), kv_n);
  }
}

double copyBandwidth(int device, size_t bytes, int iterations) {
  TS_CUDA(cudaSetDevice(device));
  OpStream stream;
  DeviceBuffer src(bytes), dst(bytes);
  TS_CUDA(cudaMemsetAsync(src.get(), 1, bytes, stream.s));
  cudaEvent_t begin, end;
  TS_CUDA(cudaEventCreate(&begin));
  TS_CUDA(cudaEventCreate(&end));
  std::vector<float> ms;
  for (int i = 0; i < iterations + 1; ++i) {  // the first copy warms up
    TS_CUDA(cudaEventRecord(begin, stream.s));
    TS_CUDA(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, stream.s));
    TS_CUDA(cudaEventRecord(end, stream.s));
    TS_CUDA(cudaEventSynchronize(end));
    float t = 0;
    TS_CUDA(cudaEventElapsedTime(&t, begin, end));
    if (i > 0) ms.push_back(t);
  }
  cudaEventDestroy(begin);
  cudaEventDestroy(end);
  std::sort(ms.begin(), ms.end());
  const double median = ms[ms.size() / 2];
  return 2.0 * bytes / (median * 1e-3) / 1e9;  // read + written
}

}  // namespace ts::cuda
