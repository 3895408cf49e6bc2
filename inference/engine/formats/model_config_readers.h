// The configuration a model file declares, read without its weights: shared by the
// loaders and by inspectModel (model_info.h), so both apply the same architecture rules.
#pragma once
#include <string>

#include "inference/engine/formats/gguf.h"
#include "inference/engine/formats/json_reader.h"
#include "inference/engine/formats/llama2c.h"
#include "inference/engine/model/model.h"

namespace ts::engine {

// general.architecture, <arch>.* keys, tokenscope.positional, vocab from token_embd.
Result<ModelConfig> configFromGguf(const GgufFile& g);
// The quantization a config.json declares (its quantization_config: bitsandbytes 4-bit or
// 8-bit as Baichuan2-*-4bits ships, GPTQ, AWQ, ...), which TokenScope does not read:
// "bitsandbytes nf4 4-bit", "gptq", ...; "" for plain weights. Loading refuses such a folder,
// and a repository download stops at its config.json.
std::string unreadableQuantization(const Json& config);
// config.json of a Hugging Face folder; `tied` is set from tie_word_embeddings.
Result<ModelConfig> configFromHfFolder(const std::string& folder, bool* tied = nullptr);
ModelConfig configFromLlama2c(const Llama2cHeader& header);
// A folder (or its config.json, a .safetensors shard or a pytorch_model*.bin beside a
// config.json) is a Hugging Face model: that folder; otherwise "".
std::string hfFolderOf(const std::string& path);

}  // namespace ts::engine
