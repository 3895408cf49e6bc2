// Loading a model from the files people download: picks the reader (GGUF, a Hugging Face
// folder, a llama2.c checkpoint), builds the Model in the runtime weight format asked
// for, and reads only the vocabulary when that is all a caller needs.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "inference/engine/core/result.h"
#include "inference/engine/model/model.h"
#include "inference/engine/tokenizer/vocabulary.h"

namespace ts::engine {

// How far a load is, 0..1, reported from the loading thread (or, while quantizing, from
// one pool thread at a time); returning false cancels the load, which then fails with
// exactly kLoadCancelled.
using LoadProgress = std::function<bool(double fraction)>;
inline constexpr const char* kLoadCancelled = "loading cancelled";

struct LoadOptions {
  std::string tokenizer_path;  // llama2.c: default tok<vocab>.bin / tokenizer.bin beside it
  WeightFormat weights = WeightFormat::Stored;  // "auto": every tensor as the file stores it
  int int4_group = 128;                         // inputs per int4 scale: 32, 64 or 128
  bool cache = true;      // quantized weights: use / write the cache (quant_cache.h)
  LoadProgress progress;  // may be empty
};

// Every GGUF tensor type loadModel reads, for messages.
inline constexpr const char* kSupportedTypes =
    "F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K";

// Picks the reader: a folder (or its config.json / a .safetensors file in it) is a Hugging
// Face model; otherwise by the file's magic, GGUF, else a llama2.c checkpoint. Then applies
// Baichuan2's NormHead (baichuan architecture with vocabulary 125,696) and converts every
// matrix to `options.weights` once, at load, keeping the result in the quantization cache
// (quant_cache.h) so that the next load with the same settings reads it instead.
// Memory running out (the weight buffers) is a value too: notEnoughMemoryToLoad's message.
Result<std::shared_ptr<Model>> loadModel(const std::string& path, const LoadOptions& options = {});
// "not enough memory to load <path>: ..." and what to do about it.
std::string notEnoughMemoryToLoad(const std::string& path, WeightFormat weights);
// Only the vocabulary of the model at `path` (no weights are read): a GGUF's
// tokenizer.ggml.* arrays, a folder's tokenizer.model, a llama2.c tokenizer .bin, or
// tokenizer_path when it is a sentencepiece .model file.
Result<Vocabulary> loadVocabulary(const std::string& path, const std::string& tokenizer_path = "");

}  // namespace ts::engine
