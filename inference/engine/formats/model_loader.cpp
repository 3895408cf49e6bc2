// GGUF and llama2.c -> Model. Architecture selection follows what the file says:
// GGUF general.architecture "llama" or "baichuan"; a baichuan file with 40 blocks is the
// 13B layout (ALiBi, no RoPE), as GGUF producers mark it; every other one uses RoPE, unless
// our own key tokenscope.positional ("alibi" | "rope") says otherwise (model_writer.h).
#include <atomic>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <new>
#include <optional>
#include <set>
#include <tuple>

#include "inference/engine/formats/model_loader.h"

#include "inference/engine/core/thread_pool.h"
#include "inference/engine/cpu/kernels/gguf_kernels.h"
#include "inference/engine/formats/generation_config.h"
#include "inference/engine/formats/gguf.h"
#include "inference/engine/formats/gguf_quantize.h"
#include "inference/engine/formats/hf_loader.h"
#include "inference/engine/formats/mapped_file.h"
#include "inference/engine/formats/model_config_readers.h"
#include "inference/engine/formats/quant_cache.h"
#include "inference/engine/formats/quant_cache_limit.h"
#include "inference/engine/tokenizer/sentencepiece_model.h"

namespace ts::engine {
namespace {

std::string shapeText(const std::vector<uint64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

// Copies tensor `name` as f32, checking its ggml shape [in, out] (or [n] for vectors).
Result<WeightBuffer<float>> readTensor(const GgufFile& g, std::span<const uint8_t> bytes,
                                       const std::string& name, std::vector<uint64_t> shape) {
  const GgufTensor* t = g.tensor(name);
  if (!t) return fail("missing tensor '" + name + "'");
  if (t->dims != shape)
    return fail("tensor '" + name + "': expected shape " + shapeText(shape) + ", found " +
                shapeText(t->dims));
  WeightBuffer<float> out(t->elements());
  if (!dequantize(t->type, bytes.subspan(t->offset, t->bytes), out.data(), out.size()))
    return fail("tensor '" + name + "' is stored as " + typeName(t->type) +
                ", which this engine cannot load (supported: " + kSupportedTypes + ")");
  return out;
}

Result<int64_t> metaInt(const GgufFile& g, const std::string& key) {
  const GgufValue* v = g.find(key);
  if (!v) return fail("missing metadata '" + key + "'");
  const auto i = v->asInt();
  if (!i || *i <= 0) return fail("metadata '" + key + "': expected a positive integer");
  return *i;
}

Vocabulary vocabFromGguf(const GgufFile& g) {
  Vocabulary v;
  if (const GgufValue* tokens = g.find("tokenizer.ggml.tokens"); tokens && tokens->asArray())
    for (const auto& t : *tokens->asArray()) v.pieces.push_back(t.asString() ? *t.asString() : "");
  if (const GgufValue* scores = g.find("tokenizer.ggml.scores"); scores && scores->asArray())
    for (const auto& s : *scores->asArray())
      v.scores.push_back(static_cast<float>(s.asFloat().value_or(0)));
  if (const GgufValue* types = g.find("tokenizer.ggml.token_type"); types && types->asArray())
    for (const auto& t : *types->asArray())
      v.types.push_back(static_cast<int32_t>(t.asInt().value_or(1)));
  if (const GgufValue* b = g.find("tokenizer.ggml.bos_token_id"))
    v.bos = static_cast<int32_t>(b->asInt().value_or(1));
  if (const GgufValue* e = g.find("tokenizer.ggml.eos_token_id"))
    v.eos = static_cast<int32_t>(e->asInt().value_or(2));
  if (const GgufValue* p = g.find("tokenizer.ggml.add_space_prefix"))
    if (const bool* flag = std::get_if<bool>(&p->v)) v.add_dummy_prefix = *flag;
  if (const GgufValue* u = g.find("tokenizer.ggml.unknown_token_id"))
    v.unk = static_cast<int32_t>(u->asInt().value_or(0));
  return v;
}

// Tensor `name` of ggml shape [in, out] as a view of the mapped file (any type: rows are
// dequantized where a product has no kernel for it).
Result<QuantMatrix> storedTensor(const GgufFile& g, const std::shared_ptr<MappedFile>& file,
                                 const std::string& name, uint64_t in, uint64_t out) {
  const GgufTensor* t = g.tensor(name);
  if (!t) return fail("missing tensor '" + name + "'");
  if (t->dims != std::vector<uint64_t>{in, out})
    return fail("tensor '" + name + "': expected shape " + shapeText({in, out}) + ", found " +
                shapeText(t->dims));
  return QuantMatrix::stored(t->type, file->bytes().data() + t->offset, static_cast<int>(out),
                             static_cast<int>(in), file);
}

// Matrix `name` of ggml shape [in, out], as stored in the mapped file (no copy). With
// weights as stored, a type without a fused product (Q4_1, Q5_0, Q5_1, Q2_K, Q3_K) becomes
// Q8_0, the nearest type of at least its precision that has one, and `converted` records
// it (an explicit format converts from the stored values later).
Result<QuantMatrix> readMatrix(const GgufFile& g, const std::shared_ptr<MappedFile>& file,
                               const std::string& name, uint64_t in, uint64_t out,
                               WeightFormat weights, std::set<std::string>& converted) {
  auto m = storedTensor(g, file, name, in, out);
  if (!m) return m;
  const TensorType type = m->storedType();
  if (QuantMatrix::storedTypeMultiplies(type) || weights != WeightFormat::Stored) return m;
  converted.insert(typeName(type));
  return storedCopy(m.value(), TensorType::Q8_0);
}

std::string conversionNote(const std::set<std::string>& converted) {
  if (converted.empty()) return "";
  std::string types;
  for (const auto& t : converted) types += (types.empty() ? "" : ", ") + t;
  return types + " tensors converted to Q8_0 at load (no fused product for " + types +
         "; Q8_0 keeps at least their precision)";
}

}  // namespace

ModelConfig configFromLlama2c(const Llama2cHeader& h) {
  return {"llama",      "llama2c",         h.n_layers,        h.dim,           h.n_heads,
          h.n_kv_heads, h.dim / h.n_heads, h.hidden_dim,      h.vocab_size,    h.seq_len,
          1e-5f,        10000.f,           h.dim / h.n_heads, Positional::Rope};
}

std::string hfFolderOf(const std::string& path) {
  namespace fs = std::filesystem;
  if (fs::is_directory(path)) return path;
  const fs::path p(path);
  const fs::path dir = p.parent_path().empty() ? "." : p.parent_path();
  // pytorch_model*.bin beside a config.json (a llama2.c .bin has none)
  const bool torch = p.extension() == ".bin" &&
                     p.filename().string().rfind("pytorch_model", 0) == 0 &&
                     fs::exists(dir / "config.json");
  if (p.filename() == "config.json" || p.extension() == ".safetensors" || torch)
    return dir.string();
  return "";
}

Result<ModelConfig> configFromGguf(const GgufFile& g) {
  const GgufValue* arch_v = g.find("general.architecture");
  const std::string arch = arch_v && arch_v->asString() ? *arch_v->asString() : "";
  if (arch != "llama" && arch != "baichuan")
    return fail("unsupported architecture: expected 'llama' or 'baichuan', found '" + arch + "'");
  ModelConfig c;
  c.architecture = arch;
  c.source_format = "gguf";
  for (auto [key, field] :
       {std::pair{".block_count", &c.n_layers}, std::pair{".embedding_length", &c.dim},
        std::pair{".attention.head_count", &c.n_heads},
        std::pair{".feed_forward_length", &c.ffn_dim}, std::pair{".context_length", &c.context}}) {
    auto v = metaInt(g, arch + key);
    if (!v) return fail(v.error());
    *field = static_cast<int>(v.value());
  }
  c.n_kv_heads = c.n_heads;
  if (g.find(arch + ".attention.head_count_kv")) {
    auto v = metaInt(g, arch + ".attention.head_count_kv");
    if (!v) return fail(v.error());
    c.n_kv_heads = static_cast<int>(v.value());
  }
  if (c.dim % c.n_heads != 0 || c.n_heads % c.n_kv_heads != 0)
    return fail("inconsistent heads: " + std::to_string(c.n_heads) + " heads, " +
                std::to_string(c.n_kv_heads) + " KV heads, width " + std::to_string(c.dim));
  c.head_dim = c.dim / c.n_heads;
  c.rope_dim = c.head_dim;
  if (const GgufValue* r = g.find(arch + ".rope.dimension_count"))
    c.rope_dim = static_cast<int>(r->asInt().value_or(c.head_dim));
  if (const GgufValue* e = g.find(arch + ".attention.layer_norm_rms_epsilon"))
    c.rms_eps = static_cast<float>(e->asFloat().value_or(1e-5));
  if (const GgufValue* t = g.find(arch + ".rope.freq_base"))
    c.rope_theta = static_cast<float>(t->asFloat().value_or(10000.0));
  c.positional = arch == "baichuan" && c.n_layers == 40 ? Positional::Alibi : Positional::Rope;
  if (const GgufValue* p = g.find("tokenscope.positional"); p && p->asString()) {
    if (*p->asString() != "alibi" && *p->asString() != "rope")
      return fail("metadata 'tokenscope.positional': expected 'alibi' or 'rope', found '" +
                  *p->asString() + "'");
    c.positional = *p->asString() == "alibi" ? Positional::Alibi : Positional::Rope;
  }
  const auto embd = g.tensor("token_embd.weight");
  if (!embd || embd->dims.size() != 2) return fail("missing tensor 'token_embd.weight'");
  c.vocab = static_cast<int>(embd->dims[1]);
  return c;
}

namespace {

Result<std::shared_ptr<Model>> fromGguf(const std::shared_ptr<MappedFile>& file,
                                        WeightFormat weights, const LoadProgress& progress) {
  const auto bytes = file->bytes();
  auto parsed = parseGguf(bytes);
  if (!parsed) return fail(parsed.error());
  const GgufFile& g = parsed.value();
  auto config = configFromGguf(g);
  if (!config) return fail(config.error());
  auto model = std::make_shared<Model>();
  ModelConfig& c = model->config;
  c = config.value();
  model->vocab = vocabFromGguf(g);

  const uint64_t D = c.dim, F = c.ffn_dim, V = c.vocab, Q = c.n_heads * c.head_dim,
                 KV = c.n_kv_heads * c.head_dim;
  const auto read = [&](const std::string& name, std::vector<uint64_t> shape,
                        WeightBuffer<float>& out) -> std::optional<Error> {
    auto t = readTensor(g, bytes, name, std::move(shape));
    if (!t) return Error{t.error()};
    out = std::move(t.value());
    return std::nullopt;
  };
  std::set<std::string> converted;
  // The embedding rows are gathered and dequantized one at a time: any type, as stored.
  auto embd = storedTensor(g, file, "token_embd.weight", D, V);
  if (!embd) return fail(embd.error());
  model->token_embd = std::move(embd.value());
  if (auto e = read("output_norm.weight", {D}, model->output_norm)) return *e;
  if (g.tensor("output.weight")) {
    auto head = readMatrix(g, file, "output.weight", D, V, weights, converted);
    if (!head) return fail(head.error());
    model->classifier = std::move(head.value());
  } else {  // tied: the same bytes
    auto head = readMatrix(g, file, "token_embd.weight", D, V, weights, converted);
    if (!head) return fail(head.error());
    model->classifier = std::move(head.value());
  }
  model->layers.resize(c.n_layers);
  for (int l = 0; l < c.n_layers; ++l) {
    if (!progress(static_cast<double>(l) / c.n_layers)) return fail(kLoadCancelled);
    LayerWeights& L = model->layers[l];
    const std::string p = "blk." + std::to_string(l) + ".";
    if (auto e = read(p + "attn_norm.weight", {D}, L.attn_norm)) return *e;
    if (auto e = read(p + "ffn_norm.weight", {D}, L.ffn_norm)) return *e;
    // name, ggml shape [in, out], destination
    for (auto [name, in, out, dst] :
         {std::tuple{"attn_q.weight", D, Q, &L.wq}, std::tuple{"attn_k.weight", D, KV, &L.wk},
          std::tuple{"attn_v.weight", D, KV, &L.wv}, std::tuple{"attn_output.weight", Q, D, &L.wo},
          std::tuple{"ffn_gate.weight", D, F, &L.w_gate},
          std::tuple{"ffn_up.weight", D, F, &L.w_up},
          std::tuple{"ffn_down.weight", F, D, &L.w_down}}) {
      auto w = readMatrix(g, file, p + name, in, out, weights, converted);
      if (!w) return fail(w.error());
      *dst = std::move(w.value());
    }
  }
  model->load_note = conversionNote(converted);
  return model;
}

// A llama2.c vocabulary: given explicitly, else tok<vocab>.bin or tokenizer.bin beside the
// model (none found: an empty vocabulary; --prompt-ids still work).
Result<Vocabulary> llama2cVocabulary(const std::string& path, const std::string& tokenizer_path,
                                     int vocab_size) {
  std::vector<std::string> candidates;
  if (!tokenizer_path.empty()) {
    candidates.push_back(tokenizer_path);
  } else {
    const auto dir = std::filesystem::path(path).parent_path();
    candidates = {(dir / ("tok" + std::to_string(vocab_size) + ".bin")).string(),
                  (dir / "tokenizer.bin").string()};
  }
  for (const auto& candidate : candidates) {
    if (!std::filesystem::exists(candidate)) continue;
    auto file = MappedFile::open(candidate);
    if (!file) return fail(file.error());
    auto vocab = parseLlama2cTokenizer(file.value()->bytes(), vocab_size);
    if (!vocab) return fail(candidate + ": " + vocab.error());
    return vocab;
  }
  if (!tokenizer_path.empty()) return fail("tokenizer " + tokenizer_path + " not found");
  return Vocabulary{};
}

Result<Vocabulary> sentencePieceFile(const std::string& path) {
  auto file = MappedFile::open(path);
  if (!file) return fail(file.error());
  auto vocab = parseSentencePieceModel(file.value()->bytes());
  if (!vocab) return fail(path + ": " + vocab.error());
  return vocab;
}

// The f32 matrices and embedding table stay in the mapped file (stored F32: no copy).
Result<std::shared_ptr<Model>> fromLlama2c(const std::shared_ptr<MappedFile>& file,
                                           const std::string& path,
                                           const std::string& tokenizer_path,
                                           const LoadProgress& progress) {
  auto parsed = parseLlama2c(file->bytes());
  if (!parsed) return fail(parsed.error());
  const Llama2cLayout& L = parsed.value();
  const Llama2cHeader& h = L.header;
  auto model = std::make_shared<Model>();
  ModelConfig& c = model->config;
  c = configFromLlama2c(h);
  const size_t D = c.dim, F = c.ffn_dim, V = c.vocab, KV = c.n_kv_heads * c.head_dim;
  const auto copy = [&](size_t offset, size_t n) {
    return WeightBuffer<float>(L.weights + offset, L.weights + offset + n);
  };
  const auto matrix = [&](size_t offset, size_t rows, size_t cols) {
    return QuantMatrix::stored(TensorType::F32,
                               reinterpret_cast<const uint8_t*>(L.weights + offset),
                               static_cast<int>(rows), static_cast<int>(cols), file);
  };
  model->token_embd = matrix(L.token_embedding, V, D);
  model->output_norm = copy(L.rms_final, D);
  model->classifier = matrix(L.classifier, V, D);
  model->layers.resize(c.n_layers);
  for (size_t l = 0; l < static_cast<size_t>(c.n_layers); ++l) {
    if (!progress(static_cast<double>(l) / c.n_layers)) return fail(kLoadCancelled);
    LayerWeights& w = model->layers[l];
    w.attn_norm = copy(L.rms_att + l * D, D);
    w.wq = matrix(L.wq + l * D * D, D, D);
    w.wk = matrix(L.wk + l * KV * D, KV, D);
    w.wv = matrix(L.wv + l * KV * D, KV, D);
    w.wo = matrix(L.wo + l * D * D, D, D);
    w.ffn_norm = copy(L.rms_ffn + l * D, D);
    w.w_gate = matrix(L.w1 + l * F * D, F, D);
    w.w_down = matrix(L.w2 + l * D * F, D, F);
    w.w_up = matrix(L.w3 + l * F * D, F, D);
  }
  auto vocab = llama2cVocabulary(path, tokenizer_path, c.vocab);
  if (!vocab) return fail(vocab.error());
  model->vocab = std::move(vocab.value());
  return model;
}

}  // namespace

namespace {

// Baichuan2's NormHead: unitRowScale of every row, dequantized one row at a time on every
// core.
std::vector<float> unitRowScales(const QuantMatrix& m) {
  std::vector<float> scales(m.rows());
  ThreadPool pool(ThreadPool::defaultThreads());
  pool.parallelChunks(m.rows(), 256, [&](int begin, int end) {
    std::vector<float> row(m.cols());
    for (int r = begin; r < end; ++r) {
      m.rowF32(r, row.data());
      scales[r] = unitRowScale(row.data(), m.cols());
    }
  });
  return scales;
}

// Runs `fn` on every matrix, on every core, reporting the share done to `progress`; false
// when the callback cancelled (the matrices left are then untouched).
bool eachMatrix(const std::vector<QuantMatrix*>& matrices, const LoadProgress& progress,
                const std::function<void(QuantMatrix&)>& fn) {
  ThreadPool pool(ThreadPool::defaultThreads());
  std::atomic<size_t> next{0};
  std::atomic<bool> cancelled{false}, out_of_memory{false};
  std::mutex report;  // the callback sees one thread at a time, and rising shares: a share
  size_t done = 0;    // counted outside the lock could be reported after a larger one
  pool.parallelFor(pool.threads(), [&](int, int) {
    for (size_t i; !cancelled && (i = next++) < matrices.size();) {
      try {  // (an exception must not leave a pool thread)
        fn(*matrices[i]);
      } catch (const std::bad_alloc&) {  // the others stop too; thrown again below
        out_of_memory = true;
        cancelled = true;
        return;
      }
      std::lock_guard lock(report);
      const double share = static_cast<double>(++done) / matrices.size();
      if (!cancelled && !progress(share)) cancelled = true;
    }
  });
  if (out_of_memory) throw std::bad_alloc();  // on the loading thread: loadModel's value
  return !cancelled;
}

// Maps one phase's own 0..1 onto [from, to] of the whole load; true without a callback.
LoadProgress phase(const LoadProgress& whole, double from, double to) {
  return [&whole, from, to](double f) { return !whole || whole(from + (to - from) * f); };
}

Result<std::shared_ptr<Model>> loadUncached(const std::string& path, const LoadOptions& options) {
  namespace fs = std::filesystem;
  const std::string folder = hfFolderOf(path);
  const bool convert = options.weights != WeightFormat::Stored;
  // Reading takes the first half when every matrix is converted afterwards.
  const LoadProgress reading = phase(options.progress, 0, convert ? 0.5 : 0.9);
  Result<std::shared_ptr<Model>> model = fail("");
  std::shared_ptr<MappedFile> mapped;
  std::vector<std::shared_ptr<MappedFile>> shards;  // a Hugging Face folder's
  if (!folder.empty()) {
    model = loadHfFolder(folder, reading, &shards);
  } else {
    auto file = MappedFile::open(path, MappedFile::Access::Whole);
    if (!file) return fail(file.error());
    mapped = file.value();
    const auto bytes = file.value()->bytes();
    model = bytes.size() >= 4 && std::memcmp(bytes.data(), "GGUF", 4) == 0
                ? fromGguf(file.value(), options.weights, reading)
                : fromLlama2c(file.value(), path,
                              fs::path(options.tokenizer_path).extension() == ".model"
                                  ? std::string()  // read below
                                  : options.tokenizer_path,
                              reading);
  }
  if (!model) return model.error() == kLoadCancelled ? model : fail(path + ": " + model.error());
  // An explicit sentencepiece tokenizer.model replaces the file's own vocabulary.
  if (const std::string& tok = options.tokenizer_path;
      !tok.empty() && fs::path(tok).extension() == ".model") {
    auto vocab = sentencePieceFile(tok);
    if (!vocab) return fail(vocab.error());
    model.value()->vocab = std::move(vocab.value());
  }
  Model& m = *model.value();
  if (m.config.architecture == "baichuan" && m.config.vocab == kBaichuan2Vocab) {
    m.config.norm_head = true;
    m.classifier.setRowScales(unitRowScales(m.classifier));
  }
  std::vector<QuantMatrix*> matrices = {&m.classifier};
  for (auto& l : m.layers)
    for (QuantMatrix* q : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down})
      matrices.push_back(q);
  // The mapped pages a matrix came from (a GGUF file, a folder's shards) are released once it
  // is converted or repacked into its own buffer, so the process holds the weights once (a
  // classifier that shares the embedding's bytes keeps them: lookups read those).
  if (mapped) shards.push_back(mapped);  // the files whose pages matrices may read
  const auto replace = [&](QuantMatrix& q, QuantMatrix replacement) {
    const auto* bytes = static_cast<const uint8_t*>(q.storage());  // the source's, kept alive
    const std::shared_ptr<const void> owner = q.owner();           // by `owner` till the end
    const std::span<const uint8_t> source(bytes, q.bytes());
    q = std::move(replacement);
    if (&q == &m.classifier && bytes == m.token_embd.storage()) return;
    for (const auto& file : shards)
      if (owner.get() == file.get()) file->release(source);
  };
  if (convert) {  // once, at load, on every core
    const bool done = eachMatrix(matrices, phase(options.progress, 0.5, 0.97), [&](QuantMatrix& q) {
      replace(q, q.converted(options.weights, options.int4_group));
    });
    if (!done) return fail(kLoadCancelled);
  } else if (activeGgufKernels().panels_q4_0) {
    // Q4_0 / Q8_0 / K-type rows into panels for this CPU's 16-row kernels, F16 / BF16 rows
    // into super-panels (rows in lanes)
    const bool done = eachMatrix(matrices, phase(options.progress, 0.9, 0.97), [&](QuantMatrix& q) {
      if (!q.panelsFit() || (&q == &m.classifier && q.storage() == m.token_embd.storage())) return;
      replace(q, q.inPanels());
    });
    if (!done) return fail(kLoadCancelled);
  }
  m.weight_format = options.weights;
  return model;
}

}  // namespace

Result<Vocabulary> loadVocabulary(const std::string& path, const std::string& tokenizer_path) {
  namespace fs = std::filesystem;
  if (fs::path(tokenizer_path).extension() == ".model") return sentencePieceFile(tokenizer_path);
  if (const std::string folder = hfFolderOf(path); !folder.empty())
    return sentencePieceFile((fs::path(folder) / "tokenizer.model").string());
  auto file = MappedFile::open(path);
  if (!file) return fail(file.error());
  const auto bytes = file.value()->bytes();
  if (bytes.size() >= 4 && std::memcmp(bytes.data(), "GGUF", 4) == 0) {
    auto g = parseGguf(bytes);
    if (!g) return fail(path + ": " + g.error());
    Vocabulary v = vocabFromGguf(g.value());
    if (v.pieces.empty())
      return fail(path + ": no vocabulary (tokenizer.ggml.tokens) in this GGUF");
    return v;
  }
  auto header = parseLlama2c(bytes);
  if (!header) return fail(path + ": " + header.error());
  return llama2cVocabulary(path, tokenizer_path, header->header.vocab_size);
}

namespace {

// generation_config.json beside the weights (on every route, the cache's included), its
// role tokens checked against the vocabulary.
Result<std::shared_ptr<Model>> withGenerationDefaults(const std::string& path,
                                                      Result<std::shared_ptr<Model>> model) {
  if (!model) return model;
  auto defaults = readGenerationConfig(path);
  if (!defaults) return fail(path + ": " + defaults.error());
  const int vocab = model.value()->config.vocab;
  for (auto [key, id] : {std::pair{"user_token_id", defaults->user_token},
                         std::pair{"assistant_token_id", defaults->assistant_token}})
    if (id && *id >= vocab)
      return fail(path + ": generation_config.json: \"" + key +
                  "\": expected a token id below the " + std::to_string(vocab) +
                  "-token vocabulary, found " + std::to_string(*id));
  model.value()->generation = defaults.value();
  return model;
}

// The weights and the configuration (from the cache when it holds them).
Result<std::shared_ptr<Model>> loadModelWeights(const std::string& path,
                                                const LoadOptions& options) {
  if (options.int4_group != 32 && options.int4_group != 64 && options.int4_group != 128)
    return fail("int4 group: expected 32, 64 or 128, found " + std::to_string(options.int4_group));
  // The cache keeps conversions to the integer and f16 formats; f32 and "auto" need none.
  const bool quantized =
      options.weights != WeightFormat::F32 && options.weights != WeightFormat::Stored;
  const std::string cache = quantized && options.cache ? quantCachePath(path, options) : "";
  std::string previous;  // why an existing cache was not used
  if (!cache.empty()) {
    auto hit = readQuantCache(cache, options.progress);
    if (!hit && hit.error() == kLoadCancelled) return hit;
    if (hit) {
      touchQuantCache(cache);  // used now: pruning removes it last
      hit.value()->cache_note = "hit: " + cache;
      if (options.progress) options.progress(1.0);
      return hit;
    }
    if (std::filesystem::exists(cache)) previous = " (replacing " + hit.error() + ")";
  }
  auto model = loadUncached(path, options);
  if (!model) return model;
  Model& m = *model.value();
  if (options.weights == WeightFormat::Stored) {
    m.cache_note = "not used: weights as stored";
  } else if (!quantized) {
    m.cache_note = "not used for f32 weights";
  } else if (!options.cache) {
    m.cache_note = "off";
  } else if (quantCacheDir().empty()) {
    m.cache_note = "not written: no cache directory ($XDG_CACHE_HOME and $HOME are unset)";
  } else if (cache.empty()) {
    m.cache_note = "not written: the source could not be hashed";
  } else {
    auto written = writeQuantCache(m, cache);
    m.cache_note = written ? "written: " + cache + previous : "not written: " + written.error();
    if (written)
      if (const int removed = pruneQuantCache(quantCacheLimit(), cache); removed > 0)
        m.cache_note += "; " + std::to_string(removed) +
                        " least recently used file(s) removed to stay within the cache limit";
  }
  if (options.progress) options.progress(1.0);
  return model;
}

}  // namespace

Result<std::shared_ptr<Model>> loadModel(const std::string& path, const LoadOptions& options) {
  try {  // weight buffers (core/large_buffer.h) throw std::bad_alloc when memory runs out
    auto model = loadModelWeights(path, options);
    return withGenerationDefaults(path, std::move(model));
  } catch (const std::bad_alloc&) {  // what was allocated is freed: the process goes on
    return fail(notEnoughMemoryToLoad(path, options.weights));
  }
}

std::string notEnoughMemoryToLoad(const std::string& path, WeightFormat weights) {
  return "not enough memory to load " + path + ": its weights as " + weightFormatName(weights) +
         " need more memory than is free; choose a smaller weight format (int4, q8_0, or auto: "
         "as the file stores them), or close other programs";
}

}  // namespace ts::engine
