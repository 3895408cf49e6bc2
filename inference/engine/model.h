// A loaded model: its configuration (what the file says) and f32 weights in row-major
// [out][in] order. Loaders for GGUF (llama / baichuan architectures), Hugging Face
// safetensors folders (hf_loader.h) and llama2.c.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "inference/engine/llama2c.h"
#include "inference/engine/quant_matrix.h"
#include "inference/engine/result.h"

namespace ts::engine {

enum class Positional { Rope, Alibi };

struct ModelConfig {
  std::string architecture;   // "llama" | "baichuan"
  std::string source_format;  // "gguf" | "llama2c" | "safetensors" | "random"
  int n_layers = 0;
  int dim = 0;  // embedding width
  int n_heads = 0;
  int n_kv_heads = 0;  // < n_heads: grouped-query attention
  int head_dim = 0;
  int ffn_dim = 0;
  int vocab = 0;
  int context = 0;  // trained context length
  float rms_eps = 1e-5f;
  float rope_theta = 10000.f;
  int rope_dim = 0;  // rotated dimensions per head (== head_dim unless partial)
  Positional positional = Positional::Rope;
  bool norm_head = false;        // Baichuan2: classifier rows normalised to unit length at load
  std::string describe() const;  // one line for CLIs and the UI
};

struct LayerWeights {
  WeightBuffer<float> attn_norm;  // [dim]
  QuantMatrix wq;                 // [n_heads*head_dim, dim]
  QuantMatrix wk;                 // [n_kv_heads*head_dim, dim]
  QuantMatrix wv;                 // [n_kv_heads*head_dim, dim]
  QuantMatrix wo;                 // [dim, n_heads*head_dim]
  WeightBuffer<float> ffn_norm;   // [dim]
  QuantMatrix w_gate;             // [ffn_dim, dim]
  QuantMatrix w_up;               // [ffn_dim, dim]
  QuantMatrix w_down;             // [dim, ffn_dim]
};

struct Model {
  ModelConfig config;
  WeightBuffer<float> token_embd;   // [vocab, dim], f32 (rows are gathered, not multiplied)
  WeightBuffer<float> output_norm;  // [dim]
  QuantMatrix classifier;           // [vocab, dim]; a copy of token_embd when the file ties them
  std::vector<LayerWeights> layers;
  Vocabulary vocab;  // pieces and scores, when the file carries them
  WeightFormat weight_format = WeightFormat::F32;
  // What the quantization cache did on this load: "hit: PATH", "written: PATH",
  // "off", "not used for f32 weights" or "not written: WHY" (the load still succeeded).
  std::string cache_note;
  size_t weight_bytes() const;  // matrices as stored at run time
};

// Baichuan2's vocabulary size: its lm_head is a NormHead.
constexpr int kBaichuan2Vocab = 125696;
// Scales every classifier row to unit L2 length (rows of zeros stay zero). Idempotent up to
// rounding, so a GGUF converted with normalised rows loads the same.
void normalizeRows(WeightBuffer<float>& w, int rows, int cols);

// How far a load is, 0..1, reported from the loading thread (or, while quantizing, from
// one pool thread at a time); returning false cancels the load, which then fails with
// exactly kLoadCancelled.
using LoadProgress = std::function<bool(double fraction)>;
inline constexpr const char* kLoadCancelled = "loading cancelled";

struct LoadOptions {
  std::string tokenizer_path;  // llama2.c: default tok<vocab>.bin / tokenizer.bin beside it
  WeightFormat weights = WeightFormat::F32;
  int int4_group = 128;   // inputs per int4 scale: 32, 64 or 128
  bool cache = true;      // quantized weights: use / write the cache beside the model
  LoadProgress progress;  // may be empty
};

// Picks the reader: a folder (or its config.json / a .safetensors file in it) is a Hugging
// Face model; otherwise by the file's magic, GGUF, else a llama2.c checkpoint. Then applies
// Baichuan2's NormHead (baichuan architecture with vocabulary 125,696) and converts every
// matrix to `options.weights` once, at load, keeping the result in the quantization cache
// (quant_cache.h) so that the next load with the same settings reads it instead.
Result<std::shared_ptr<Model>> loadModel(const std::string& path, const LoadOptions& options = {});
// Only the vocabulary of the model at `path` (no weights are read): a GGUF's
// tokenizer.ggml.* arrays, a folder's tokenizer.model, a llama2.c tokenizer .bin, or
// tokenizer_path when it is a sentencepiece .model file.
Result<Vocabulary> loadVocabulary(const std::string& path, const std::string& tokenizer_path = "");

}  // namespace ts::engine
