// Writes a Model to disk: our GGUF (v3, architecture llama / baichuan, the vocabulary as
// tokenizer.ggml.* arrays) or a Hugging Face folder (config.json, one or more safetensors
// or PyTorch .bin shards with an index, tokenizer.model). Used by `tokenscope-cli
// convert` and by tests that need the same weights in every format. Tensors are produced
// and written one at a time (a writer holds one tensor, never the model twice), to a
// temporary name that is renamed at the end, so a failed write leaves no half file.
//
// ALiBi models whose layer count is not 40 (a 13B shape cut down) carry the key
// tokenscope.positional = "alibi" (GGUF) / "tokenscope_positional" (config.json), which
// the readers honour over the layer-count rule; other readers ignore it.
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "inference/engine/core/tensor_types.h"
#include "inference/engine/model/model.h"

namespace ts::engine {

// One tensor to write: its values, f32 [rows, cols] (or [n]), produced when its turn comes.
struct TensorToWrite {
  std::string name;
  std::vector<uint64_t> shape;  // outermost first: [rows, cols] or [n]
  std::function<Result<WeightBuffer<float>>()> values;
};

struct GgufWriteOptions {
  TensorType matrices = TensorType::F32;  // F32, F16, BF16, Q8_0, Q4_0, Q4_K or Q6_K
  bool quantize_embedding = false;        // token_embd in `matrices` too (else F32)
  std::string name;                       // general.name ("" : "TokenScope <format> <arch>")
  std::vector<std::pair<std::string, std::string>> extra_strings;  // more string keys
  // tokenizer.ggml.* extras: flags (add_bos_token, ...) and ids (padding_token_id, ...)
  std::vector<std::pair<std::string, bool>> special_flags;
  std::vector<std::pair<std::string, int>> special_ids;
  std::function<bool(double)> progress;  // share of tensors written; false cancels
};

// A GGUF of `config`'s architecture keys (general.architecture, <arch>.block_count, ...,
// general.file_type), `vocab` and `tensors` in order (ggml shapes reversed), tensor by tensor.
Result<bool> writeGgufTensors(const ModelConfig& config, const Vocabulary& vocab,
                              const std::vector<TensorToWrite>& tensors, const std::string& path,
                              const GgufWriteOptions& options);

// matrices: F32, F16, BF16, Q8_0, Q4_0, Q4_K or Q6_K (norms stay F32; so does the embedding
// table unless quantize_embedding, as llama.cpp's quantizer writes it; a matrix whose rows
// are not whole blocks of the type becomes Q8_0 or F32).
Result<bool> writeGguf(const Model& model, const std::string& path,
                       TensorType matrices = TensorType::F32, bool quantize_embedding = false);

struct HfWriteOptions {
  std::string dtype = "F32";           // F32 | F16 | BF16 for every tensor
  bool w_pack = true;                  // Baichuan: q, k, v as one W_pack tensor (as Baichuan ships)
  int shards = 1;                      // > 1: model-0000i-of-0000n.safetensors + index.json
                                       // (pytorch_model-0000i-of-0000n.bin + index.json)
  std::string format = "safetensors";  // or "pytorch": pytorch_model*.bin as torch.save writes
};
Result<bool> writeHfFolder(const Model& model, const std::string& folder,
                           const HfWriteOptions& options = {});

}  // namespace ts::engine
