#include "inference/engine/formats/gguf_export.h"

#include <filesystem>
#include <map>

#include "inference/engine/formats/checkpoint_shards.h"
#include "inference/engine/formats/hf_loader.h"
#include "inference/engine/formats/json_reader.h"
#include "inference/engine/formats/mapped_file.h"
#include "inference/engine/formats/model_config_readers.h"
#include "inference/engine/formats/model_writer.h"
#include "inference/engine/tokenizer/sentencepiece_model.h"

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

// The vocabulary from tokenizer.model, with config.json's special ids where it names them.
Result<Vocabulary> exportVocabulary(const fs::path& dir, const Json& config) {
  // A GGUF without its vocabulary is of no use to llama.cpp: the tokenizer is required.
  if (!fs::exists(dir / "tokenizer.model"))
    return fail(
        "expected tokenizer.model in the folder (the GGUF carries the vocabulary), "
        "found none");
  auto file = MappedFile::open((dir / "tokenizer.model").string());
  if (!file) return fail(file.error());
  auto parsed = parseSentencePieceModel(file.value()->bytes());
  if (!parsed) return fail("tokenizer.model: " + parsed.error());
  Vocabulary v = std::move(parsed.value());
  for (auto [key, id] : {std::pair{"bos_token_id", &v.bos}, std::pair{"eos_token_id", &v.eos}})
    if (const Json* j = jsonFind(config, key); j && jsonInt(*j))
      *id = static_cast<int>(*jsonInt(*j));
  return v;
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
  const uint64_t D = c.dim, F = c.ffn_dim, V = c.vocab, Q = uint64_t(c.n_heads) * c.head_dim,
                 KV = uint64_t(c.n_kv_heads) * c.head_dim;
  const CheckpointShards* shards = &s;
  std::vector<std::pair<std::string, std::vector<uint64_t>>> sources;  // checked up front
  const auto read = [&](std::string name, std::vector<uint64_t> shape) {
    sources.emplace_back(name, shape);
    return [shards, name, shape]() -> Values { return shards->read(name, shape); };
  };
  // q / k rows from rotate-half to adjacent pairs; from W_pack rows [first, first + rows).
  const auto qk = [&](std::string name, uint64_t rows, uint64_t cols, uint64_t first,
                      uint64_t count, int heads, int head_dim) {
    sources.emplace_back(name, std::vector<uint64_t>{rows, cols});
    return [=]() -> Values {
      auto w = shards->readRows(name, rows, cols, first, count);
      if (!w) return fail(w.error());
      return rotateHalfToPairs(w.value(), heads, head_dim, static_cast<int>(cols));
    };
  };
  std::vector<TensorToWrite> t;
  t.push_back({"token_embd.weight", {V, D}, read("model.embed_tokens.weight", {V, D})});
  t.push_back({"output_norm.weight", {D}, read("model.norm.weight", {D})});
  if (s.has("lm_head.weight")) {
    sources.emplace_back("lm_head.weight", std::vector<uint64_t>{V, D});
    const bool normalize = result.normalized_head;
    t.push_back({"output.weight", {V, D}, [shards, V, D, normalize]() -> Values {
                   auto w = shards->read("lm_head.weight", {V, D});
                   if (w && normalize)
                     normalizeRows(w.value(), static_cast<int>(V), static_cast<int>(D));
                   return w;
                 }});
  } else if (!tied) {
    return fail("missing tensor 'lm_head.weight'");
  }
  for (int l = 0; l < c.n_layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".",
                      b = "blk." + std::to_string(l) + ".";
    t.push_back({b + "attn_norm.weight", {D}, read(p + "input_layernorm.weight", {D})});
    if (s.has(p + "self_attn.W_pack.weight")) {
      if (c.n_kv_heads != c.n_heads)
        return fail("W_pack with grouped-query attention: expected equal head counts");
      const std::string pack = p + "self_attn.W_pack.weight";
      t.push_back({b + "attn_q.weight", {D, D}, qk(pack, 3 * D, D, 0, D, c.n_heads, c.head_dim)});
      t.push_back({b + "attn_k.weight", {D, D}, qk(pack, 3 * D, D, D, D, c.n_heads, c.head_dim)});
      t.push_back({b + "attn_v.weight", {D, D}, [shards, pack, D]() -> Values {
                     return shards->readRows(pack, 3 * D, D, 2 * D, D);
                   }});
    } else {
      t.push_back({b + "attn_q.weight",
                   {Q, D},
                   qk(p + "self_attn.q_proj.weight", Q, D, 0, Q, c.n_heads, c.head_dim)});
      t.push_back({b + "attn_k.weight",
                   {KV, D},
                   qk(p + "self_attn.k_proj.weight", KV, D, 0, KV, c.n_kv_heads, c.head_dim)});
      t.push_back({b + "attn_v.weight", {KV, D}, read(p + "self_attn.v_proj.weight", {KV, D})});
    }
    t.push_back({b + "attn_output.weight", {D, Q}, read(p + "self_attn.o_proj.weight", {D, Q})});
    t.push_back({b + "ffn_norm.weight", {D}, read(p + "post_attention_layernorm.weight", {D})});
    t.push_back({b + "ffn_gate.weight", {F, D}, read(p + "mlp.gate_proj.weight", {F, D})});
    t.push_back({b + "ffn_up.weight", {F, D}, read(p + "mlp.up_proj.weight", {F, D})});
    t.push_back({b + "ffn_down.weight", {D, F}, read(p + "mlp.down_proj.weight", {D, F})});
  }
  // Every source tensor is checked before the file is started: a missing one, a wrong shape
  // or an unreadable type fails at once.
  for (const auto& [name, shape] : sources)
    if (auto found = s.find(name, shape); !found) return fail(found.error());

  GgufWriteOptions w;
  w.matrices = result.matrices;
  w.quantize_embedding = true;
  w.name = fs::path(folder).filename().string();
  w.progress = options.progress;
  w.extra_strings = {{c.architecture + ".tensor_data_layout", "Meta AI original pth"}};
  w.special_ids = {{"tokenizer.ggml.padding_token_id", 0}};
  if (const Json* pad = jsonFind(config_json.value(), "pad_token_id"); pad && jsonInt(*pad))
    w.special_ids[0].second = static_cast<int>(*jsonInt(*pad));
  if (auto tokenizer = readJsonFile((dir / "tokenizer_config.json").string())) {
    for (const char* key : {"add_bos_token", "add_eos_token"})
      if (const Json* flag = jsonFind(tokenizer.value(), key); flag && flag->is_boolean())
        w.special_flags.push_back({std::string("tokenizer.ggml.") + key, flag->get<bool>()});
  }
  auto written = writeGgufTensors(c, vocab.value(), t, out, w);
  if (!written) return fail(written.error());
  result.tensors = static_cast<int>(t.size());
  return result;
}

}  // namespace ts::engine
