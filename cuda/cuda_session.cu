#include "cuda/cuda_session.h"

#include <cmath>
#include <cstring>

#include "inference/engine/backend/memory_estimate.h"

namespace ts::cuda {
namespace {

constexpr float kRandomAmplitude = 0.035f;  // uniform weights with std ~0.02

std::string gib(size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GiB", bytes / 1073741824.0);
  return text;
}

}  // namespace

Session::Session(const TsCudaModel& m, const TsCudaSessionOptions& o)
    : options_(o),
      n_layers_(m.n_layers),
      dim_(m.dim),
      n_heads_(m.n_heads),
      n_kv_heads_(m.n_kv_heads),
      head_dim_(m.head_dim),
      ffn_dim_(m.ffn_dim),
      vocab_(m.vocab),
      rope_dim_(m.alibi_slopes ? 0 : m.rope_dim),
      eps_(m.rms_eps),
      theta_(m.rope_theta),
      seed_(m.random_seed),
      splits_(attentionSplits(o.max_positions)) {
  options_.max_batch = std::max(1, o.max_batch);
  if (syncChecking()) options_.use_graph = 0;  // a capture cannot synchronize per launch
  if (m.n_kv_heads <= 0 || m.n_heads % m.n_kv_heads != 0 || m.head_dim > 256)
    throw CudaError("unsupported shape: " + std::to_string(m.n_heads) + " heads, " +
                    std::to_string(m.n_kv_heads) + " KV heads, head_dim " +
                    std::to_string(m.head_dim) +
                    " (expected KV heads dividing heads, head_dim <= 256)");
  TS_CUDA(cudaSetDevice(o.device));
  TsCudaMemory need = estimateMemory(m, options_);
  TS_CUDA(cudaMemGetInfo(&need.device_free, &need.device_total));
  if (need.total > need.device_free) {
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, o.device);
    throw CudaError("the model needs " + gib(need.total) + " on CUDA device " +
                    std::to_string(o.device) + " (" + prop.name + "): weights " +
                    gib(need.weights) + ", KV cache " + gib(need.kv_cache) + " for " +
                    std::to_string(o.max_positions) + " positions, workspace " +
                    gib(need.workspace) + "; the device has " + gib(need.device_free) +
                    " free. Choose int4 or int8 weights, an int8 KV cache "
                    "or a shorter context");
  }
  stream_owner_ = StreamHandle::nonBlocking();
  stream_ = stream_owner_.get();
  token_embd_ = uploadFloats(m.token_embd, static_cast<size_t>(m.vocab) * m.dim, kRandomAmplitude);
  output_norm_ = uploadFloats(m.output_norm, m.dim, 0.f);
  if (m.alibi_slopes) slopes_ = uploadFloats(m.alibi_slopes, m.n_heads, -1.f);
  classifier_ = uploadMatrix(m.classifier);
  for (int l = 0; l < m.n_layers; ++l) {
    const TsCudaLayer& w = m.layers[l];
    layers_.push_back({uploadFloats(w.attn_norm, m.dim, 0.f), uploadMatrix(w.wq),
                       uploadMatrix(w.wk), uploadMatrix(w.wv), uploadMatrix(w.wo),
                       uploadFloats(w.ffn_norm, m.dim, 0.f), uploadMatrix(w.gate),
                       uploadMatrix(w.up), uploadMatrix(w.down), layerLaunches(w)});
  }
  allocateKv();
  const size_t B = options_.max_batch, D = dim_, F = ffn_dim_,
               Q = static_cast<size_t>(n_heads_) * head_dim_,
               KV = static_cast<size_t>(n_kv_heads_) * head_dim_, P = o.max_positions;
  x_ = scratch(B * D);
  xb_ = scratch(B * std::max(D, Q));
  q_ = scratch(B * Q);
  k_ = scratch(B * KV);
  v_ = scratch(B * KV);
  att_ = scratch(B * Q);
  hb_ = scratch(B * F);
  hb2_ = scratch(B * F);
  logits_ = scratch(B * vocab_);
  partial_ = scratch(static_cast<size_t>(kMaxMatvecTokens) * n_heads_ * splits_ * (head_dim_ + 2));
  if (B > kMaxMatvecTokens) {  // the cuBLAS paths run only for passes longer than the matvec's
    const size_t largest = std::max({F * D, static_cast<size_t>(vocab_) * D, Q * D});
    blas_scratch_.weights = reinterpret_cast<__half*>(scratch((largest + 1) / 2));
    blas_scratch_.input = reinterpret_cast<__half*>(scratch((B * std::max(D, F) + 1) / 2));
    blas_scratch_.q = scratch(B * Q);
    blas_scratch_.k = scratch(P * KV);
    blas_scratch_.v = scratch(P * KV);
    blas_scratch_.scores = scratch(n_heads_ * B * P);
    blas_scratch_.probs = scratch(n_heads_ * B * P);
    blas_scratch_.o = scratch(B * Q);
    blas_ = std::make_unique<Blas>(stream_);
  }
  h_step_ = PinnedBuffer<int>(B + 1);
  h_logits_ = PinnedBuffer<float>(static_cast<size_t>(kMaxMatvecTokens) * vocab_);
  d_step_ = reinterpret_cast<int*>(scratch(B + 1));
  TS_CUDA(cudaStreamSynchronize(stream_));  // uploads and fills done before the first pass
}

Session::~Session() {
  cudaSetDevice(options_.device);  // the members give their handles back on this device
}

float* Session::scratch(size_t floats) {
  owned_.emplace_back(std::max<size_t>(floats, 1) * sizeof(float));
  TS_CUDA(cudaMemsetAsync(owned_.back().get(), 0, owned_.back().bytes(), stream_));
  return owned_.back().as<float>();
}

// amplitude 0: a norm (ones when random); < 0: never random (ALiBi slopes).
const float* Session::uploadFloats(const float* host, size_t n, float amplitude) {
  if (host) {
    owned_.push_back(upload(host, n));
    return owned_.back().as<float>();
  }
  if (!seed_ || amplitude < 0) throw CudaError("a weight array is missing (null pointer)");
  owned_.emplace_back(n * sizeof(float));
  float* d = owned_.back().as<float>();
  if (amplitude == 0)
    fillConstant(d, n, 1.f, stream_);
  else
    fillUniform(d, n, seed_ + owned_.size(), amplitude, stream_);
  return d;
}

DeviceMatrix Session::uploadMatrix(const TsCudaMatrix& m) {
  if (const std::string problem = matrixFormatProblem(m); !problem.empty())
    throw CudaError("weight matrix: " + problem);
  DeviceMatrix d = deviceShape(m);
  const size_t data_bytes = matrixDataBytes(m.format, m.rows, m.cols);
  const size_t scale_bytes = matrixScaleBytes(m.format, m.rows, m.cols, m.group);
  const bool random = !m.data;
  if (random && !seed_) throw CudaError("a weight matrix is missing (null pointer)");
  owned_.push_back(random ? DeviceBuffer(data_bytes)
                          : upload(static_cast<const uint8_t*>(m.data), data_bytes));
  d.data = owned_.back().get();
  if (random) {
    if (m.format == TS_CUDA_W_F32)
      fillUniform(owned_.back().as<float>(), data_bytes / 4, seed_ + owned_.size(),
                  kRandomAmplitude, stream_);
    else if (m.format == TS_CUDA_W_F16)
      fillUniformHalf(owned_.back().as<__half>(), data_bytes / 2, seed_ + owned_.size(),
                      kRandomAmplitude, stream_);
    else if (isStoredFormat(m.format))  // valid block scales, not random bytes
      fillStoredRandom(m.format, owned_.back().as<uint8_t>(), m.rows, m.cols, seed_ + owned_.size(),
                       kRandomAmplitude, stream_);
    else
      fillBytes(owned_.back().as<uint8_t>(), data_bytes, seed_ + owned_.size(), stream_);
  }
  if (scale_bytes) {
    owned_.push_back(random ? DeviceBuffer(scale_bytes) : upload(m.scales, scale_bytes / 4));
    if (random)  // int4 values span -8..7, int8 -128..127
      fillConstant(owned_.back().as<float>(), scale_bytes / 4,
                   kRandomAmplitude / (m.format == TS_CUDA_W_INT4 ? 8.f : 128.f), stream_);
    d.scales = owned_.back().as<float>();
  }
  return d;
}

void Session::allocateKv() {
  const int f = options_.kv_format;
  if (f < TS_CUDA_KV_F32 || f > TS_CUDA_KV_INT8)
    throw CudaError("unknown KV format " + std::to_string(f));
  const size_t rows = static_cast<size_t>(n_layers_) * options_.max_positions * n_kv_heads_;
  const size_t value = f == TS_CUDA_KV_F32 ? 4 : f == TS_CUDA_KV_F16 ? 2 : 1;
  k_cache_ = DeviceBuffer(rows * head_dim_ * value);
  v_cache_ = DeviceBuffer(rows * head_dim_ * value);
  TS_CUDA(cudaMemsetAsync(k_cache_.get(), 0, k_cache_.bytes(), stream_));
  TS_CUDA(cudaMemsetAsync(v_cache_.get(), 0, v_cache_.bytes(), stream_));
  if (f == TS_CUDA_KV_INT8) {
    k_scales_ = DeviceBuffer(rows * 4);
    v_scales_ = DeviceBuffer(rows * 4);
    TS_CUDA(cudaMemsetAsync(k_scales_.get(), 0, k_scales_.bytes(), stream_));
    TS_CUDA(cudaMemsetAsync(v_scales_.get(), 0, v_scales_.bytes(), stream_));
  }
}

KvLayer Session::kvLayer(int layer) const {
  const int f = options_.kv_format;
  const size_t rows = static_cast<size_t>(layer) * options_.max_positions * n_kv_heads_;
  const size_t value = f == TS_CUDA_KV_F32 ? 4 : f == TS_CUDA_KV_F16 ? 2 : 1;
  KvLayer c;
  c.format = f;
  c.kv_heads = n_kv_heads_;
  c.head_dim = head_dim_;
  c.k = static_cast<char*>(k_cache_.get()) + rows * head_dim_ * value;
  c.v = static_cast<char*>(v_cache_.get()) + rows * head_dim_ * value;
  if (f == TS_CUDA_KV_INT8) {
    c.k_scale = k_scales_.as<float>() + rows;
    c.v_scale = v_scales_.as<float>() + rows;
  }
  return c;
}

void Session::runPass(int n, int pos, bool all_logits) {
  const bool small = n <= kMaxMatvecTokens;
  const size_t D = dim_;
  const int* d_pos = d_step_ + options_.max_batch;
  embeddingGather(token_embd_, dim_, d_step_, n, x_, stream_);
  for (int l = 0; l < n_layers_; ++l) {
    const Layer& w = layers_[l];
    const KvLayer cache = kvLayer(l);
    rmsnorm(x_, w.attn_norm, n, dim_, eps_, xb_, stream_);
    if (small) {
      projectQkv(w, n);
    } else {
      blas_->multiply(w.wq, xb_, n, q_, false, blas_scratch_);
      blas_->multiply(w.wk, xb_, n, k_, false, blas_scratch_);
      blas_->multiply(w.wv, xb_, n, v_, false, blas_scratch_);
    }
    ropeStoreKv(q_, k_, v_, n, n_heads_, rope_dim_, theta_, d_pos, cache, stream_);
    if (small)
      attentionSplitKv(q_, n, n_heads_, cache, d_pos, slopes_, splits_, partial_, att_, stream_);
    else
      blas_->attention(q_, n, pos, n_heads_, cache, options_.max_positions, slopes_, blas_scratch_,
                       att_);
    if (small) {
      MatvecJob o;
      o.m[0] = w.wo, o.out[0] = x_;
      matvec(o, att_, n, Epilogue::Accumulate, stream_);  // x += Wo . attention
    } else {
      blas_->multiply(w.wo, att_, n, x_, true, blas_scratch_);
    }
    rmsnorm(x_, w.ffn_norm, n, dim_, eps_, xb_, stream_);
    if (small) {
      gatedFfn(w, n);
      MatvecJob down;
      down.m[0] = w.down, down.out[0] = x_;
      matvec(down, hb_, n, Epilogue::Accumulate, stream_);
    } else {
      blas_->multiply(w.gate, xb_, n, hb_, false, blas_scratch_);
      blas_->multiply(w.up, xb_, n, hb2_, false, blas_scratch_);
      swiglu(hb_, hb2_, static_cast<size_t>(n) * ffn_dim_, hb_, stream_);
      blas_->multiply(w.down, hb_, n, x_, true, blas_scratch_);
    }
  }
  const int first = all_logits ? 0 : n - 1, rows = n - first;
  rmsnorm(x_ + first * D, output_norm_, rows, dim_, eps_, xb_, stream_);
  if (rows <= kMaxMatvecTokens) {
    MatvecJob head;
    head.m[0] = classifier_, head.out[0] = logits_;
    matvec(head, xb_, rows, Epilogue::Store, stream_);
  } else {
    blas_->multiply(classifier_, xb_, rows, logits_, false, blas_scratch_);
  }
}

void Session::projectQkv(const Layer& w, int n) {
  const DeviceMatrix* m[3] = {&w.wq, &w.wk, &w.wv};
  float* out[3] = {q_, k_, v_};
  MatvecJob job;
  job.count = w.launches.qkv_fused ? 3 : 1;
  for (int first = 0; first < 3; first += job.count) {
    for (int j = 0; j < job.count; ++j) job.m[j] = *m[first + j], job.out[j] = out[first + j];
    matvec(job, xb_, n, Epilogue::Store, stream_);
  }
}

void Session::gatedFfn(const Layer& w, int n) {
  MatvecJob job;
  if (w.launches.gate_up_fused) {  // hb = silu(gate . x) * (up . x) in one launch
    job.m[0] = w.gate, job.m[1] = w.up, job.out[0] = hb_;
    job.count = 2;
    matvec(job, xb_, n, Epilogue::SwiGlu, stream_);
    return;
  }
  job.m[0] = w.gate, job.out[0] = hb_;
  matvec(job, xb_, n, Epilogue::Store, stream_);
  job.m[0] = w.up, job.out[0] = hb2_;
  matvec(job, xb_, n, Epilogue::Store, stream_);
  swiglu(hb_, hb2_, static_cast<size_t>(n) * ffn_dim_, hb_, stream_);
}

void Session::runCapturedPass(int n, bool all_logits) {
  GraphExec& exec = graphs_[all_logits ? 1 : 0][n];
  if (!exec) {
    cudaGraph_t graph = nullptr;
    TS_CUDA(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    try {
      TS_CUDA(cudaMemcpyAsync(d_step_, h_step_.get(), (options_.max_batch + 1) * sizeof(int),
                              cudaMemcpyHostToDevice, stream_));
      runPass(n, 0, all_logits);  // a short pass reads its position from d_step_
      TS_CUDA(cudaMemcpyAsync(h_logits_.get(), logits_,
                              static_cast<size_t>(all_logits ? n : 1) * vocab_ * sizeof(float),
                              cudaMemcpyDeviceToHost, stream_));
    } catch (...) {
      cudaStreamEndCapture(stream_, &graph);
      if (graph) cudaGraphDestroy(graph);
      throw;
    }
    TS_CUDA(cudaStreamEndCapture(stream_, &graph));
    try {
      exec = GraphExec(graph);
    } catch (...) {
      cudaGraphDestroy(graph);
      throw;
    }
    cudaGraphDestroy(graph);
  }
  TS_CUDA(cudaGraphLaunch(exec.get(), stream_));
}

void Session::forward(const int* tokens, int count, int pos, bool all_logits, float* logits) {
  if (!failed_.empty())
    throw CudaError("this session failed earlier (" + failed_ +
                    "); the device's state is unknown: destroy the session and create another");
  TS_CUDA(cudaSetDevice(options_.device));
  if (count <= 0 || pos < 0 || pos + count > options_.max_positions)
    throw CudaError("forward: positions " + std::to_string(pos) + ".." +
                    std::to_string(pos + count - 1) + " outside the KV cache of " +
                    std::to_string(options_.max_positions));
  for (int t = 0; t < count; ++t)
    if (tokens[t] < 0 || tokens[t] >= vocab_)
      throw CudaError("forward: token " + std::to_string(tokens[t]) +
                      " outside the vocabulary of " + std::to_string(vocab_));
  written_ = std::max(written_, pos + count);
  const int B = options_.max_batch;
  for (int done = 0; done < count; done += B) {  // passes of at most max_batch positions
    const int n = std::min(B, count - done), at = pos + done;
    const bool wanted = all_logits || done + n == count;  // this pass's logits go out
    const size_t rows = all_logits ? n : 1;
    const size_t bytes = rows * vocab_ * sizeof(float);
    float* out = logits + (all_logits ? static_cast<size_t>(done) * vocab_ : 0);
    // Through the pinned buffer up to a verify window; beyond, straight into `out`.
    const bool pinned = rows <= static_cast<size_t>(kMaxMatvecTokens);
    std::memcpy(h_step_.get(), tokens + done, n * sizeof(int));
    h_step_.get()[B] = at;
    try {
      if (n <= kMaxMatvecTokens && options_.use_graph) {
        runCapturedPass(n, all_logits);
      } else {
        TS_CUDA(cudaMemcpyAsync(d_step_, h_step_.get(), (B + 1) * sizeof(int),
                                cudaMemcpyHostToDevice, stream_));
        runPass(n, at, all_logits);
        if (wanted)
          TS_CUDA(cudaMemcpyAsync(pinned ? h_logits_.get() : out, logits_, bytes,
                                  cudaMemcpyDeviceToHost, stream_));
      }
      TS_CUDA(cudaStreamSynchronize(stream_));  // h_step_ is reused by the next pass
    } catch (const CudaError& e) {
      // A kernel's fault shows at the synchronize, naming no kernel: say which pass, and how
      // to name the kernel. The context may be poisoned (an illegal address is sticky).
      failed_ = std::string(e.what()) + " in a pass of " + std::to_string(n) + " position(s) at " +
                std::to_string(at) +
                (syncChecking() ? ""
                                : "; kernels run asynchronously: run again with "
                                  "TOKENSCOPE_CUDA_SYNC=1 to name the failing one");
      throw CudaError(failed_);
    }
    if (wanted && pinned) std::memcpy(out, h_logits_.get(), bytes);
  }
}

void Session::truncate(int length) {
  TS_CUDA(cudaSetDevice(options_.device));
  length = std::max(0, length);
  if (length < written_) {
    kvClear(kvLayer(0), n_layers_, options_.max_positions, length, written_, stream_);
    TS_CUDA(cudaStreamSynchronize(stream_));
  }
  written_ = std::min(written_, length);
}

}  // namespace ts::cuda
