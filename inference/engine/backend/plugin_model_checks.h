// What the CUDA plugin checks of a model handed over the C boundary before anything is
// allocated or launched, and which of a layer's products it may fuse into one launch.
// Plain C++17, no CUDA: the plugin's entry points and the engine's tests share it, so a
// machine without a device checks the same rules.
//
// Problems read "expected <what>, found <found>"; the entry point prefixes its name.
#pragma once
#include <algorithm>
#include <string>

#include "inference/engine/backend/gguf_subblocks.h"
#include "inference/engine/backend/plugin_abi.h"

namespace ts::cuda {

inline std::string shapeText(int rows, int cols) {
  return std::to_string(rows) + " x " + std::to_string(cols);
}

// A matrix's format and int4 group, alone (op_matmul's matrix has no model around it).
inline std::string matrixFormatProblem(const TsCudaMatrix& w) {
  if (w.format < TS_CUDA_W_F32 || w.format > TS_CUDA_W_BF16)
    return "expected a weight format 0 to 10 (f32, f16, int8, int4, q8_0, GGUF Q4_0, Q8_0, "
           "Q4_K, Q5_K, Q6_K, bf16), found " +
           std::to_string(w.format);
  if (w.format == TS_CUDA_W_INT4 && w.group != 32 && w.group != 64 && w.group != 128)
    return "expected an int4 group of 32, 64 or 128 inputs, found " + std::to_string(w.group);
  if (w.rows <= 0 || w.cols <= 0)
    return "expected rows and cols > 0, found " + shapeText(w.rows, w.cols);
  // A GGUF's stored rows are read in 32-element sub-blocks (256-element K-quant blocks).
  if (const int block = std::max(32, storedBlockElems(w.format));
      w.format >= TS_CUDA_W_GGUF_Q4_0 && w.cols % block != 0)
    return "expected a stored row of whole " + std::to_string(block) + "-element blocks, found " +
           std::to_string(w.cols) + " columns";
  return {};
}

// `name`'s format, its [rows, cols] against the model's dimensions (a mismatch reads past a
// buffer on the device), and its arrays unless the model is filled at random.
inline std::string matrixProblem(const char* name, const TsCudaMatrix& w, int rows, int cols,
                                 bool random) {
  if (std::string format = matrixFormatProblem(w); !format.empty())
    return std::string(name) + ": " + format;
  if (w.rows != rows || w.cols != cols)
    return std::string(name) + ": expected " + shapeText(rows, cols) +
           " (the model's dimensions), found " + shapeText(w.rows, w.cols);
  const bool scaled =
      w.format == TS_CUDA_W_INT8 || w.format == TS_CUDA_W_INT4 || w.format == TS_CUDA_W_Q8_0;
  if (!random && (!w.data || (scaled && !w.scales)))
    return std::string(name) + ": expected its data" + (scaled ? " and scales" : "") +
           ", found a null pointer";
  return {};
}

// Empty when the plugin can run `m`.
inline std::string modelProblem(const TsCudaModel& m) {
  if (m.n_layers <= 0 || m.dim <= 0 || m.n_heads <= 0 || m.head_dim <= 0 || m.vocab <= 0 ||
      m.ffn_dim <= 0)
    return "expected a model with layers, width, heads, head_dim, FFN width and vocabulary > 0, "
           "found " +
           std::to_string(m.n_layers) + " layers, width " + std::to_string(m.dim) + ", " +
           std::to_string(m.n_heads) + " heads of " + std::to_string(m.head_dim) + ", FFN " +
           std::to_string(m.ffn_dim) + ", vocabulary " + std::to_string(m.vocab);
  if (m.n_kv_heads <= 0 || m.n_heads % m.n_kv_heads != 0 || m.head_dim > 256)
    return "expected KV heads dividing the heads and head_dim <= 256, found " +
           std::to_string(m.n_heads) + " heads, " + std::to_string(m.n_kv_heads) +
           " KV heads, head_dim " + std::to_string(m.head_dim);
  // RoPE turns adjacent pairs within each head: an odd count or one past the head would
  // write into the next head.
  if (!m.alibi_slopes && (m.rope_dim < 0 || m.rope_dim % 2 != 0 || m.rope_dim > m.head_dim))
    return "expected an even rope_dim from 0 to head_dim (" + std::to_string(m.head_dim) +
           "), found " + std::to_string(m.rope_dim);
  if (!m.layers) return "expected the model's layer array, found a null pointer";
  const bool random = m.random_seed != 0;
  if (!random && (!m.token_embd || !m.output_norm))
    return "expected the token embeddings and the output norm, found a null pointer";
  const int q = m.n_heads * m.head_dim, kv = m.n_kv_heads * m.head_dim;
  if (std::string p = matrixProblem("classifier", m.classifier, m.vocab, m.dim, random); !p.empty())
    return p;
  for (int l = 0; l < m.n_layers; ++l) {
    const TsCudaLayer& w = m.layers[l];
    const std::string at = "layer " + std::to_string(l) + " ";
    if (!random && (!w.attn_norm || !w.ffn_norm))
      return "expected " + at + "norms, found a null pointer";
    const struct {
      const char* name;
      const TsCudaMatrix& m;
      int rows, cols;
    } matrices[] = {{"wq", w.wq, q, m.dim},
                    {"wk", w.wk, kv, m.dim},
                    {"wv", w.wv, kv, m.dim},
                    {"wo", w.wo, m.dim, q},
                    {"gate", w.gate, m.ffn_dim, m.dim},
                    {"up", w.up, m.ffn_dim, m.dim},
                    {"down", w.down, m.dim, m.ffn_dim}};
    for (const auto& x : matrices)
      if (std::string p = matrixProblem((at + x.name).c_str(), x.m, x.rows, x.cols, random);
          !p.empty())
        return p;
  }
  return {};
}

// A fused launch reads all its matrices in one layout, so q / k / v (one input) and gate /
// up share a launch only when they share a format. The engine keeps each matrix in the
// format its file stores it, and files mix them: llama.cpp's Q4_K_M stores some attn_v and
// ffn_down as Q6_K, and a Q4_0 file's odd Q4_1 tensor becomes q8_0 beside int4 siblings.
struct LayerLaunches {
  bool qkv_fused = true;      // else three launches
  bool gate_up_fused = true;  // else two launches and a SwiGLU
};
inline LayerLaunches layerLaunches(const TsCudaLayer& w) {
  return {w.wq.format == w.wk.format && w.wq.format == w.wv.format, w.gate.format == w.up.format};
}

}  // namespace ts::cuda
