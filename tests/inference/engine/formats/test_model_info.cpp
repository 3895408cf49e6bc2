// inspectModel reads what loadModel would load (configuration, parameters, stored types)
// from GGUF, Hugging Face folders and llama2.c files without their weights;
// estimateMemory's figures equal the bytes a loaded model and its KV cache hold; loading
// reports progress from 0 to 1 and stops with kLoadCancelled when the callback says so
// (while reading, while quantizing, while reading the quantization cache).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "inference/engine/backend/model_memory.h"
#include "inference/engine/formats/model_info.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/formats/model_writer.h"
#include "inference/engine/model/kv_cache.h"
#include "inference/engine/model/random_model.h"
#include "tests/inference/engine/check.h"
#include "tests/inference/engine/temp_dir.h"

using namespace ts::engine;
using ts::testing::check;

namespace {

ModelConfig tinyConfig(const std::string& arch, int kv_heads) {
  ModelConfig c;
  c.architecture = arch;
  c.source_format = "random";
  c.n_layers = 3;
  c.dim = 64;
  c.n_heads = 8;
  c.n_kv_heads = kv_heads;
  c.head_dim = c.rope_dim = 8;
  c.ffn_dim = 96;
  c.vocab = 70;
  c.context = 128;
  c.rms_eps = 1e-6f;
  return c;
}

uint64_t elementsHeld(const Model& m) {
  uint64_t n =
      static_cast<uint64_t>(m.token_embd.rows()) * m.token_embd.cols() + m.output_norm.size();
  n += static_cast<uint64_t>(m.classifier.rows()) * m.classifier.cols();
  for (const auto& l : m.layers) {
    n += l.attn_norm.size() + l.ffn_norm.size();
    for (const QuantMatrix* q : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down})
      n += static_cast<uint64_t>(q->rows()) * q->cols();
  }
  return n;
}

// Progress fractions of one load, and its outcome.
struct Traced {
  std::vector<double> fractions;
  std::string error;
};
Traced loadTraced(const std::string& path, WeightFormat weights, bool cache,
                  double cancel_at = 2.0) {
  Traced t;
  LoadOptions options;
  options.weights = weights;
  options.cache = cache;
  options.progress = [&](double f) {
    t.fractions.push_back(f);
    return f < cancel_at;
  };
  auto model = loadModel(path, options);
  if (!model) t.error = model.error();
  return t;
}

bool rising(const std::vector<double>& f) {
  return !f.empty() && std::is_sorted(f.begin(), f.end()) && f.front() >= 0 && f.back() == 1.0;
}

}  // namespace

int main() {
  ts::testing::TempDir dir("tokenscope-model-info");
  const auto llama = randomModel(tinyConfig("llama", 2), WeightFormat::F32, 7);
  const auto baichuan = randomModel(tinyConfig("baichuan", 8), WeightFormat::F32, 8);
  const std::string gguf = (dir.path() / "llama.gguf").string();
  const std::string q8 = (dir.path() / "llama-q8.gguf").string();
  const std::string folder = (dir.path() / "baichuan-hf").string();
  check(writeGguf(*llama, gguf).ok() && writeGguf(*llama, q8, TensorType::Q8_0).ok() &&
            writeHfFolder(*baichuan, folder, {"BF16", true, 2}).ok(),
        "fixtures written");

  // inspectModel = what loadModel loads, without the weights.
  for (const std::string& path : {gguf, q8, folder}) {
    auto info = inspectModel(path);
    auto model = loadModel(path);
    check(info.ok() && model.ok(), path + ": inspected and loaded" +
                                       (info.ok() ? "" : ": " + info.error()) +
                                       (model.ok() ? "" : ": " + model.error()));
    if (!info || !model) continue;
    check(info->config.describe() == model.value()->config.describe(),
          path + ": configuration " + info->config.describe());
    // Every file here stores its classifier (the engine holds exactly what is stored).
    check(info->parameters == elementsHeld(*model.value()),
          path + ": parameters " + std::to_string(info->parameters));
    uint64_t bytes = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(
             std::filesystem::is_directory(path) ? path : dir.path().string()))
      if (entry.is_regular_file() &&
          (std::filesystem::is_directory(path) ? entry.path().extension() == ".safetensors"
                                               : entry.path() == path))
        bytes += entry.file_size();
    check(info->file_bytes == bytes, path + ": file bytes " + std::to_string(info->file_bytes) +
                                         " = " + std::to_string(bytes));
  }
  {
    auto info = inspectModel(q8);
    check(info && info->stored_types.count("Q8_0") && info->stored_types.at("Q8_0") >= 7 &&
              info->stored_types.count("F32"),
          "q8_0 GGUF: stored types name Q8_0 and F32");
    auto hf = inspectModel(folder);
    check(hf && hf->stored_types.size() == 1 && hf->stored_types.count("BF16") &&
              hf->config.architecture == "baichuan",
          "safetensors folder in 2 shards: every tensor BF16, architecture baichuan");
  }
  const char* shared = std::getenv("TOKENSCOPE_SHARED_DIR");
  const std::string bin =
      std::string(shared ? shared : "../shared") + "/models/aidreams260K/aidreams260K.bin";
  if (!std::filesystem::exists(bin)) {
    std::printf("SKIP: %s is absent (the shared test fixtures are not laid out here)\n",
                bin.c_str());
  } else {
    auto info = inspectModel(bin);
    auto model = loadModel(bin);
    // llama2.c ties the classifier to the embeddings: stored once, held twice.
    check(info && model && info->config.describe() == model.value()->config.describe() &&
              info->parameters == elementsHeld(*model.value()) -
                                      static_cast<uint64_t>(model.value()->config.vocab) *
                                          model.value()->config.dim &&
              info->vocabulary_pieces == 512 && info->stored_types.at("F32") > 0,
          "llama2.c aidreams260K: configuration, parameters (tied classifier), 512 pieces");
  }
  check(!inspectModel((dir.path() / "missing.gguf").string()),
        "a missing file is an error, not a summary");

  // estimateMemory = bytes held.
  for (WeightFormat w : {WeightFormat::F32, WeightFormat::F16, WeightFormat::Int8,
                         WeightFormat::Int4, WeightFormat::Q8_0}) {
    LoadOptions options;
    options.weights = w;
    options.cache = false;
    auto model = loadModel(gguf, options);
    const Model& m = *model.value();
    const MemoryEstimate e = estimateMemory(m.config, w, 128, 100, KvFormat::Int8, false);
    const uint64_t held =
        m.weight_bytes() + m.token_embd.bytes() +
        (m.output_norm.size() + 2 * m.config.dim * m.config.n_layers) * sizeof(float);
    const KvCache cache(m.config.n_layers, 100, m.config.n_kv_heads, m.config.head_dim,
                        KvFormat::Int8);
    check(e.weights == held && e.kv_cache == cache.capacityBytes() && e.workspace == 0,
          std::string("estimate ") + weightFormatName(w) + ": weights " +
              std::to_string(e.weights) + " = " + std::to_string(held) + ", KV " +
              std::to_string(e.kv_cache) + " = " + std::to_string(cache.capacityBytes()));
    check(e.load_peak >= e.weights, "load peak covers the f32 read before conversion");
  }
  {  // weights as stored: the file's tensors (mapped) and copies of the norm vectors
    auto model = loadModel(gguf);
    auto info = inspectModel(gguf);
    const Model& m = *model.value();
    const uint64_t norms = (2 * m.config.n_layers + 1) * static_cast<uint64_t>(m.config.dim) * 4;
    const MemoryEstimate e = estimateMemory(m.config, WeightFormat::Stored, 128, 100, KvFormat::F16,
                                            false, info->tensor_bytes);
    check(info->tensor_bytes == m.weight_bytes() + m.token_embd.bytes() + norms &&
              e.weights == info->tensor_bytes + norms && e.load_peak == e.weights,
          "estimate auto: weights " + std::to_string(e.weights) + " = the stored tensors " +
              std::to_string(info->tensor_bytes) + " + norm copies " + std::to_string(norms));
  }
  const MemoryEstimate on_gpu =
      estimateMemory(llama->config, WeightFormat::Int4, 128, 100, KvFormat::F16, true);
  check(
      on_gpu.workspace > 0 && on_gpu.total() == on_gpu.weights + on_gpu.kv_cache + on_gpu.workspace,
      "CUDA estimate adds the workspace");

  // Progress and cancel.
  for (const std::string& path : {gguf, folder}) {
    const Traced f32 = loadTraced(path, WeightFormat::F32, false);
    check(f32.error.empty() && rising(f32.fractions) && f32.fractions.size() >= 4,
          path + ": f32 load reports " + std::to_string(f32.fractions.size()) +
              " rising fractions ending at 1");
    const Traced reading = loadTraced(path, WeightFormat::F32, false, 0.3);
    check(reading.error == kLoadCancelled && reading.fractions.back() >= 0.3 &&
              reading.fractions.back() < 1.0,
          path + ": cancelled while reading -> \"" + reading.error + "\"");
    const Traced quantizing = loadTraced(path, WeightFormat::Int4, false, 0.6);
    check(quantizing.error == kLoadCancelled && quantizing.fractions.back() > 0.5 &&
              quantizing.fractions.back() < 0.97,
          path + ": cancelled while quantizing -> \"" + quantizing.error + "\"");
  }
  const Traced write = loadTraced(gguf, WeightFormat::Int8, true);
  const Traced hit = loadTraced(gguf, WeightFormat::Int8, true);
  const Traced hit_cancel = loadTraced(gguf, WeightFormat::Int8, true, 0.5);
  check(write.error.empty() && hit.error.empty() && rising(hit.fractions) &&
            hit_cancel.error == kLoadCancelled,
        "quantization cache hit: rising progress (" + std::to_string(hit.fractions.size()) +
            " reports); cancelled -> \"" + hit_cancel.error + "\"" + write.error + hit.error);
  auto after = loadModel(gguf, [] {
    LoadOptions o;
    o.weights = WeightFormat::Int8;
    return o;
  }());
  check(after && after.value()->cache_note.rfind("hit:", 0) == 0,
        "a cancelled cache read leaves the cache usable");
  return ts::testing::finish();
}
