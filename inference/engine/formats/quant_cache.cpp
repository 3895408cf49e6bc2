#include "inference/engine/formats/quant_cache.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "inference/engine/core/byte_io.h"
#include "inference/engine/formats/atomic_file.h"
#include "inference/engine/formats/mapped_file.h"
#include "inference/engine/formats/model_loader.h"

namespace ts::engine {
namespace fs = std::filesystem;
namespace {

constexpr char kMagic[4] = {'T', 'S', 'Q', 'C'}, kEnd[4] = {'T', 'S', 'Q', 'E'};
constexpr uint32_t kVersion = 5;  // bump when the record layout or a kernel layout changes

struct Fnv {
  uint64_t h = 1469598103934665603ull;
  void add(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  }
  void add(const std::string& s) {
    add(s.data(), s.size());
    add("\0", 1);
  }
};

bool hashFile(Fnv& f, const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::error_code ec;
  const uint64_t size = fs::file_size(path, ec);
  if (!in || ec) return false;
  f.add(path.filename().string());
  f.add(&size, 8);
  std::vector<char> buf(64 << 10);
  const auto sample = [&](uint64_t at, size_t n) {
    n = static_cast<size_t>(std::min<uint64_t>(n, size - std::min(at, size)));
    in.seekg(static_cast<std::streamoff>(at));
    in.read(buf.data(), static_cast<std::streamsize>(n));
    f.add(buf.data(), static_cast<size_t>(in.gcount()));
    in.clear();
  };
  sample(0, 64 << 10);
  for (int i = 1; i <= 16; ++i) sample(size / 17 * i, 4 << 10);
  sample(size > (64 << 10) ? size - (64 << 10) : 0, 64 << 10);
  return true;
}

}  // namespace

std::string quantCacheDir() {
  // XDG: a relative $XDG_CACHE_HOME is invalid and ignored.
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && xdg[0] == '/')
    return (fs::path(xdg) / "tokenscope").string();
  if (const char* home = std::getenv("HOME"); home && home[0] != '\0')
    return (fs::path(home) / ".cache" / "tokenscope").string();
  return "";
}

std::string quantCachePath(const std::string& source, const LoadOptions& options) {
  const std::string dir = quantCacheDir();
  if (dir.empty()) return "";
  Fnv f;
  f.add(&kVersion, sizeof kVersion);
  f.add(weightFormatName(options.weights));
  f.add(&options.int4_group, sizeof options.int4_group);
  std::vector<fs::path> files;
  std::error_code ec;
  if (fs::is_directory(source, ec)) {
    for (const auto& entry : fs::directory_iterator(source, ec))
      if (entry.is_regular_file()) files.push_back(entry.path());
  } else {
    files.push_back(source);
    const fs::path beside = fs::path(source).parent_path();
    // llama2.c reads its vocabulary from tok<N>.bin or tokenizer.bin beside the model.
    for (const auto& entry : fs::directory_iterator(beside.empty() ? "." : beside, ec))
      if (entry.path().filename().string().rfind("tok", 0) == 0 &&
          entry.path().extension() == ".bin")
        files.push_back(entry.path());
  }
  if (!options.tokenizer_path.empty()) files.push_back(options.tokenizer_path);
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  for (const auto& file : files)
    if (!hashFile(f, file)) return "";
  char key[17];
  std::snprintf(key, sizeof key, "%016llx", static_cast<unsigned long long>(f.h));
  const fs::path named = fs::path(source).lexically_normal();
  std::string name = (named.has_filename() ? named : named.parent_path()).filename().string() +
                     "-" + weightFormatName(options.weights);
  if (options.weights == WeightFormat::Int4) name += "-g" + std::to_string(options.int4_group);
  return (fs::path(dir) / (name + "-" + key + ".tsq")).string();
}

Result<bool> writeQuantCache(const Model& m, const std::string& path) {
  const ModelConfig& c = m.config;
  ByteWriter w;
  w.bytes.append(kMagic, 4);
  w.pod(kVersion);
  w.str(c.architecture);
  w.str(c.source_format);
  for (int v : {c.n_layers, c.dim, c.n_heads, c.n_kv_heads, c.head_dim, c.ffn_dim, c.vocab,
                c.context, c.rope_dim, static_cast<int>(c.positional), c.norm_head ? 1 : 0,
                static_cast<int>(m.weight_format)})
    w.pod(static_cast<int32_t>(v));
  w.pod(c.rms_eps);
  w.pod(c.rope_theta);
  w.pod(static_cast<uint64_t>(m.vocab.pieces.size()));
  for (const auto& p : m.vocab.pieces) w.str(p);
  w.array(m.vocab.scores);
  w.array(m.vocab.types);
  for (int32_t id : {m.vocab.bos, m.vocab.eos, m.vocab.unk}) w.pod(id);
  w.pod(static_cast<uint8_t>(m.vocab.add_dummy_prefix));
  m.token_embd.appendTo(w);
  w.array(m.output_norm);
  m.classifier.appendTo(w);
  for (const auto& l : m.layers) {
    w.array(l.attn_norm);
    w.array(l.ffn_norm);
    for (const QuantMatrix* q : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down})
      q->appendTo(w);
  }
  w.bytes.append(kEnd, 4);
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  if (ec)
    return fail("cannot create " + fs::path(path).parent_path().string() + ": " + ec.message());
  return writeFileAtomically(path, {w.bytes});
}

Result<std::shared_ptr<Model>> readQuantCache(const std::string& path,
                                              const LoadProgress& progress) {
  if (!fs::exists(path)) return fail("no cache file");
  auto file = MappedFile::open(path, MappedFile::Access::Whole);
  if (!file) return fail(file.error());
  ByteReader r(file.value()->bytes());
  const auto bad = [&](const std::string& what) {
    return fail(path + ": unusable cache (" + what + ")");
  };
  char magic[4];
  uint32_t version = 0;
  if (!r.pod(magic) || std::memcmp(magic, kMagic, 4) != 0) return bad("wrong magic");
  if (!r.pod(version) || version != kVersion)
    return bad("format version " + std::to_string(version) + ", expected " +
               std::to_string(kVersion));
  auto model = std::make_shared<Model>();
  ModelConfig& c = model->config;
  int32_t v[12];
  if (!r.str(c.architecture) || !r.str(c.source_format) || !r.pod(v) || !r.pod(c.rms_eps) ||
      !r.pod(c.rope_theta))
    return bad("cut short in the configuration");
  c.n_layers = v[0];
  c.dim = v[1];
  c.n_heads = v[2];
  c.n_kv_heads = v[3];
  c.head_dim = v[4];
  c.ffn_dim = v[5];
  c.vocab = v[6];
  c.context = v[7];
  c.rope_dim = v[8];
  c.positional = static_cast<Positional>(v[9]);
  c.norm_head = v[10] != 0;
  model->weight_format = static_cast<WeightFormat>(v[11]);
  if (c.n_layers <= 0 || c.dim <= 0 || c.vocab <= 0 || c.n_layers > 4096)
    return bad("impossible configuration");
  uint64_t pieces = 0;
  uint8_t prefix = 1;
  if (!r.pod(pieces) || pieces > r.rest.size()) return bad("cut short in the vocabulary");
  model->vocab.pieces.resize(pieces);
  for (auto& p : model->vocab.pieces)
    if (!r.str(p)) return bad("cut short in the vocabulary");
  if (!r.array(model->vocab.scores) || !r.array(model->vocab.types) || !r.pod(model->vocab.bos) ||
      !r.pod(model->vocab.eos) || !r.pod(model->vocab.unk) || !r.pod(prefix))
    return bad("cut short in the vocabulary");
  model->vocab.add_dummy_prefix = prefix != 0;
  const uint64_t D = c.dim;
  auto embd = QuantMatrix::readFrom(r);
  if (!embd) return bad(embd.error());
  model->token_embd = std::move(embd.value());
  if (!r.array(model->output_norm, D)) return bad("cut short in the embeddings");
  auto head = QuantMatrix::readFrom(r);
  if (!head) return bad(head.error());
  model->classifier = std::move(head.value());
  model->layers.resize(c.n_layers);
  for (size_t i = 0; i < model->layers.size(); ++i) {
    if (progress && !progress(static_cast<double>(i) / c.n_layers)) return fail(kLoadCancelled);
    LayerWeights& l = model->layers[i];
    if (!r.array(l.attn_norm, D) || !r.array(l.ffn_norm, D)) return bad("cut short in a layer");
    for (QuantMatrix* q : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down}) {
      auto m = QuantMatrix::readFrom(r);
      if (!m) return bad(m.error());
      *q = std::move(m.value());
    }
  }
  // Shapes must match the configuration: the forward pass trusts them.
  const int Q = c.n_heads * c.head_dim, KV = c.n_kv_heads * c.head_dim, F = c.ffn_dim;
  const auto shaped = [](const QuantMatrix& m, int rows, int cols) {
    return m.rows() == rows && m.cols() == cols;
  };
  bool shapes = c.n_heads > 0 && c.n_kv_heads > 0 && c.n_heads % c.n_kv_heads == 0 &&
                shaped(model->classifier, c.vocab, c.dim) &&
                shaped(model->token_embd, c.vocab, c.dim);
  for (const auto& l : model->layers)
    shapes = shapes && shaped(l.wq, Q, c.dim) && shaped(l.wk, KV, c.dim) &&
             shaped(l.wv, KV, c.dim) && shaped(l.wo, c.dim, Q) && shaped(l.w_gate, F, c.dim) &&
             shaped(l.w_up, F, c.dim) && shaped(l.w_down, c.dim, F);
  if (!shapes) return bad("matrix shapes do not match the configuration");
  char end[4];
  if (!r.pod(end) || std::memcmp(end, kEnd, 4) != 0 || !r.rest.empty()) return bad("no end marker");
  return model;
}

}  // namespace ts::engine
