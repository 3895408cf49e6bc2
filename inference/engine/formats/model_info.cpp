#include "inference/engine/formats/model_info.h"

#include <cstring>
#include <filesystem>
#include <optional>

#include "inference/engine/formats/checkpoint_shards.h"
#include "inference/engine/formats/hf_loader.h"
#include "inference/engine/formats/mapped_file.h"
#include "inference/engine/formats/model_config_readers.h"
#include "inference/engine/formats/model_loader.h"

namespace ts::engine {
namespace fs = std::filesystem;
namespace {

// Adds a 2-D tensor to s.matrices unless it is the embedding table (kept aside in *table
// for a classifier tied to it).
void addMatrix(ModelSummary& s, std::optional<TensorType> type,
               const std::vector<uint64_t>& rows_cols, bool embedding, StoredMatrix* table) {
  if (rows_cols.size() != 2 || !type) return;
  const StoredMatrix m{*type, static_cast<int>(rows_cols[0]), static_cast<int>(rows_cols[1])};
  if (embedding)
    *table = m;
  else
    s.matrices.push_back(m);
}

Result<ModelSummary> inspectFolder(const std::string& folder) {
  auto config = configFromHfFolder(folder);
  if (!config) return fail(config.error());
  auto shards = CheckpointShards::inspect(folder);  // only headers and pickles are touched
  if (!shards) return fail(shards.error());
  ModelSummary s;
  s.config = config.value();
  s.config.source_format = checkpointFormatName(shards->format());
  for (const auto& file : shards->files()) s.file_bytes += file->bytes().size();
  StoredMatrix table;
  bool has_head = false;
  for (const CheckpointFile& parsed : shards->parsed()) {
    for (const CheckpointTensor& t : parsed.tensors) {
      uint64_t n = 1;
      for (uint64_t d : t.shape) n *= d;
      s.parameters += n;
      s.tensor_bytes += t.bytes;
      ++s.stored_types[t.dtype];
      has_head = has_head || t.name == "lm_head.weight";
      addMatrix(s, t.type(), t.shape, t.name == "model.embed_tokens.weight", &table);
    }
  }
  if (!has_head && table.rows) s.matrices.push_back(table);  // tied to the embeddings
  return s;
}

Result<ModelSummary> inspectFile(const std::string& path) {
  auto file = MappedFile::open(path);
  if (!file) return fail(file.error());
  const auto bytes = file.value()->bytes();
  ModelSummary s;
  s.file_bytes = bytes.size();
  if (bytes.size() >= 4 && std::memcmp(bytes.data(), "GGUF", 4) == 0) {
    auto g = parseGguf(bytes);
    if (!g) return fail(g.error());
    auto config = configFromGguf(g.value());
    if (!config) return fail(config.error());
    s.config = config.value();
    StoredMatrix table;
    bool has_head = false;
    for (const GgufTensor& t : g->tensors) {
      s.parameters += t.elements();
      s.tensor_bytes += t.bytes;
      ++s.stored_types[typeName(t.type)];
      has_head = has_head || t.name == "output.weight";
      if (t.dims.size() == 2)  // ggml order: dims[0] is the row length
        addMatrix(s, t.type, {t.dims[1], t.dims[0]}, t.name == "token_embd.weight", &table);
    }
    if (!has_head && table.rows) s.matrices.push_back(table);  // tied to the embeddings
    return s;
  }
  auto layout = parseLlama2c(bytes);
  if (!layout) return fail(layout.error());
  const Llama2cHeader& h = layout->header;
  s.config = configFromLlama2c(h);
  const ModelConfig& c = s.config;
  const uint64_t D = c.dim, F = c.ffn_dim, V = c.vocab, Q = c.n_heads * c.head_dim,
                 KV = c.n_kv_heads * c.head_dim;
  s.parameters = V * D + D + c.n_layers * (2 * D + D * Q + 2 * D * KV + Q * D + 3 * D * F);
  if (!h.shared_classifier) s.parameters += V * D;
  s.stored_types["F32"] = 2 + 9 * c.n_layers + (h.shared_classifier ? 0 : 1);
  s.tensor_bytes = s.parameters * 4;
  const int d = c.dim, f = c.ffn_dim, q = c.n_heads * c.head_dim, kv = c.n_kv_heads * c.head_dim;
  s.matrices.push_back({TensorType::F32, c.vocab, d});  // the classifier, tied or not
  for (int l = 0; l < c.n_layers; ++l)
    for (auto [rows, cols] : {std::pair{q, d}, std::pair{kv, d}, std::pair{kv, d}, std::pair{d, q},
                              std::pair{f, d}, std::pair{f, d}, std::pair{d, f}})
      s.matrices.push_back({TensorType::F32, rows, cols});
  return s;
}

}  // namespace

uint64_t storedBytesFor(const ModelConfig& c, TensorType type) {
  const uint64_t D = c.dim, F = c.ffn_dim, V = c.vocab,
                 Q = static_cast<uint64_t>(c.n_heads) * c.head_dim,
                 KV = static_cast<uint64_t>(c.n_kv_heads) * c.head_dim;
  const auto matrix = [&](uint64_t rows, uint64_t cols) { return rows * rowBytes(type, cols); };
  uint64_t bytes = 2 * matrix(V, D) + D * 4;  // embedding, classifier, output norm
  bytes += c.n_layers * (matrix(Q, D) + 2 * matrix(KV, D) + matrix(D, Q) + 2 * matrix(F, D) +
                         matrix(D, F) + 2 * D * 4);
  return bytes;
}

Result<ModelSummary> inspectModel(const std::string& path) {
  const std::string folder = hfFolderOf(path);
  auto summary = folder.empty() ? inspectFile(path) : inspectFolder(folder);
  if (!summary) return fail(path + ": " + summary.error());
  ModelSummary& s = summary.value();
  s.config.norm_head = s.config.architecture == "baichuan" && s.config.vocab == kBaichuan2Vocab;
  if (auto vocab = loadVocabulary(path); vocab && !vocab->pieces.empty())
    s.vocabulary_pieces = static_cast<int>(vocab->pieces.size());
  else
    s.vocabulary_note = vocab ? "the file carries no vocabulary" : vocab.error();
  return summary;
}

}  // namespace ts::engine
