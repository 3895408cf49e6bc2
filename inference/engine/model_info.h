// What a model file is, read without loading its weights (for the model manager), and the
// memory a load would take in a given runtime format, on the CPU or a CUDA device.
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "inference/engine/kv_cache.h"
#include "inference/engine/model.h"

namespace ts::engine {

struct ModelSummary {
  ModelConfig config;                       // as loadModel sets it (NormHead included)
  uint64_t parameters = 0;                  // elements of every tensor the file stores
  uint64_t file_bytes = 0;                  // the file, or every safetensors shard of a folder
  std::map<std::string, int> stored_types;  // "Q4_0", "F32", "BF16", ... -> tensors so stored
  int vocabulary_pieces = 0;                // 0 when no tokenizer goes with the model
  std::string vocabulary_note;              // why there is none (empty when there is one)
};

// Reads only headers: a GGUF's metadata and tensor table, a folder's config.json and
// safetensors headers, a llama2.c header. Errors as loadModel's.
Result<ModelSummary> inspectModel(const std::string& path);

struct MemoryEstimate {
  uint64_t weights = 0;    // matrices in the runtime format + f32 embeddings and norms
  uint64_t kv_cache = 0;   // K and V for every position of the context
  uint64_t workspace = 0;  // CUDA: activations, cuBLAS buffers; CPU: 0 (a few MiB)
  // Host memory while loading from the source in a quantized format: every matrix is read
  // as f32 before it is converted (a quantization-cache hit needs only `weights`).
  uint64_t load_peak = 0;
  uint64_t total() const { return weights + kv_cache + workspace; }
};

// The same figures the CUDA plugin checks before allocating (cuda/memory_estimate.h), which
// the self-test compares with the bytes the engine actually holds.
MemoryEstimate estimateMemory(const ModelConfig& config, WeightFormat weights, int int4_group,
                              int positions, KvFormat kv, bool cuda);

}  // namespace ts::engine
