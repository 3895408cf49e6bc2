// Writes a Model to disk: our GGUF (v3, architecture llama / baichuan, f32 or f16 matrices,
// the vocabulary as tokenizer.ggml.* arrays) or a Hugging Face folder (config.json, one or
// more safetensors shards with an index, tokenizer.model). Used by `tokenscope-cli
// convert` and by tests that need the same weights in every format. Files are written to
// a temporary name and renamed, so a failed write never leaves a half file behind.
//
// ALiBi models whose layer count is not 40 (a 13B shape cut down) carry the key
// tokenscope.positional = "alibi" (GGUF) / "tokenscope_positional" (config.json), which
// the readers honour over the layer-count rule; other readers ignore it.
#pragma once
#include <string>

#include "inference/engine/core/tensor_types.h"
#include "inference/engine/model/model.h"

namespace ts::engine {

// matrices: F32, F16, Q8_0, Q4_0, Q4_K or Q6_K (norms stay F32; so does the embedding
// table unless quantize_embedding, as llama.cpp's quantizer writes it; a matrix whose rows
// are not whole blocks of the type becomes Q8_0 or F32).
Result<bool> writeGguf(const Model& model, const std::string& path,
                       TensorType matrices = TensorType::F32, bool quantize_embedding = false);

struct HfWriteOptions {
  std::string dtype = "F32";  // F32 | F16 | BF16 for every tensor
  bool w_pack = true;         // Baichuan: q, k, v as one W_pack tensor (as Baichuan ships)
  int shards = 1;             // > 1: model-0000i-of-0000n.safetensors + index.json
};
Result<bool> writeHfFolder(const Model& model, const std::string& folder,
                           const HfWriteOptions& options = {});

}  // namespace ts::engine
