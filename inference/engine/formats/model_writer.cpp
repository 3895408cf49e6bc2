#include "inference/engine/formats/model_writer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <tuple>

#include "inference/engine/formats/atomic_file.h"
#include "inference/engine/formats/gguf_quantize.h"
#include "inference/engine/formats/hf_loader.h"
#include "inference/engine/tokenizer/sentencepiece_model.h"

namespace ts::engine {
namespace fs = std::filesystem;

namespace {

// Every weight as f32 [rows, cols] (rows = 1 for vectors), whatever its runtime format.
// (converted() applies a stored classifier's row scales to the values.)
WeightBuffer<float> f32Of(const QuantMatrix& m) {
  const QuantMatrix f32 = m.converted(WeightFormat::F32);
  return {f32.f32Data(), f32.f32Data() + static_cast<size_t>(m.rows()) * m.cols()};
}

struct NamedTensor {
  std::string name;
  std::vector<uint64_t> shape;  // outermost first: [rows, cols] or [n]
  WeightBuffer<float> data;
};

// The model's tensors under GGUF names (ggml shapes are written reversed).
std::vector<NamedTensor> ggufTensors(const Model& m) {
  const ModelConfig& c = m.config;
  std::vector<NamedTensor> t;
  const uint64_t D = c.dim, V = c.vocab;
  t.push_back({"token_embd.weight", {V, D}, f32Of(m.token_embd)});
  t.push_back({"output_norm.weight", {D}, m.output_norm});
  t.push_back({"output.weight", {V, D}, f32Of(m.classifier)});
  for (int l = 0; l < c.n_layers; ++l) {
    const LayerWeights& L = m.layers[l];
    const std::string p = "blk." + std::to_string(l) + ".";
    t.push_back({p + "attn_norm.weight", {D}, L.attn_norm});
    for (auto [name, w] :
         {std::pair{"attn_q.weight", &L.wq}, std::pair{"attn_k.weight", &L.wk},
          std::pair{"attn_v.weight", &L.wv}, std::pair{"attn_output.weight", &L.wo}})
      t.push_back({p + name, {uint64_t(w->rows()), uint64_t(w->cols())}, f32Of(*w)});
    t.push_back({p + "ffn_norm.weight", {D}, L.ffn_norm});
    for (auto [name, w] :
         {std::pair{"ffn_gate.weight", &L.w_gate}, std::pair{"ffn_up.weight", &L.w_up},
          std::pair{"ffn_down.weight", &L.w_down}})
      t.push_back({p + name, {uint64_t(w->rows()), uint64_t(w->cols())}, f32Of(*w)});
  }
  return t;
}

class Bytes {
 public:
  void raw(const void* p, size_t n) { s.append(static_cast<const char*>(p), n); }
  void u32(uint32_t v) { raw(&v, 4); }
  void u64(uint64_t v) { raw(&v, 8); }
  void f32(float v) { raw(&v, 4); }
  void str(const std::string& v) {
    u64(v.size());
    s += v;
  }
  void align(size_t a) { s.resize((s.size() + a - 1) / a * a, '\0'); }
  std::string s;
};

// GGUF value types
constexpr uint32_t kU32 = 4, kI32 = 5, kF32 = 6, kString = 8, kArray = 9;

Result<bool> writeAtomically(const fs::path& path, const std::string& head,
                             const std::vector<std::string_view>& parts) {
  std::vector<std::string_view> all = {head};
  all.insert(all.end(), parts.begin(), parts.end());
  return writeFileAtomically(path.string(), all);
}

}  // namespace

Result<bool> writeGguf(const Model& m, const std::string& path, TensorType matrices,
                       bool quantize_embedding) {
  if (!canQuantizeTo(matrices) || matrices == TensorType::BF16)
    return fail("GGUF matrices: expected F32, F16, Q8_0, Q4_0, Q4_K or Q6_K, found " +
                typeName(matrices));
  const ModelConfig& c = m.config;
  const std::string a = c.architecture;
  Bytes kv;
  uint64_t n_kv = 0;
  const auto key = [&](const std::string& k, uint32_t type) {
    kv.str(k);
    kv.u32(type);
    ++n_kv;
  };
  key("general.architecture", kString);
  kv.str(a);
  key("general.name", kString);
  kv.str("TokenScope " + c.source_format + " " + a);
  for (auto [k, v] :
       {std::pair{".block_count", c.n_layers}, std::pair{".embedding_length", c.dim},
        std::pair{".feed_forward_length", c.ffn_dim}, std::pair{".attention.head_count", c.n_heads},
        std::pair{".attention.head_count_kv", c.n_kv_heads},
        std::pair{".context_length", c.context}, std::pair{".rope.dimension_count", c.rope_dim}}) {
    key(a + k, kU32);
    kv.u32(static_cast<uint32_t>(v));
  }
  key(a + ".attention.layer_norm_rms_epsilon", kF32);
  kv.f32(c.rms_eps);
  key(a + ".rope.freq_base", kF32);
  kv.f32(c.rope_theta);
  const bool alibi = c.positional == Positional::Alibi;
  if (alibi != (a == "baichuan" && c.n_layers == 40)) {  // the layer rule would guess wrong
    key("tokenscope.positional", kString);
    kv.str(alibi ? "alibi" : "rope");
  }
  const Vocabulary& v = m.vocab;
  if (!v.pieces.empty()) {
    key("tokenizer.ggml.model", kString);
    kv.str("llama");
    key("tokenizer.ggml.tokens", kArray);
    kv.u32(kString);
    kv.u64(v.pieces.size());
    for (const auto& p : v.pieces) kv.str(p);
    key("tokenizer.ggml.scores", kArray);
    kv.u32(kF32);
    kv.u64(v.pieces.size());
    for (size_t i = 0; i < v.pieces.size(); ++i) kv.f32(i < v.scores.size() ? v.scores[i] : 0.f);
    key("tokenizer.ggml.token_type", kArray);
    kv.u32(kI32);
    kv.u64(v.pieces.size());
    for (size_t i = 0; i < v.pieces.size(); ++i) kv.u32(i < v.types.size() ? v.types[i] : 1);
    key("tokenizer.ggml.add_space_prefix", 7);  // GGUF bool
    kv.s += static_cast<char>(v.add_dummy_prefix ? 1 : 0);
    for (auto [k, id] : {std::pair{"tokenizer.ggml.bos_token_id", v.bos},
                         std::pair{"tokenizer.ggml.eos_token_id", v.eos},
                         std::pair{"tokenizer.ggml.unknown_token_id", v.unk}}) {
      key(k, kU32);
      kv.u32(static_cast<uint32_t>(id));
    }
  }
  const auto tensors = ggufTensors(m);
  Bytes head;
  head.u32(0x46554747);  // "GGUF"
  head.u32(3);
  head.u64(tensors.size());
  head.u64(n_kv);
  head.raw(kv.s.data(), kv.s.size());
  std::vector<std::string> data;
  uint64_t offset = 0;
  for (const auto& t : tensors) {
    // Matrices in the requested type; vectors (and unless asked, the embedding table) stay
    // F32. A matrix whose rows are not whole blocks of the type falls back to Q8_0 (whole
    // 32-blocks) or F32, as llama.cpp's quantizer falls back.
    TensorType type = TensorType::F32;
    if (t.shape.size() == 2 && (quantize_embedding || t.name != "token_embd.weight")) {
      type = matrices;
      if (t.shape[1] % layoutOf(type).block_elems != 0)
        type = t.shape[1] % 32 == 0 ? TensorType::Q8_0 : TensorType::F32;
    }
    head.str(t.name);
    head.u32(static_cast<uint32_t>(t.shape.size()));
    for (auto it = t.shape.rbegin(); it != t.shape.rend(); ++it) head.u64(*it);  // ggml order
    head.u32(static_cast<uint32_t>(type));
    head.u64(offset);
    const size_t cols = t.shape.back(), rows = t.data.size() / cols;
    const std::vector<uint8_t> stored = quantizeRows(type, t.data.data(), rows, cols);
    std::string bytes(stored.begin(), stored.end());
    bytes.resize((bytes.size() + 31) / 32 * 32, '\0');
    offset += bytes.size();
    data.push_back(std::move(bytes));
  }
  head.align(32);
  std::vector<std::string_view> parts(data.begin(), data.end());
  return writeAtomically(path, head.s, parts);
}

Result<bool> writeHfFolder(const Model& m, const std::string& folder,
                           const HfWriteOptions& options) {
  if (options.dtype != "F32" && options.dtype != "F16" && options.dtype != "BF16")
    return fail("safetensors dtype: expected F32, F16 or BF16, found " + options.dtype);
  if (options.shards < 1) return fail("shards: expected at least 1");
  const ModelConfig& c = m.config;
  const bool baichuan = c.architecture == "baichuan";
  const bool pack = baichuan && options.w_pack && c.n_kv_heads == c.n_heads;
  const bool rope = c.positional == Positional::Rope;
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) return fail("cannot create " + folder + ": " + ec.message());
  const uint64_t D = c.dim, V = c.vocab, F = c.ffn_dim;
  std::vector<NamedTensor> t;
  t.push_back({"model.embed_tokens.weight", {V, D}, f32Of(m.token_embd)});
  for (int l = 0; l < c.n_layers; ++l) {
    const LayerWeights& L = m.layers[l];
    const std::string p = "model.layers." + std::to_string(l) + ".";
    WeightBuffer<float> q = f32Of(L.wq), k = f32Of(L.wk), v = f32Of(L.wv);
    if (rope) {
      q = pairsToRotateHalf(q, c.n_heads, c.head_dim, c.dim);
      k = pairsToRotateHalf(k, c.n_kv_heads, c.head_dim, c.dim);
    }
    if (pack) {
      WeightBuffer<float> packed = q;
      packed.insert(packed.end(), k.begin(), k.end());
      packed.insert(packed.end(), v.begin(), v.end());
      t.push_back({p + "self_attn.W_pack.weight", {3 * D, D}, std::move(packed)});
    } else {
      t.push_back({p + "self_attn.q_proj.weight", {uint64_t(L.wq.rows()), D}, std::move(q)});
      t.push_back({p + "self_attn.k_proj.weight", {uint64_t(L.wk.rows()), D}, std::move(k)});
      t.push_back({p + "self_attn.v_proj.weight", {uint64_t(L.wv.rows()), D}, std::move(v)});
    }
    t.push_back({p + "self_attn.o_proj.weight", {D, uint64_t(L.wo.cols())}, f32Of(L.wo)});
    t.push_back({p + "mlp.gate_proj.weight", {F, D}, f32Of(L.w_gate)});
    t.push_back({p + "mlp.up_proj.weight", {F, D}, f32Of(L.w_up)});
    t.push_back({p + "mlp.down_proj.weight", {D, F}, f32Of(L.w_down)});
    t.push_back({p + "input_layernorm.weight", {D}, L.attn_norm});
    t.push_back({p + "post_attention_layernorm.weight", {D}, L.ffn_norm});
  }
  t.push_back({"model.norm.weight", {D}, m.output_norm});
  t.push_back({"lm_head.weight", {V, D}, f32Of(m.classifier)});

  const int shards = std::min<int>(options.shards, static_cast<int>(t.size()));
  const auto shard_name = [&](int i) {
    if (shards == 1) return std::string("model.safetensors");
    char name[64];
    std::snprintf(name, sizeof name, "model-%05d-of-%05d.safetensors", i + 1, shards);
    return std::string(name);
  };
  std::string weight_map;
  for (int s = 0; s < shards; ++s) {
    const size_t begin = t.size() * s / shards, end = t.size() * (s + 1) / shards;
    std::string header = "{\"__metadata__\":{\"format\":\"pt\"}";
    std::vector<std::string> data;
    uint64_t offset = 0;
    for (size_t i = begin; i < end; ++i) {
      const TensorType type = options.dtype == "F32"   ? TensorType::F32
                              : options.dtype == "F16" ? TensorType::F16
                                                       : TensorType::BF16;
      const std::vector<uint8_t> stored = quantizeRows(type, t[i].data.data(), 1, t[i].data.size());
      std::string bytes(stored.begin(), stored.end());
      header += ",\"" + t[i].name + "\":{\"dtype\":\"" + options.dtype + "\",\"shape\":[";
      for (size_t d = 0; d < t[i].shape.size(); ++d) {
        if (d) header += ',';
        header += std::to_string(t[i].shape[d]);
      }
      header += "],\"data_offsets\":[" + std::to_string(offset) + "," +
                std::to_string(offset + bytes.size()) + "]}";
      offset += bytes.size();
      data.push_back(std::move(bytes));
      weight_map += std::string(weight_map.empty() ? "" : ",") + "\"" + t[i].name + "\":\"" +
                    shard_name(s) + "\"";
    }
    header += "}";
    header.resize((header.size() + 7) / 8 * 8, ' ');  // data starts 8-byte aligned
    Bytes head;
    head.u64(header.size());
    head.raw(header.data(), header.size());
    std::vector<std::string_view> parts(data.begin(), data.end());
    auto ok = writeAtomically(fs::path(folder) / shard_name(s), head.s, parts);
    if (!ok) return ok;
  }
  if (shards > 1) {
    auto ok = writeAtomically(fs::path(folder) / "model.safetensors.index.json",
                              "{\"metadata\":{},\"weight_map\":{" + weight_map + "}}\n", {});
    if (!ok) return ok;
  }
  const auto num = [](double x) {
    char b[32];
    std::snprintf(b, sizeof b, "%.9g", x);
    return std::string(b);
  };
  std::string config = "{\n  \"architectures\": [\"" +
                       std::string(baichuan ? "BaichuanForCausalLM" : "LlamaForCausalLM") +
                       "\"],\n  \"model_type\": \"" + c.architecture + "\"";
  for (auto [k, v] :
       {std::pair{"hidden_size", c.dim}, std::pair{"intermediate_size", c.ffn_dim},
        std::pair{"num_attention_heads", c.n_heads}, std::pair{"num_key_value_heads", c.n_kv_heads},
        std::pair{"num_hidden_layers", c.n_layers}, std::pair{"vocab_size", c.vocab},
        std::pair{"max_position_embeddings", c.context}})
    config += ",\n  \"" + std::string(k) + "\": " + std::to_string(v);
  config += ",\n  \"rms_norm_eps\": " + num(c.rms_eps) +
            ",\n  \"rope_theta\": " + num(c.rope_theta) +
            ",\n  \"tie_word_embeddings\": false,\n  \"torch_dtype\": \"" +
            (options.dtype == "F32"   ? "float32"
             : options.dtype == "F16" ? "float16"
                                      : "bfloat16") +
            "\"";
  const bool alibi = c.positional == Positional::Alibi;
  if (alibi != (baichuan && c.n_layers == 40))
    config += ",\n  \"tokenscope_positional\": \"" + std::string(alibi ? "alibi" : "rope") + "\"";
  config += "\n}\n";
  auto ok = writeAtomically(fs::path(folder) / "config.json", config, {});
  if (!ok) return ok;
  if (!m.vocab.pieces.empty())
    return writeAtomically(fs::path(folder) / "tokenizer.model",
                           serializeSentencePieceModel(m.vocab), {});
  return true;
}

}  // namespace ts::engine
