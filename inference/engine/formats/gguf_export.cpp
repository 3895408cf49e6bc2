#include "inference/engine/formats/gguf_export.h"

#include <filesystem>
#include <map>

#include "inference/engine/formats/checkpoint_shards.h"
#include "inference/engine/formats/hf_loader.h"
#include "inference/engine/formats/json_reader.h"
#include "inference/engine/formats/model_config_readers.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/formats/model_writer.h"

namespace ts::engine {
namespace fs = std::filesystem;
namespace {

using Values = Result<WeightBuffer<float>>;

// The type most matrices are stored in (what "as stored" writes).
TensorType storedMatrixType(const CheckpointShards& s) {
  std::map<TensorType, int> counts;
  for (const CheckpointFile& file : s.parsed())
    for (const CheckpointTensor& t : file.tensors)
      if (t.shape.size() == 2 && t.type()) ++counts[*t.type()];
  TensorType best = TensorType::F32;
  int most = 0;
  for (auto [type, n] : counts)
    if (n > most) best = type, most = n;
  return best;
}

// The vocabulary from tokenizer.model (required: a GGUF without one is of no use to
// llama.cpp), with config.json's BOS / EOS where it names them.
Result<Vocabulary> exportVocabulary(const fs::path& dir, const Json& config) {
  if (!fs::exists(dir / "tokenizer.model"))
    return fail(
        "expected tokenizer.model in the folder (the GGUF carries the vocabulary), found none");
  auto v = loadVocabulary(dir.string());
  if (!v) return v;
  for (auto [key, id] : {std::pair{"bos_token_id", &v->bos}, std::pair{"eos_token_id", &v->eos}})
    if (const Json* j = jsonFind(config, key); j && jsonInt(*j))
      *id = static_cast<int>(*jsonInt(*j));
  return v;
}

// The GGUF's tensors, each read from the mapped shards when the writer reaches it, and
// the checkpoint tensors they read (check() before the file is started: a missing one, a
// wrong shape or an unreadable type fails at once).
class ExportPlan {
 public:
  explicit ExportPlan(const CheckpointShards& shards) : s_(&shards) {}
  // `source` [shape] as it is.
  void copy(std::string name, std::vector<uint64_t> shape, const std::string& source) {
    sources_.emplace_back(source, shape);
    const CheckpointShards* s = s_;
    tensors.push_back({std::move(name), shape,
                       [s, source, shape]() -> Values { return s->read(source, shape); }});
  }
  // Rows [first, first + count) of `source` [rows, cols], q / k ones (heads of head_dim)
  // permuted from rotate-half to adjacent RoPE pairs.
  void rows(std::string name, const std::string& source, uint64_t rows, uint64_t cols,
            uint64_t first, uint64_t count, int heads = 0, int head_dim = 0) {
    sources_.emplace_back(source, std::vector<uint64_t>{rows, cols});
    const CheckpointShards* s = s_;
    tensors.push_back({std::move(name), {count, cols}, [=]() -> Values {
                         auto w = s->readRows(source, rows, cols, first, count);
                         if (!w || heads == 0) return w;
                         return rotateHalfToPairs(w.value(), heads, head_dim,
                                                  static_cast<int>(cols));
                       }});
  }
  // The classifier [vocab, dim], its rows L2-normalized in f32 when `normalize` (NormHead).
  void head(uint64_t vocab, uint64_t dim, bool normalize) {
    sources_.emplace_back("lm_head.weight", std::vector<uint64_t>{vocab, dim});
    const CheckpointShards* s = s_;
    tensors.push_back({"output.weight", {vocab, dim}, [s, vocab, dim, normalize]() -> Values {
                         auto w = s->read("lm_head.weight", {vocab, dim});
                         if (w && normalize)
                           normalizeRows(w.value(), static_cast<int>(vocab), static_cast<int>(dim));
                         return w;
                       }});
  }
  Result<bool> check() const {
    for (const auto& [name, shape] : sources_)
      if (auto found = s_->find(name, shape); !found) return fail(found.error());
    return true;
  }
  std::vector<TensorToWrite> tensors;

 private:
  const CheckpointShards* s_;
  std::vector<std::pair<std::string, std::vector<uint64_t>>> sources_;
};

// llama.cpp's tensors for one layer: W_pack split (or q / k / v), q and k in RoPE pairs.
Result<bool> planLayer(ExportPlan& plan, const CheckpointShards& s, const ModelConfig& c, int l) {
  const uint64_t D = c.dim, F = c.ffn_dim, Q = uint64_t(c.n_heads) * c.head_dim,
                 KV = uint64_t(c.n_kv_heads) * c.head_dim;
  const std::string p = "model.layers." + std::to_string(l) + ".",
                    b = "blk." + std::to_string(l) + ".";
  plan.copy(b + "attn_norm.weight", {D}, p + "input_layernorm.weight");
  if (const std::string pack = p + "self_attn.W_pack.weight"; s.has(pack)) {
    if (c.n_kv_heads != c.n_heads)
      return fail("W_pack with grouped-query attention: expected equal head counts");
    plan.rows(b + "attn_q.weight", pack, 3 * D, D, 0, D, c.n_heads, c.head_dim);
    plan.rows(b + "attn_k.weight", pack, 3 * D, D, D, D, c.n_heads, c.head_dim);
    plan.rows(b + "attn_v.weight", pack, 3 * D, D, 2 * D, D);
  } else {
    plan.rows(b + "attn_q.weight", p + "self_attn.q_proj.weight", Q, D, 0, Q, c.n_heads,
              c.head_dim);
    plan.rows(b + "attn_k.weight", p + "self_attn.k_proj.weight", KV, D, 0, KV, c.n_kv_heads,
              c.head_dim);
    plan.copy(b + "attn_v.weight", {KV, D}, p + "self_attn.v_proj.weight");
  }
  plan.copy(b + "attn_output.weight", {D, Q}, p + "self_attn.o_proj.weight");
  plan.copy(b + "ffn_norm.weight", {D}, p + "post_attention_layernorm.weight");
  plan.copy(b + "ffn_gate.weight", {F, D}, p + "mlp.gate_proj.weight");
  plan.copy(b + "ffn_up.weight", {F, D}, p + "mlp.up_proj.weight");
  plan.copy(b + "ffn_down.weight", {D, F}, p + "mlp.down_proj.weight");
  return true;
}

// The keys llama.cpp's converter writes beside the architecture's: the tensor layout, the
// padding id, tokenizer_config.json's add_bos_token / add_eos_token.
GgufWriteOptions writerOptions(const fs::path& dir, const ModelConfig& c, const Json& config) {
  GgufWriteOptions w;
  w.quantize_embedding = true;
  w.name = dir.filename().string();
  w.extra_strings = {{c.architecture + ".tensor_data_layout", "Meta AI original pth"}};
  w.special_ids = {{"tokenizer.ggml.padding_token_id", 0}};
  if (const Json* pad = jsonFind(config, "pad_token_id"); pad && jsonInt(*pad))
    w.special_ids[0].second = static_cast<int>(*jsonInt(*pad));
  if (auto tokenizer = readJsonFile((dir / "tokenizer_config.json").string()))
    for (const char* key : {"add_bos_token", "add_eos_token"})
      if (const Json* flag = jsonFind(tokenizer.value(), key); flag && flag->is_boolean())
        w.special_flags.push_back({std::string("tokenizer.ggml.") + key, flag->get<bool>()});
  return w;
}

}  // namespace

Result<GgufExportResult> exportHfFolderToGguf(const std::string& folder, const std::string& out,
                                              const GgufExportOptions& options) {
  const fs::path dir(folder);
  bool tied = false;
  auto config = configFromHfFolder(folder, &tied);
  if (!config) return fail(config.error());
  auto config_json = readJsonFile((dir / "config.json").string());
  if (!config_json) return fail(config_json.error());
  auto opened = CheckpointShards::inspect(dir);  // pages are read as each tensor is written
  if (!opened) return fail(opened.error());
  const CheckpointShards& s = opened.value();
  ModelConfig c = config.value();
  c.source_format = checkpointFormatName(s.format());
  auto vocab = exportVocabulary(dir, config_json.value());
  if (!vocab) return fail(vocab.error());

  GgufExportResult result;
  result.architecture = c.architecture;
  result.matrices = options.matrices.value_or(storedMatrixType(s));
  result.normalized_head = c.architecture == "baichuan" && c.vocab == kBaichuan2Vocab;
  const uint64_t D = c.dim, V = c.vocab;
  ExportPlan plan(s);
  plan.copy("token_embd.weight", {V, D}, "model.embed_tokens.weight");
  plan.copy("output_norm.weight", {D}, "model.norm.weight");
  if (s.has("lm_head.weight"))
    plan.head(V, D, result.normalized_head);
  else if (!tied)
    return fail("missing tensor 'lm_head.weight'");
  for (int l = 0; l < c.n_layers; ++l)
    if (auto ok = planLayer(plan, s, c, l); !ok) return fail(ok.error());
  if (auto ok = plan.check(); !ok) return fail(ok.error());

  GgufWriteOptions w = writerOptions(dir, c, config_json.value());
  w.matrices = result.matrices;
  w.progress = options.progress;
  auto written = writeGgufTensors(c, vocab.value(), plan.tensors, out, w);
  if (!written) return fail(written.error());
  result.tensors = static_cast<int>(plan.tensors.size());
  return result;
}

}  // namespace ts::engine
