#include "inference/engine/formats/hf_loader.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <tuple>

#include "inference/engine/formats/checkpoint_shards.h"
#include "inference/engine/formats/json_reader.h"
#include "inference/engine/formats/mapped_file.h"
#include "inference/engine/formats/model_config_readers.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/tokenizer/sentencepiece_model.h"

namespace ts::engine {
namespace fs = std::filesystem;

namespace {

// Row a * head_dim / 2 + j of each head (rotate-half) <-> row 2j + a (adjacent pairs), for
// rows of `row_bytes` bytes in any element type (whole rows move).
void permuteRopeRows(const uint8_t* src, uint8_t* dst, size_t row_bytes, int heads, int head_dim,
                     bool to_pairs) {
  const int half = head_dim / 2;
  for (int h = 0; h < heads; ++h)
    for (int a = 0; a < 2; ++a)
      for (int j = 0; j < half; ++j) {
        const size_t rotate_half = static_cast<size_t>(h * head_dim + a * half + j) * row_bytes;
        const size_t pairs = static_cast<size_t>(h * head_dim + 2 * j + a) * row_bytes;
        std::copy_n(src + (to_pairs ? rotate_half : pairs), row_bytes,
                    dst + (to_pairs ? pairs : rotate_half));
      }
}

WeightBuffer<float> permuteRopeRows(const WeightBuffer<float>& w, int heads, int head_dim, int cols,
                                    bool to_pairs) {
  WeightBuffer<float> out(w.size());
  permuteRopeRows(reinterpret_cast<const uint8_t*>(w.data()),
                  reinterpret_cast<uint8_t*>(out.data()), sizeof(float) * cols, heads, head_dim,
                  to_pairs);
  return out;
}

}  // namespace

WeightBuffer<float> rotateHalfToPairs(const WeightBuffer<float>& w, int heads, int head_dim,
                                      int cols) {
  return permuteRopeRows(w, heads, head_dim, cols, true);
}

WeightBuffer<float> pairsToRotateHalf(const WeightBuffer<float>& w, int heads, int head_dim,
                                      int cols) {
  return permuteRopeRows(w, heads, head_dim, cols, false);
}

namespace {

// A stored matrix's rows reordered from rotate-half to adjacent pairs, in its own type
// (whole rows move: no conversion). A copy: the file's order cannot be mapped as it is.
QuantMatrix ropePairRows(const QuantMatrix& m, int heads, int head_dim) {
  // A WeightBuffer: 2 MiB pages populated in one call (a std::vector's 4 KiB page faults
  // made these copies most of a 7B checkpoint's load, 1.8 of 2.2 s).
  auto bytes = std::make_shared<WeightBuffer<uint8_t>>(m.bytes());
  permuteRopeRows(static_cast<const uint8_t*>(m.storage()), bytes->data(), m.bytes() / m.rows(),
                  heads, head_dim, true);
  return QuantMatrix::stored(m.storedType(), bytes->data(), m.rows(), m.cols(), bytes);
}

// Rows [first, first + rows) of a stored matrix, as a view of the same bytes.
QuantMatrix storedRows(const QuantMatrix& m, int first, int rows) {
  const size_t row = m.bytes() / m.rows();
  return QuantMatrix::stored(m.storedType(), static_cast<const uint8_t*>(m.storage()) + first * row,
                             rows, m.cols(), m.owner());
}

Result<int> configInt(const Json& config, const char* key, std::optional<int> fallback = {}) {
  const Json* v = jsonFind(config, key);
  if (!v) {
    if (fallback) return *fallback;
    return fail(std::string("config.json: missing \"") + key + "\"");
  }
  const auto i = jsonInt(*v);
  if (!i || *i <= 0 || *i > (1 << 24))
    return fail(std::string("config.json: \"") + key + "\": expected a positive integer, found " +
                v->type_name());
  return static_cast<int>(*i);
}

}  // namespace

std::string unreadableQuantization(const Json& config) {
  const Json* q = jsonFind(config, "quantization_config");
  if (!q || !q->is_object() || q->empty()) return "";
  const auto flag = [&](const char* key) {
    const Json* v = jsonFind(*q, key);
    return v && v->is_boolean() && v->get<bool>();
  };
  const auto text = [&](const char* key, const std::string& otherwise) {
    const Json* v = jsonFind(*q, key);
    return v && v->is_string() ? v->get<std::string>() : otherwise;
  };
  if (flag("load_in_4bit")) return "bitsandbytes " + text("bnb_4bit_quant_type", "nf4") + " 4-bit";
  if (flag("load_in_8bit")) return "bitsandbytes 8-bit";
  return text("quant_method", "quantized");
}

namespace {

Result<ModelConfig> configFromHfJson(const Json& cfg, bool* tied) {
  const Json* archs = jsonFind(cfg, "architectures");
  const std::string arch = archs && archs->is_array() && !archs->empty() && (*archs)[0].is_string()
                               ? (*archs)[0].get<std::string>()
                               : "";
  const bool baichuan = arch == "BaichuanForCausalLM" || arch == "BaiChuanForCausalLM";
  if (!baichuan && arch != "LlamaForCausalLM")
    return fail(
        "config.json: architectures: expected BaichuanForCausalLM, BaiChuanForCausalLM or "
        "LlamaForCausalLM, found '" +
        arch + "'");
  if (const std::string q = unreadableQuantization(cfg); !q.empty())
    return fail("config.json: this checkpoint is " + q +
                " (quantization_config, as Baichuan2-*-4bits ships), which TokenScope does not "
                "read: download the full-precision repository (for example "
                "baichuan-inc/Baichuan2-7B-Chat) and load it with --weights int4, or write a "
                "4-bit GGUF from it with `tokenscope-cli convert --to gguf --type q4_k`");
  ModelConfig c;
  c.architecture = baichuan ? "baichuan" : "llama";
  c.source_format = "safetensors";  // loadHfFolder says which once it has seen the files
  for (auto [key, field] :
       {std::pair{"num_hidden_layers", &c.n_layers}, std::pair{"hidden_size", &c.dim},
        std::pair{"num_attention_heads", &c.n_heads}, std::pair{"intermediate_size", &c.ffn_dim},
        std::pair{"vocab_size", &c.vocab}}) {
    auto v = configInt(cfg, key);
    if (!v) return fail(v.error());
    *field = v.value();
  }
  auto kv = configInt(cfg, "num_key_value_heads", c.n_heads);
  if (!kv) return fail(kv.error());
  // Baichuan-13B configs name their context model_max_length instead.
  auto trained = configInt(cfg, "model_max_length", 4096);
  if (!trained) return fail(trained.error());
  auto context = configInt(cfg, "max_position_embeddings", trained.value());
  if (!context) return fail(context.error());
  c.n_kv_heads = kv.value();
  c.context = context.value();
  if (c.dim % c.n_heads != 0 || c.n_heads % c.n_kv_heads != 0 || (c.dim / c.n_heads) % 2 != 0)
    return fail("config.json: inconsistent heads: " + std::to_string(c.n_heads) + " heads, " +
                std::to_string(c.n_kv_heads) + " KV heads, width " + std::to_string(c.dim));
  c.head_dim = c.rope_dim = c.dim / c.n_heads;
  if (const Json* e = jsonFind(cfg, "rms_norm_eps"); e && e->is_number())
    c.rms_eps = static_cast<float>(*jsonNumber(*e));
  if (const Json* t = jsonFind(cfg, "rope_theta"); t && t->is_number())
    c.rope_theta = static_cast<float>(*jsonNumber(*t));
  c.positional = baichuan && c.n_layers == 40 ? Positional::Alibi : Positional::Rope;
  if (const Json* p = jsonFind(cfg, "tokenscope_positional")) {
    const std::string* name = p->get_ptr<const std::string*>();
    if (!name || (*name != "alibi" && *name != "rope"))
      return fail("config.json: \"tokenscope_positional\": expected \"alibi\" or \"rope\"");
    c.positional = *name == "alibi" ? Positional::Alibi : Positional::Rope;
  }
  if (tied) {
    const Json* t = jsonFind(cfg, "tie_word_embeddings");
    *tied = t && t->is_boolean() && t->get<bool>();
  }
  return c;
}

}  // namespace

Result<ModelConfig> configFromHfFolder(const std::string& folder, bool* tied) {
  const fs::path dir(folder);
  if (!fs::exists(dir / "config.json"))
    return fail("expected a Hugging Face model folder with config.json, found none");
  auto config_json = readJsonFile((dir / "config.json").string());
  if (!config_json) return fail(config_json.error());
  return configFromHfJson(config_json.value(), tied);
}

Result<std::shared_ptr<Model>> loadHfFolder(const std::string& folder, const LoadProgress& progress,
                                            std::vector<std::shared_ptr<MappedFile>>* files) {
  const fs::path dir(folder);
  bool tied = false;
  auto config = configFromHfFolder(folder, &tied);
  if (!config) return fail(config.error());
  auto model = std::make_shared<Model>();
  ModelConfig& c = model->config;
  c = config.value();
  // Mapping the files is most of a cold load (a 15 GB checkpoint from disk): the first 80%.
  const MapProgress mapping = [&](uint64_t done, uint64_t total) {
    return !progress || progress(0.8 * static_cast<double>(done) / std::max<uint64_t>(1, total));
  };
  auto shards = CheckpointShards::open(dir, mapping);
  if (!shards) return fail(shards.error());
  const CheckpointShards& s = shards.value();
  c.source_format = checkpointFormatName(s.format());
  if (files) *files = s.files();
  const uint64_t D = c.dim, F = c.ffn_dim, V = c.vocab, Q = c.n_heads * c.head_dim,
                 KV = c.n_kv_heads * c.head_dim;
  // Every matrix and the embedding table as stored in the mapped shards; q and k rows
  // reordered (copies in their own type) for the RoPE pairs GGUF files use.
  auto embd = s.matrix("model.embed_tokens.weight", V, D);
  auto norm = s.read("model.norm.weight", {D});
  if (!embd) return fail(embd.error());
  if (!norm) return fail(norm.error());
  model->token_embd = std::move(embd.value());
  model->output_norm = std::move(norm.value());
  const bool has_head = s.has("lm_head.weight");
  if (!has_head && !tied) return fail("missing tensor 'lm_head.weight'");
  if (has_head) {
    auto head = s.matrix("lm_head.weight", V, D);
    if (!head) return fail(head.error());
    model->classifier = std::move(head.value());
  } else {
    model->classifier = model->token_embd;  // tied: the same bytes
  }
  const bool rope = c.positional == Positional::Rope;
  model->layers.resize(c.n_layers);
  for (int l = 0; l < c.n_layers; ++l) {
    if (progress && !progress(0.8 + 0.2 * l / c.n_layers)) return fail(kLoadCancelled);
    LayerWeights& L = model->layers[l];
    const std::string p = "model.layers." + std::to_string(l) + ".";
    if (s.has(p + "self_attn.W_pack.weight")) {  // Baichuan: q, k, v stacked
      if (c.n_kv_heads != c.n_heads)
        return fail("W_pack with grouped-query attention: expected equal head counts");
      auto pack = s.matrix(p + "self_attn.W_pack.weight", 3 * D, D);
      if (!pack) return fail(pack.error());
      L.wq = storedRows(pack.value(), 0, c.dim);
      L.wk = storedRows(pack.value(), c.dim, c.dim);
      L.wv = storedRows(pack.value(), 2 * c.dim, c.dim);
    } else {
      for (auto [name, rows, dst] : {std::tuple{"self_attn.q_proj.weight", Q, &L.wq},
                                     std::tuple{"self_attn.k_proj.weight", KV, &L.wk},
                                     std::tuple{"self_attn.v_proj.weight", KV, &L.wv}}) {
        auto w = s.matrix(p + name, rows, D);
        if (!w) return fail(w.error());
        *dst = std::move(w.value());
      }
    }
    if (rope) {
      // The copies replace the file's rows, whose pages this process then gives back (they
      // would otherwise stay resident beside the copies: 2 x 32 MB a layer for 7B).
      for (QuantMatrix* m : {&L.wq, &L.wk}) {
        QuantMatrix pairs = ropePairRows(*m, m == &L.wq ? c.n_heads : c.n_kv_heads, c.head_dim);
        for (const auto& file : s.files())
          if (m->owner().get() == file.get())
            file->release({static_cast<const uint8_t*>(m->storage()), m->bytes()});
        *m = std::move(pairs);
      }
    }
    for (auto [name, shape, dst] :
         {std::tuple{"input_layernorm.weight", std::vector<uint64_t>{D}, &L.attn_norm},
          std::tuple{"post_attention_layernorm.weight", std::vector<uint64_t>{D}, &L.ffn_norm}}) {
      auto w = s.read(p + name, shape);
      if (!w) return fail(w.error());
      *dst = std::move(w.value());
    }
    for (auto [name, rows, cols, dst] : {std::tuple{"self_attn.o_proj.weight", D, Q, &L.wo},
                                         std::tuple{"mlp.gate_proj.weight", F, D, &L.w_gate},
                                         std::tuple{"mlp.up_proj.weight", F, D, &L.w_up},
                                         std::tuple{"mlp.down_proj.weight", D, F, &L.w_down}}) {
      auto w = s.matrix(p + name, rows, cols);
      if (!w) return fail(w.error());
      *dst = std::move(w.value());
    }
  }
  if (fs::exists(dir / "tokenizer.model")) {
    auto file = MappedFile::open((dir / "tokenizer.model").string());
    if (!file) return fail(file.error());
    auto vocab = parseSentencePieceModel(file.value()->bytes());
    if (!vocab) return fail(vocab.error());
    model->vocab = std::move(vocab.value());
  }
  return model;
}

}  // namespace ts::engine
