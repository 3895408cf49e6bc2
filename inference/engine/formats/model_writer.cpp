#include "inference/engine/formats/model_writer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <new>
#include <tuple>

#include "inference/engine/formats/atomic_file.h"
#include "inference/engine/formats/gguf_quantize.h"
#include "inference/engine/formats/hf_loader.h"
#include "inference/engine/formats/pytorch_writer.h"
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

// A tensor produced from the model when the writer reaches it.
TensorToWrite lazy(std::string name, std::vector<uint64_t> shape, const QuantMatrix& m) {
  return {std::move(name), std::move(shape),
          [&m]() -> Result<WeightBuffer<float>> { return f32Of(m); }};
}
TensorToWrite lazy(std::string name, std::vector<uint64_t> shape, const WeightBuffer<float>& v) {
  return {std::move(name), std::move(shape), [&v]() -> Result<WeightBuffer<float>> { return v; }};
}

// The model's tensors under GGUF names (ggml shapes are written reversed).
std::vector<TensorToWrite> ggufTensors(const Model& m) {
  const ModelConfig& c = m.config;
  std::vector<TensorToWrite> t;
  const uint64_t D = c.dim, V = c.vocab;
  t.push_back(lazy("token_embd.weight", {V, D}, m.token_embd));
  t.push_back(lazy("output_norm.weight", {D}, m.output_norm));
  t.push_back(lazy("output.weight", {V, D}, m.classifier));
  for (int l = 0; l < c.n_layers; ++l) {
    const LayerWeights& L = m.layers[l];
    const std::string p = "blk." + std::to_string(l) + ".";
    t.push_back(lazy(p + "attn_norm.weight", {D}, L.attn_norm));
    for (auto [name, w] :
         {std::pair{"attn_q.weight", &L.wq}, std::pair{"attn_k.weight", &L.wk},
          std::pair{"attn_v.weight", &L.wv}, std::pair{"attn_output.weight", &L.wo}})
      t.push_back(lazy(p + name, {uint64_t(w->rows()), uint64_t(w->cols())}, *w));
    t.push_back(lazy(p + "ffn_norm.weight", {D}, L.ffn_norm));
    for (auto [name, w] :
         {std::pair{"ffn_gate.weight", &L.w_gate}, std::pair{"ffn_up.weight", &L.w_up},
          std::pair{"ffn_down.weight", &L.w_down}})
      t.push_back(lazy(p + name, {uint64_t(w->rows()), uint64_t(w->cols())}, *w));
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
constexpr uint32_t kU32 = 4, kI32 = 5, kF32 = 6, kBool = 7, kString = 8, kArray = 9;

Result<bool> writeAtomically(const fs::path& path, const std::string& head,
                             const std::vector<std::string_view>& parts) {
  std::vector<std::string_view> all = {head};
  all.insert(all.end(), parts.begin(), parts.end());
  return writeFileAtomically(path.string(), all);
}

// The type a tensor is written in: matrices in `matrices` (the embedding table too when
// asked), vectors F32; a matrix whose rows are not whole blocks of the type falls back to
// Q8_0 (whole 32-blocks) or F32, as llama.cpp's quantizer falls back.
TensorType typeFor(const TensorToWrite& t, const GgufWriteOptions& o) {
  if (t.shape.size() != 2 || (!o.quantize_embedding && t.name == "token_embd.weight"))
    return TensorType::F32;
  if (t.shape[1] % layoutOf(o.matrices).block_elems == 0) return o.matrices;
  return t.shape[1] % 32 == 0 && o.matrices != TensorType::F16 && o.matrices != TensorType::BF16
             ? TensorType::Q8_0
             : TensorType::F32;
}

// The llama.cpp file type number of a GGUF whose matrices are `type` (general.file_type).
uint32_t fileType(TensorType type) {
  switch (type) {
    case TensorType::F16:
      return 1;
    case TensorType::Q4_0:
      return 2;
    case TensorType::Q8_0:
      return 7;
    case TensorType::Q4_K:
      return 14;  // Q4_K_S: every matrix Q4_K
    case TensorType::Q6_K:
      return 18;
    case TensorType::BF16:
      return 32;
    default:
      return 0;  // all F32
  }
}

}  // namespace

namespace {

// GGUF key-value pairs as they are added, and how many.
struct GgufKeys {
  Bytes kv;
  uint64_t count = 0;
  void key(const std::string& k, uint32_t type) {
    kv.str(k);
    kv.u32(type);
    ++count;
  }
  void u32(const std::string& k, uint64_t v) {
    key(k, kU32);
    kv.u32(static_cast<uint32_t>(v));
  }
  void str(const std::string& k, const std::string& v) {
    key(k, kString);
    kv.str(v);
  }
  void flag(const std::string& k, bool v) {
    key(k, kBool);
    kv.s += static_cast<char>(v ? 1 : 0);
  }
};

// general.* and <arch>.* keys.
void modelKeys(GgufKeys& k, const ModelConfig& c, const GgufWriteOptions& options) {
  const std::string a = c.architecture;
  k.str("general.architecture", a);
  k.str("general.name",
        options.name.empty() ? "TokenScope " + c.source_format + " " + a : options.name);
  k.u32("general.file_type", fileType(options.matrices));
  if (options.matrices != TensorType::F32 && options.matrices != TensorType::F16 &&
      options.matrices != TensorType::BF16)
    k.u32("general.quantization_version", 2);
  for (auto [key, value] :
       {std::pair{".block_count", c.n_layers}, std::pair{".embedding_length", c.dim},
        std::pair{".feed_forward_length", c.ffn_dim}, std::pair{".attention.head_count", c.n_heads},
        std::pair{".attention.head_count_kv", c.n_kv_heads},
        std::pair{".context_length", c.context}, std::pair{".rope.dimension_count", c.rope_dim}})
    k.u32(a + key, static_cast<uint32_t>(value));
  k.key(a + ".attention.layer_norm_rms_epsilon", kF32);
  k.kv.f32(c.rms_eps);
  k.key(a + ".rope.freq_base", kF32);
  k.kv.f32(c.rope_theta);
  for (const auto& [key, value] : options.extra_strings) k.str(key, value);
  const bool alibi = c.positional == Positional::Alibi;
  if (alibi != (a == "baichuan" && c.n_layers == 40))  // the layer rule would guess wrong
    k.str("tokenscope.positional", alibi ? "alibi" : "rope");
}

// tokenizer.ggml.* keys: the pieces, scores and types, the special ids and flags.
void vocabularyKeys(GgufKeys& k, const Vocabulary& v, const GgufWriteOptions& options) {
  if (v.pieces.empty()) return;
  k.str("tokenizer.ggml.model", "llama");
  k.key("tokenizer.ggml.tokens", kArray);
  k.kv.u32(kString);
  k.kv.u64(v.pieces.size());
  for (const auto& p : v.pieces) k.kv.str(p);
  k.key("tokenizer.ggml.scores", kArray);
  k.kv.u32(kF32);
  k.kv.u64(v.pieces.size());
  for (size_t i = 0; i < v.pieces.size(); ++i) k.kv.f32(i < v.scores.size() ? v.scores[i] : 0.f);
  k.key("tokenizer.ggml.token_type", kArray);
  k.kv.u32(kI32);
  k.kv.u64(v.pieces.size());
  for (size_t i = 0; i < v.pieces.size(); ++i) k.kv.u32(i < v.types.size() ? v.types[i] : 1);
  k.flag("tokenizer.ggml.add_space_prefix", v.add_dummy_prefix);
  for (auto [key, id] : {std::pair{"tokenizer.ggml.bos_token_id", v.bos},
                         std::pair{"tokenizer.ggml.eos_token_id", v.eos},
                         std::pair{"tokenizer.ggml.unknown_token_id", v.unk}})
    k.u32(key, static_cast<uint32_t>(id));
  for (const auto& [key, flag] : options.special_flags) k.flag(key, flag);
  for (const auto& [key, id] : options.special_ids) k.u32(key, static_cast<uint32_t>(id));
}

// A tensor's rows and columns ([n] is one row).
std::pair<uint64_t, uint64_t> rowsAndCols(const TensorToWrite& t) {
  return {t.shape.size() == 2 ? t.shape[0] : 1, t.shape.back()};
}

}  // namespace

// writeGgufTensors, below the edge: its buffers throw std::bad_alloc when memory runs out.
static Result<bool> ggufTensors(const ModelConfig& c, const Vocabulary& v,
                                const std::vector<TensorToWrite>& tensors, const std::string& path,
                                const GgufWriteOptions& options) {
  if (!canQuantizeTo(options.matrices))
    return fail("GGUF matrices: expected F32, F16, BF16, Q8_0, Q4_0, Q4_K or Q6_K, found " +
                typeName(options.matrices));
  GgufKeys keys;
  modelKeys(keys, c, options);
  vocabularyKeys(keys, v, options);
  Bytes head;
  head.u32(0x46554747);  // "GGUF"
  head.u32(3);
  head.u64(tensors.size());
  head.u64(keys.count);
  head.raw(keys.kv.s.data(), keys.kv.s.size());
  // The tensor table: offsets follow from the shapes and types, before any data is made.
  std::vector<TensorType> types;
  uint64_t offset = 0;
  for (const auto& t : tensors) {
    const TensorType type = typeFor(t, options);
    types.push_back(type);
    head.str(t.name);
    head.u32(static_cast<uint32_t>(t.shape.size()));
    for (auto it = t.shape.rbegin(); it != t.shape.rend(); ++it) head.u64(*it);  // ggml order
    head.u32(static_cast<uint32_t>(type));
    head.u64(offset);
    const auto [rows, cols] = rowsAndCols(t);
    offset += (rows * rowBytes(type, cols) + 31) / 32 * 32;
  }
  head.align(32);
  // Tensor by tensor: one tensor's values and bytes in memory at a time.
  AtomicFileWriter out(path);
  if (!out.ok()) return fail("cannot write " + path + ".partial");
  out.write(head.s);
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (options.progress && !options.progress(static_cast<double>(i) / tensors.size()))
      return fail("cancelled");
    const TensorToWrite& t = tensors[i];
    auto values = t.values();
    if (!values) return fail(values.error());
    const auto [rows, cols] = rowsAndCols(t);
    if (values->size() != rows * cols)
      return fail("tensor '" + t.name + "': expected " + std::to_string(rows * cols) +
                  " values, found " + std::to_string(values->size()));
    std::vector<uint8_t> stored = quantizeRows(types[i], values->data(), rows, cols);
    WeightBuffer<float>().swap(values.value());
    stored.resize((stored.size() + 31) / 32 * 32, 0);
    out.write(stored.data(), stored.size());
    if (!out.ok()) return fail("writing " + path + " failed (disk full?)");
  }
  if (options.progress) options.progress(1.0);
  return out.commit();
}

Result<bool> writeGguf(const Model& m, const std::string& path, TensorType matrices,
                       bool quantize_embedding) {
  GgufWriteOptions options;
  options.matrices = matrices;
  options.quantize_embedding = quantize_embedding;
  return writeGgufTensors(m.config, m.vocab, ggufTensors(m), path, options);
}

namespace {

// The model's tensors under Hugging Face names, q / k rows back in rotate-half order for
// RoPE models, Baichuan's q, k, v packed into W_pack when asked.
std::vector<TensorToWrite> hfTensors(const Model& m, bool pack) {
  const ModelConfig& c = m.config;
  const bool rope = c.positional == Positional::Rope;
  const uint64_t D = c.dim, V = c.vocab, F = c.ffn_dim;
  std::vector<TensorToWrite> t;
  t.push_back(lazy("model.embed_tokens.weight", {V, D}, m.token_embd));
  for (int l = 0; l < c.n_layers; ++l) {
    const LayerWeights& L = m.layers[l];
    const std::string p = "model.layers." + std::to_string(l) + ".";
    const auto q = [&L, &c, rope]() -> Result<WeightBuffer<float>> {
      return rope ? pairsToRotateHalf(f32Of(L.wq), c.n_heads, c.head_dim, c.dim) : f32Of(L.wq);
    };
    const auto k = [&L, &c, rope]() -> Result<WeightBuffer<float>> {
      return rope ? pairsToRotateHalf(f32Of(L.wk), c.n_kv_heads, c.head_dim, c.dim) : f32Of(L.wk);
    };
    if (pack) {
      t.push_back(
          {p + "self_attn.W_pack.weight", {3 * D, D}, [q, k, &L]() -> Result<WeightBuffer<float>> {
             WeightBuffer<float> packed = std::move(q().value());
             const WeightBuffer<float> kk = std::move(k().value()), v = f32Of(L.wv);
             packed.insert(packed.end(), kk.begin(), kk.end());
             packed.insert(packed.end(), v.begin(), v.end());
             return packed;
           }});
    } else {
      t.push_back({p + "self_attn.q_proj.weight", {uint64_t(L.wq.rows()), D}, q});
      t.push_back({p + "self_attn.k_proj.weight", {uint64_t(L.wk.rows()), D}, k});
      t.push_back(lazy(p + "self_attn.v_proj.weight", {uint64_t(L.wv.rows()), D}, L.wv));
    }
    t.push_back(lazy(p + "self_attn.o_proj.weight", {D, uint64_t(L.wo.cols())}, L.wo));
    t.push_back(lazy(p + "mlp.gate_proj.weight", {F, D}, L.w_gate));
    t.push_back(lazy(p + "mlp.up_proj.weight", {F, D}, L.w_up));
    t.push_back(lazy(p + "mlp.down_proj.weight", {D, F}, L.w_down));
    t.push_back(lazy(p + "input_layernorm.weight", {D}, L.attn_norm));
    t.push_back(lazy(p + "post_attention_layernorm.weight", {D}, L.ffn_norm));
  }
  t.push_back(lazy("model.norm.weight", {D}, m.output_norm));
  t.push_back(lazy("lm_head.weight", {V, D}, m.classifier));
  return t;
}

uint64_t elementsOf(const std::vector<uint64_t>& shape) {
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;
  return n;
}

// One safetensors shard: the header (offsets from the shapes), then each tensor's bytes.
Result<bool> writeSafetensorsShard(const fs::path& path, const std::vector<TensorToWrite>& t,
                                   size_t begin, size_t end, TensorType type,
                                   const std::string& dtype) {
  std::string header = "{\"__metadata__\":{\"format\":\"pt\"}";
  uint64_t offset = 0;
  for (size_t i = begin; i < end; ++i) {
    const uint64_t bytes = rowBytes(type, elementsOf(t[i].shape));
    header += ",\"" + t[i].name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":[";
    for (size_t d = 0; d < t[i].shape.size(); ++d) {
      if (d) header += ',';
      header += std::to_string(t[i].shape[d]);
    }
    header += "],\"data_offsets\":[" + std::to_string(offset) + "," +
              std::to_string(offset + bytes) + "]}";
    offset += bytes;
  }
  header += "}";
  header.resize((header.size() + 7) / 8 * 8, ' ');  // data starts 8-byte aligned
  AtomicFileWriter out(path.string());
  if (!out.ok()) return fail("cannot write " + path.string() + ".partial");
  Bytes head;
  head.u64(header.size());
  head.raw(header.data(), header.size());
  out.write(head.s);
  for (size_t i = begin; i < end; ++i) {
    auto values = t[i].values();
    if (!values) return fail(values.error());
    if (values->size() != elementsOf(t[i].shape))
      return fail("tensor '" + t[i].name + "': expected " + std::to_string(elementsOf(t[i].shape)) +
                  " values, found " + std::to_string(values->size()));
    const std::vector<uint8_t> stored = quantizeRows(type, values->data(), 1, values->size());
    out.write(stored.data(), stored.size());
    if (!out.ok()) return fail("writing " + path.string() + " failed (disk full?)");
  }
  return out.commit();
}

Result<bool> writePytorchShard(const fs::path& path, const std::vector<TensorToWrite>& t,
                               size_t begin, size_t end, TensorType type) {
  std::vector<TorchTensorSpec> specs;
  for (size_t i = begin; i < end; ++i) specs.push_back({t[i].name, type, t[i].shape});
  return writePytorchCheckpoint(path.string(), specs,
                                [&](size_t i) -> Result<std::vector<uint8_t>> {
                                  auto values = t[begin + i].values();
                                  if (!values) return fail(values.error());
                                  return quantizeRows(type, values->data(), 1, values->size());
                                });
}

// config.json for a folder of `c`'s shape whose tensors are `dtype` (F32 | F16 | BF16).
std::string hfConfigJson(const ModelConfig& c, const std::string& dtype) {
  const bool baichuan = c.architecture == "baichuan";
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
            (dtype == "F32"   ? "float32"
             : dtype == "F16" ? "float16"
                              : "bfloat16") +
            "\"";
  const bool alibi = c.positional == Positional::Alibi;
  if (alibi != (baichuan && c.n_layers == 40))
    config += ",\n  \"tokenscope_positional\": \"" + std::string(alibi ? "alibi" : "rope") + "\"";
  config += "\n}\n";
  return config;
}

}  // namespace

// writeHfFolder, below the edge (as ggufTensors).
static Result<bool> hfFolder(const Model& m, const std::string& folder,
                             const HfWriteOptions& options) {
  if (options.dtype != "F32" && options.dtype != "F16" && options.dtype != "BF16")
    return fail("checkpoint dtype: expected F32, F16 or BF16, found " + options.dtype);
  if (options.format != "safetensors" && options.format != "pytorch")
    return fail("checkpoint format: expected safetensors or pytorch, found " + options.format);
  if (options.shards < 1) return fail("shards: expected at least 1");
  const ModelConfig& c = m.config;
  const bool baichuan = c.architecture == "baichuan";
  const bool pack = baichuan && options.w_pack && c.n_kv_heads == c.n_heads;
  const bool torch = options.format == "pytorch";
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) return fail("cannot create " + folder + ": " + ec.message());
  const std::vector<TensorToWrite> t = hfTensors(m, pack);
  const TensorType type = options.dtype == "F32"   ? TensorType::F32
                          : options.dtype == "F16" ? TensorType::F16
                                                   : TensorType::BF16;
  const int shards = std::min<int>(options.shards, static_cast<int>(t.size()));
  const auto shard_name = [&](int i) {
    if (shards == 1) return std::string(torch ? "pytorch_model.bin" : "model.safetensors");
    char name[64];
    std::snprintf(name, sizeof name,
                  torch ? "pytorch_model-%05d-of-%05d.bin" : "model-%05d-of-%05d.safetensors",
                  i + 1, shards);
    return std::string(name);
  };
  std::string weight_map;
  uint64_t total = 0;
  for (int s = 0; s < shards; ++s) {
    const size_t begin = t.size() * s / shards, end = t.size() * (s + 1) / shards;
    const fs::path path = fs::path(folder) / shard_name(s);
    auto ok = torch ? writePytorchShard(path, t, begin, end, type)
                    : writeSafetensorsShard(path, t, begin, end, type, options.dtype);
    if (!ok) return ok;
    for (size_t i = begin; i < end; ++i) {
      weight_map += std::string(weight_map.empty() ? "" : ",") + "\n    \"" + t[i].name + "\": \"" +
                    shard_name(s) + "\"";
      total += rowBytes(type, elementsOf(t[i].shape));
    }
  }
  if (shards > 1) {
    auto ok = writeAtomically(fs::path(folder) / (torch ? "pytorch_model.bin.index.json"
                                                        : "model.safetensors.index.json"),
                              "{\n  \"metadata\": {\n    \"total_size\": " + std::to_string(total) +
                                  "\n  },\n  \"weight_map\": {" + weight_map + "\n  }\n}\n",
                              {});
    if (!ok) return ok;
  }
  auto ok = writeAtomically(fs::path(folder) / "config.json", hfConfigJson(c, options.dtype), {});
  if (!ok) return ok;
  if (!m.vocab.pieces.empty())
    return writeAtomically(fs::path(folder) / "tokenizer.model",
                           serializeSentencePieceModel(m.vocab), {});
  return true;
}

// Converting holds a tensor's values (f32) and its encoded bytes at a time, besides the source.
constexpr const char* kConvertMemoryAdvice =
    "a tensor's values and its converted bytes need more memory than is free; close other "
    "programs and convert again";

Result<bool> writeGgufTensors(const ModelConfig& c, const Vocabulary& v,
                              const std::vector<TensorToWrite>& tensors, const std::string& path,
                              const GgufWriteOptions& options) {
  try {  // the half-written file is removed (AtomicFileWriter): nothing is left behind
    return ggufTensors(c, v, tensors, path, options);
  } catch (const std::bad_alloc&) {
    return fail("not enough memory to convert to " + path + ": " + kConvertMemoryAdvice);
  }
}

Result<bool> writeHfFolder(const Model& m, const std::string& folder,
                           const HfWriteOptions& options) {
  try {
    return hfFolder(m, folder, options);
  } catch (const std::bad_alloc&) {
    return fail("not enough memory to convert to " + folder + ": " + kConvertMemoryAdvice);
  }
}

}  // namespace ts::engine
