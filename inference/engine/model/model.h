// A loaded model: its configuration (what the file says) and its weights in row-major
// [out][in] order, in one runtime format. The readers that fill it live in formats/
// (formats/model_loader.h's loadModel); backends read it.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "inference/engine/core/result.h"
#include "inference/engine/model/generation_defaults.h"
#include "inference/engine/model/quant_matrix.h"
#include "inference/engine/tokenizer/vocabulary.h"

namespace ts::engine {

enum class Positional { Rope, Alibi };

struct ModelConfig {
  std::string architecture;   // "llama" | "baichuan"
  std::string source_format;  // "gguf" | "llama2c" | "safetensors" | "pytorch" | "random"
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
  // [vocab, dim]: rows are gathered (rowF32: dequantized one at a time), never multiplied;
  // kept as stored (a GGUF's Q4_0 rows stay Q4_0).
  QuantMatrix token_embd;
  WeightBuffer<float> output_norm;  // [dim]
  // [vocab, dim]; when the file ties it to token_embd, the same storage (stored matrices
  // share their bytes).
  QuantMatrix classifier;
  std::vector<LayerWeights> layers;
  Vocabulary vocab;  // pieces and scores, when the file carries them
  // generation_config.json's suggestions (Hugging Face folders): sampling settings, the
  // chat format's role tokens
  GenerationDefaults generation;
  WeightFormat weight_format = WeightFormat::F32;
  // What the quantization cache did on this load: "hit: PATH", "written: PATH",
  // "off", "not used for f32 weights" or "not written: WHY" (the load still succeeded).
  std::string cache_note;
  // What the load changed from the file, in one line ("" when nothing): tensor types
  // converted for want of a fused product.
  std::string load_note;
  size_t weight_bytes() const;  // matrices as stored at run time
  // The matrices' runtime formats with counts: "Q4_0 x57, Q6_K x1" (layers' and classifier).
  std::string weightSummary() const;
};

// Baichuan2's vocabulary size: its lm_head is a NormHead.
constexpr int kBaichuan2Vocab = 125696;
// Scales every classifier row to unit L2 length (rows of zeros stay zero). Idempotent up to
// rounding, so a GGUF converted with normalised rows loads the same.
void normalizeRows(WeightBuffer<float>& w, int rows, int cols);
// The scale that makes `row` unit length: 1 / |row|, or 1 for a row of zeros
// (torch.nn.functional.normalize's eps 1e-12). A stored classifier keeps it as a row scale.
float unitRowScale(const float* row, int cols);

}  // namespace ts::engine
