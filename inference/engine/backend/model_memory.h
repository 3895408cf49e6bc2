// The memory a model takes in a given runtime format, KV cache format and context, on the
// CPU or a CUDA device: computed from the configuration alone, before anything is loaded
// (the model manager shows it; the CUDA plugin refuses a session that does not fit).
#pragma once
#include <cstdint>
#include <span>

#include "inference/engine/model/kv_cache.h"
#include "inference/engine/model/model.h"

namespace ts::engine {

struct MemoryEstimate {
  uint64_t weights = 0;    // matrices in the runtime format + f32 embeddings and norms
  uint64_t kv_cache = 0;   // K and V for every position of the context
  uint64_t workspace = 0;  // CUDA: activations, cuBLAS buffers; CPU: 0 (a few MiB)
  // Host memory while loading from the source in a quantized format: every matrix is read
  // as f32 before it is converted (a quantization-cache hit needs only `weights`).
  uint64_t load_peak = 0;
  uint64_t total() const { return weights + kv_cache + workspace; }
};

// The same figures the CUDA plugin checks before allocating (memory_estimate.h), which
// the self-test compares with the bytes the engine actually holds. With weights "auto" on
// the CPU the tensors stay as stored: stored_bytes (ModelSummary::tensor_bytes) plus the
// f32 copies of the norms (and for a Hugging Face RoPE model the q / k rows reordered into
// copies). On CUDA each stored matrix (ModelSummary::matrices) counts as it goes up: as
// stored where the device reads that type (cudaStoredFormat), else as q8_0, a NormHead
// classifier converted; without them every matrix counts as q8_0.
MemoryEstimate estimateMemory(const ModelConfig& config, WeightFormat weights, int int4_group,
                              int positions, KvFormat kv, bool cuda, uint64_t stored_bytes = 0,
                              std::span<const StoredMatrix> stored_matrices = {});

}  // namespace ts::engine
