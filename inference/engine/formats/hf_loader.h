// Hugging Face model folders -> Model: config.json, the weights (safetensors, or PyTorch
// pytorch_model*.bin checkpoints read without running their pickle: checkpoint_shards.h),
// and tokenizer.model for the vocabulary.
//
// Architecture rule (documented in README): architectures[0] BaichuanForCausalLM /
// BaiChuanForCausalLM or LlamaForCausalLM. A Baichuan config with 40 hidden layers is the
// 13B layout (ALiBi, no RoPE), as for GGUF files; vocab_size 125,696 marks Baichuan2,
// whose NormHead lm_head rows are normalised at load (see loadModel).
//
// Baichuan's fused W_pack [3 * hidden, hidden] splits into q, k, v. Hugging Face stores
// q / k rows for rotate-half RoPE; they are permuted here to the adjacent-pair order the
// forward pass (and every GGUF) uses: row 2j + a of a head <- row a * head_dim / 2 + j.
#pragma once
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "inference/engine/formats/mapped_file.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/model/model.h"

namespace ts::engine {

// `progress` is told the share read, 0..1 (mapping the files, by bytes, then the layers);
// false: fail with kLoadCancelled. `files`, when given, gets the mapped shards the matrices
// read (so that a caller that repacks them can release their pages).
Result<std::shared_ptr<Model>> loadHfFolder(
    const std::string& folder, const LoadProgress& progress = {},
    std::vector<std::shared_ptr<MappedFile>>* files = nullptr);

// Rows of a [heads * head_dim, cols] matrix from rotate-half to adjacent-pair order, and
// back (the safetensors writer's direction).
WeightBuffer<float> rotateHalfToPairs(const WeightBuffer<float>& w, int heads, int head_dim,
                                      int cols);
WeightBuffer<float> pairsToRotateHalf(const WeightBuffer<float>& w, int heads, int head_dim,
                                      int cols);

}  // namespace ts::engine
