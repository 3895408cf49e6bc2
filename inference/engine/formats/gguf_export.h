// A Hugging Face folder (safetensors or PyTorch .bin shards) as a GGUF that llama.cpp reads
// as its `baichuan` (or `llama`) architecture, following that project's converter
// (convert_hf_to_gguf.py): Baichuan's W_pack split into attn_q / attn_k / attn_v; q and k
// rows permuted from rotate-half to adjacent RoPE pairs (in every layout, as that
// converter does: where no RoPE is applied, the same permutation of q and k leaves the
// attention scores unchanged); Baichuan2's lm_head rows L2-normalized in f32 (NormHead), so
// that engines without the rule get the right logits; its context length from
// max_position_embeddings or model_max_length; baichuan.tensor_data_layout; the vocabulary
// with its sentencepiece types and special ids (tokenizer_config.json's add_bos_token /
// add_eos_token). Written tensor by tensor from the mapped shards: one tensor's values in
// memory at a time.
#pragma once
#include <functional>
#include <optional>
#include <string>

#include "inference/engine/core/result.h"
#include "inference/engine/core/tensor_types.h"

namespace ts::engine {

struct GgufExportOptions {
  // Matrices and the embedding table (norms stay F32): F32, F16, BF16, Q8_0, Q4_0, Q4_K or
  // Q6_K; nullopt: as the checkpoint stores most matrices (BF16, F16 or F32).
  std::optional<TensorType> matrices;
  std::function<bool(double)> progress;  // share of tensors written; false cancels
};

struct GgufExportResult {
  TensorType matrices = TensorType::F32;
  std::string architecture;      // "baichuan" | "llama"
  bool normalized_head = false;  // Baichuan2's NormHead applied to output.weight
  int tensors = 0;
};

Result<GgufExportResult> exportHfFolderToGguf(const std::string& folder, const std::string& out,
                                              const GgufExportOptions& options = {});

}  // namespace ts::engine
