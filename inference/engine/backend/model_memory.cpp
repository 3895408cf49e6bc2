#include "inference/engine/backend/model_memory.h"

#include <algorithm>

#include "inference/engine/backend/cuda_session.h"
#include "inference/engine/backend/memory_estimate.h"

namespace ts::engine {

namespace {

// A NormHead classifier goes up converted, its row scales applied (CudaModelView): f16
// from F16 / BF16, f32 from F32, q8_0 from a quantized type.
uint64_t normHeadBytes(const StoredMatrix& m) {
  TsCudaMatrix v{};
  v.format = m.type == TensorType::F32                                 ? TS_CUDA_W_F32
             : m.type == TensorType::F16 || m.type == TensorType::BF16 ? TS_CUDA_W_F16
                                                                       : TS_CUDA_W_Q8_0;
  v.rows = m.rows;
  v.cols = m.cols;
  return cuda::matrixBytes(v);
}

// The device bytes of weights "auto": the f32 shape's bytes with its matrices replaced by
// the stored ones as each goes up.
uint64_t cudaStoredWeightBytes(const ModelConfig& c, const TsCudaModel& f32,
                               std::span<const StoredMatrix> stored) {
  uint64_t bytes = cuda::weightBytes(f32) - cuda::matrixBytes(f32.classifier);
  for (int l = 0; l < f32.n_layers; ++l) {
    const TsCudaLayer& w = f32.layers[l];
    for (const TsCudaMatrix* m : {&w.wq, &w.wk, &w.wv, &w.wo, &w.gate, &w.up, &w.down})
      bytes -= cuda::matrixBytes(*m);
  }
  for (const StoredMatrix& m : stored)
    bytes +=
        c.norm_head && m.rows == c.vocab && m.cols == c.dim ? normHeadBytes(m) : cudaUploadBytes(m);
  return bytes;
}

}  // namespace

MemoryEstimate estimateMemory(const ModelConfig& config, WeightFormat weights, int int4_group,
                              int positions, KvFormat kv, bool cuda, uint64_t stored_bytes,
                              std::span<const StoredMatrix> stored_matrices) {
  const bool stored = weights == WeightFormat::Stored;
  const CudaModelView view(config, stored ? WeightFormat::Q8_0 : weights, int4_group, 0);
  const CudaModelView f32(config, WeightFormat::F32, int4_group, 0);
  TsCudaSessionOptions options{};
  options.max_positions = positions;
  options.kv_format = cudaKvFormat(kv);
  options.max_batch = CudaOptions{}.max_batch;
  MemoryEstimate e;
  e.weights = cuda::weightBytes(view.get());
  e.kv_cache = cuda::kvCacheBytes(view.get(), positions, options.kv_format);
  e.workspace = cuda ? cuda::workspaceBytes(view.get(), options) : 0;
  e.load_peak = weights == WeightFormat::F32 ? e.weights : cuda::weightBytes(f32.get());
  if (stored && cuda && !stored_matrices.empty()) {
    e.weights = cudaStoredWeightBytes(config, f32.get(), stored_matrices);
    e.load_peak = std::max(e.load_peak, e.weights);
  }
  if (stored && !cuda) {  // the mapped file's pages, and copies of the norm vectors
    e.weights = stored_bytes + (2 * static_cast<uint64_t>(config.n_layers) + 1) * config.dim * 4;
    const uint64_t D = config.dim, Q = static_cast<uint64_t>(config.n_heads) * config.head_dim,
                   KV = static_cast<uint64_t>(config.n_kv_heads) * config.head_dim;
    if ((config.source_format == "safetensors" || config.source_format == "pytorch") &&
        config.positional == Positional::Rope) {
      // q and k rows are reordered into copies (in their stored element size)
      const uint64_t elements = 2 * static_cast<uint64_t>(config.vocab) * D +
                                config.n_layers * (2 * D * Q + 2 * D * KV + 3 * D * config.ffn_dim);
      e.weights += config.n_layers * (Q + KV) * D * stored_bytes / std::max<uint64_t>(1, elements);
    }
    e.load_peak = e.weights;
  }
  return e;
}

}  // namespace ts::engine
