#include "inference/engine/formats/hf_loader.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include "inference/engine/formats/json_reader.h"
#include "inference/engine/formats/mapped_file.h"
#include "inference/engine/formats/model_config_readers.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/formats/safetensors.h"
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

Result<std::string> readText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Result<Json> readJson(const fs::path& path) {
  auto text = readText(path);
  if (!text) return fail(text.error());
  auto json = parseJson(text.value());
  if (!json) return fail(path.filename().string() + ": " + json.error());
  return json;
}

// A stored matrix's rows reordered from rotate-half to adjacent pairs, in its own type
// (whole rows move: no conversion). A copy: the file's order cannot be mapped as it is.
QuantMatrix ropePairRows(const QuantMatrix& m, int heads, int head_dim) {
  auto bytes = std::make_shared<std::vector<uint8_t>>(m.bytes());
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

// The shards: one mapped file per safetensors file, and where each tensor lives.
struct Shards {
  std::vector<std::shared_ptr<MappedFile>> files;
  std::vector<SafetensorsFile> parsed;
  std::map<std::string, std::pair<size_t, const SafetensorsTensor*>> tensors;

  Result<bool> add(const fs::path& path) {
    auto file = MappedFile::open(path.string(), MappedFile::Access::Whole);
    if (!file) return fail(file.error());
    auto parsed_file = parseSafetensors(file.value()->bytes());
    if (!parsed_file) return fail(path.filename().string() + ": " + parsed_file.error());
    files.push_back(file.value());
    parsed.push_back(std::move(parsed_file.value()));
    return true;
  }
  void index() {
    for (size_t i = 0; i < parsed.size(); ++i)
      for (const auto& t : parsed[i].tensors) tensors[t.name] = {i, &t};
  }

  struct Found {
    const SafetensorsTensor* tensor;
    TensorType type;
    const std::shared_ptr<MappedFile>* file;
  };
  // Tensor `name`, checked: present, of shape `shape`, in a type the engine reads.
  Result<Found> find(const std::string& name, const std::vector<uint64_t>& shape) const {
    const auto it = tensors.find(name);
    if (it == tensors.end()) return fail("missing tensor '" + name + "'");
    const SafetensorsTensor& t = *it->second.second;
    if (t.shape != shape) {
      const auto text = [](const std::vector<uint64_t>& s) {
        std::string out = "[";
        for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
        return out + "]";
      };
      return fail("tensor '" + name + "': expected shape " + text(shape) + ", found " +
                  text(t.shape));
    }
    const auto type = t.type();
    if (!type)
      return fail("tensor '" + name + "' is stored as " + t.dtype +
                  ", which this engine cannot load (supported: F32, F16, BF16)");
    return Found{&t, *type, &files[it->second.first]};
  }

  // Matrix `name` [rows, cols] as stored in its mapped shard (F32, F16 or BF16: no copy).
  Result<QuantMatrix> matrix(const std::string& name, uint64_t rows, uint64_t cols) const {
    auto f = find(name, {rows, cols});
    if (!f) return fail(f.error());
    const std::shared_ptr<MappedFile>& file = *f->file;
    return QuantMatrix::stored(f->type, file->bytes().data() + f->tensor->offset,
                               static_cast<int>(rows), static_cast<int>(cols), file);
  }

  // Tensor `name` as f32, checked as find() does.
  Result<WeightBuffer<float>> read(const std::string& name, std::vector<uint64_t> shape) const {
    auto f = find(name, shape);
    if (!f) return fail(f.error());
    uint64_t n = 1;
    for (uint64_t d : shape) n *= d;
    WeightBuffer<float> out(n);
    dequantize(f->type, (*f->file)->bytes().subspan(f->tensor->offset, f->tensor->bytes),
               out.data(), out.size());
    return out;
  }
};

}  // namespace

Result<std::vector<fs::path>> safetensorsFiles(const fs::path& dir) {
  std::vector<fs::path> files;
  const fs::path index = dir / "model.safetensors.index.json";
  if (fs::exists(index)) {
    auto json = readJson(index);
    if (!json) return fail(json.error());
    const Json* map = jsonFind(json.value(), "weight_map");
    if (!map || !map->is_object())
      return fail("model.safetensors.index.json: expected an object \"weight_map\"");
    std::set<std::string> names;
    for (const auto& [tensor, file] : map->items()) {
      if (!file.is_string())
        return fail("model.safetensors.index.json: weight_map['" + tensor +
                    "']: expected a file name, found " + file.type_name());
      const std::string& name = file.get_ref<const std::string&>();
      if (name.find('/') != std::string::npos || name.find("..") != std::string::npos)
        return fail("model.safetensors.index.json: expected a file name in the folder, found '" +
                    name + "'");
      names.insert(name);
    }
    for (const auto& name : names) {
      if (!fs::exists(dir / name))
        return fail("shard " + name + " named by model.safetensors.index.json is missing");
      files.push_back(dir / name);
    }
  } else if (fs::exists(dir / "model.safetensors")) {
    files.push_back(dir / "model.safetensors");
  } else {
    const bool torch =
        fs::exists(dir / "pytorch_model.bin") || fs::exists(dir / "pytorch_model.bin.index.json");
    return fail(std::string("expected model.safetensors or model.safetensors.index.json") +
                (torch ? ", found PyTorch .bin weights: convert them to safetensors first"
                       : ", found neither"));
  }
  return files;
}

namespace {

Result<Shards> openShards(const fs::path& dir) {
  auto files = safetensorsFiles(dir);
  if (!files) return fail(files.error());
  Shards shards;
  for (const fs::path& file : files.value())
    if (auto ok = shards.add(file); !ok) return fail(ok.error());
  shards.index();
  return shards;
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
  ModelConfig c;
  c.architecture = baichuan ? "baichuan" : "llama";
  c.source_format = "safetensors";
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
  auto config_json = readJson(dir / "config.json");
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
  auto shards = openShards(dir);
  if (!shards) return fail(shards.error());
  const Shards& s = shards.value();
  if (files) *files = s.files;
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
  const bool has_head = s.tensors.count("lm_head.weight") > 0;
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
    if (progress && !progress(static_cast<double>(l) / c.n_layers)) return fail(kLoadCancelled);
    LayerWeights& L = model->layers[l];
    const std::string p = "model.layers." + std::to_string(l) + ".";
    if (s.tensors.count(p + "self_attn.W_pack.weight")) {  // Baichuan: q, k, v stacked
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
      L.wq = ropePairRows(L.wq, c.n_heads, c.head_dim);
      L.wk = ropePairRows(L.wk, c.n_kv_heads, c.head_dim);
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
