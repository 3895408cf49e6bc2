// A decoding session on one CUDA device: the model's weights uploaded in their runtime
// format, the KV cache, the activations and the cuBLAS scratch, and the forward pass.
// Passes of up to kMaxMatvecTokens positions (decode, speculative verify) use the fused
// matvec and split-KV attention; longer ones (prefill) cuBLAS. Each of those short pass
// lengths (with the last position's logits, or every position's) is captured into a CUDA
// graph on first use and replayed after: positions come from device memory, tokens and
// logits through pinned host buffers. Every handle is owned by a member, so a constructor
// that throws half-way leaks nothing.
#pragma once
#include <cuda_runtime.h>

#include <memory>
#include <string>
#include <vector>

#include "cuda/blas.h"
#include "cuda/cuda_handles.h"
#include "cuda/device_buffer.h"
#include "cuda/kernels.h"
#include "inference/engine/backend/memory_estimate.h"
#include "inference/engine/backend/plugin_abi.h"
#include "inference/engine/backend/plugin_model_checks.h"

namespace ts::cuda {

class Session {
 public:
  // Throws CudaError (with the memory estimate when the model does not fit).
  Session(const TsCudaModel& model, const TsCudaSessionOptions& options);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // logits: [1 or count, vocab] on the host. A failed pass leaves the session refusing
  // every later pass with that failure's message.
  void forward(const int* tokens, int count, int pos, bool all_logits, float* logits);
  void truncate(int length);
  int device() const { return options_.device; }
  bool failed() const { return !failed_.empty(); }  // a pass failed on the device

 private:
  struct Layer {
    const float* attn_norm;
    DeviceMatrix wq, wk, wv, wo;
    const float* ffn_norm;
    DeviceMatrix gate, up, down;
    LayerLaunches launches;  // which products share a launch (formats alike)
  };
  DeviceMatrix uploadMatrix(const TsCudaMatrix& m);
  const float* uploadFloats(const float* host, size_t n, float random_amplitude);
  float* scratch(size_t floats);
  void allocateKv();
  KvLayer kvLayer(int layer) const;
  // One pass of `count` positions starting at the position in d_pos_ (pos: the same, for
  // the cuBLAS attention, which is never captured); logits of the last position or of
  // every position into d_logits_.
  void runPass(int count, int pos, bool all_logits);
  // A short pass's q / k / v and gate / up products, fused where the layer's formats allow.
  void projectQkv(const Layer& w, int count);
  void gatedFfn(const Layer& w, int count);
  // A pass of count <= kMaxMatvecTokens positions with its copies (tokens and position in
  // from h_step_, logits out to h_logits_: the last position's, or every position's), from
  // its graph.
  void runCapturedPass(int count, bool all_logits);

  TsCudaSessionOptions options_;
  int n_layers_, dim_, n_heads_, n_kv_heads_, head_dim_, ffn_dim_, vocab_, rope_dim_;
  float eps_, theta_;
  uint64_t seed_;
  int splits_;
  int written_ = 0;
  std::string failed_;  // the failed pass's message: every later call refuses with it
  StreamHandle stream_owner_;
  cudaStream_t stream_ = nullptr;  // stream_owner_'s
  std::vector<DeviceBuffer> owned_;
  const float* token_embd_ = nullptr;
  const float* output_norm_ = nullptr;
  const float* slopes_ = nullptr;
  DeviceMatrix classifier_;
  std::vector<Layer> layers_;
  DeviceBuffer k_cache_, v_cache_, k_scales_, v_scales_;
  // Activations [max_batch, width] and the attention partials.
  float *x_, *xb_, *q_, *k_, *v_, *att_, *hb_, *hb2_, *logits_, *partial_;
  BlasScratch blas_scratch_;
  std::unique_ptr<Blas> blas_;
  PinnedBuffer<int> h_step_;  // tokens [max_batch], then the pass's first position
  // Logits [kMaxMatvecTokens, vocab]: a decode step's or a verify window's. Longer passes
  // asking for every position's logits copy them straight into the caller's array.
  PinnedBuffer<float> h_logits_;
  int* d_step_ = nullptr;
  GraphExec graphs_[2][kMaxMatvecTokens + 1];  // [all_logits][positions]
};

}  // namespace ts::cuda
