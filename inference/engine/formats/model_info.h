// What a model file is, read without loading its weights (for the model manager); the
// memory a load would take is backend/model_memory.h's estimateMemory.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "inference/engine/model/model.h"

namespace ts::engine {

struct ModelSummary {
  ModelConfig config;                       // as loadModel sets it (NormHead included)
  uint64_t parameters = 0;                  // elements of every tensor the file stores
  uint64_t file_bytes = 0;                  // the file, or every safetensors shard of a folder
  uint64_t tensor_bytes = 0;                // the tensors' bytes as stored (weights "auto")
  std::map<std::string, int> stored_types;  // "Q4_0", "F32", "BF16", ... -> tensors so stored
  // Every matrix the model multiplies by, as stored: the layers' and the classifier (the
  // embedding table's type and shape when the classifier is tied to it). Not the table.
  std::vector<StoredMatrix> matrices;
  int vocabulary_pieces = 0;    // 0 when no tokenizer goes with the model
  std::string vocabulary_note;  // why there is none (empty when there is one)
};

// The bytes of a GGUF of `config`'s shape with every matrix and the embedding table in
// `type` and the norm vectors in F32 (as `convert --type` writes it; llama.cpp's mixes
// differ by a few tensors): what weights "auto" keeps in memory for such a file.
uint64_t storedBytesFor(const ModelConfig& config, TensorType type);

// Reads only headers: a GGUF's metadata and tensor table, a folder's config.json and
// safetensors headers, a llama2.c header. Errors as loadModel's.
Result<ModelSummary> inspectModel(const std::string& path);

}  // namespace ts::engine
