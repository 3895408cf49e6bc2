// Random tiny models in every architecture (LLaMA with GQA, Baichuan-7B RoPE with W_pack,
// Baichuan-13B ALiBi, Baichuan2 NormHead) written as our GGUF and as Hugging Face
// safetensors folders (one file or shards, W_pack or q/k/v, f32/f16/bf16), read back by
// loadModel: every reader gives the in-memory model's logits.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include "inference/engine/cpu/cpu_forward.h"
#include "inference/engine/formats/gguf.h"
#include "inference/engine/formats/hf_loader.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/formats/model_writer.h"
#include "inference/engine/model/random_model.h"
#include "tests/inference/engine/check.h"
#include "tests/inference/engine/temp_dir.h"

using namespace ts::engine;
using ts::testing::check;

namespace {

std::vector<float> run(const std::shared_ptr<const Model>& model) {
  CpuSession session(model, 16);
  const std::vector<int> tokens = {1, 5, 9, 3, 7, 2};
  auto logits = session.forwardBatch(tokens, 0, true);
  return {logits.begin(), logits.end()};
}

// max |a - b| / max |b|
double relativeMax(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return 1e9;
  double diff = 0, scale = 1e-12;
  for (size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, static_cast<double>(std::abs(a[i] - b[i])));
    scale = std::max(scale, static_cast<double>(std::abs(b[i])));
  }
  return diff / scale;
}

Vocabulary smallVocab(int n) {
  Vocabulary v;
  for (int i = 0; i < n; ++i) {
    v.pieces.push_back(i == 0   ? "<unk>"
                       : i == 1 ? "<s>"
                       : i == 2 ? "</s>"
                                : "▁p" + std::to_string(i));
    v.scores.push_back(-static_cast<float>(i));
    v.types.push_back(i == 0 ? 2 : i < 3 ? 3 : 1);
  }
  return v;
}

ModelConfig tinyConfig(const std::string& arch, int layers, int heads, int kv_heads, int vocab,
                       Positional positional) {
  ModelConfig c;
  c.architecture = arch;
  c.source_format = "random";
  c.n_layers = layers;
  c.dim = heads * 8;
  c.n_heads = heads;
  c.n_kv_heads = kv_heads;
  c.head_dim = c.rope_dim = 8;
  c.ffn_dim = 40;
  c.vocab = vocab;
  c.context = 64;
  c.rms_eps = 1e-6f;
  c.positional = positional;
  c.norm_head = arch == "baichuan" && vocab == kBaichuan2Vocab;
  return c;
}

}  // namespace

int main() {
  ts::testing::TempDir dir("tokenscope-model-files");
  struct Case {
    std::string name;
    ModelConfig config;
  };
  const std::vector<Case> cases = {
      {"llama GQA 4/2", tinyConfig("llama", 2, 4, 2, 300, Positional::Rope)},
      {"baichuan-7b style (RoPE, W_pack)", tinyConfig("baichuan", 2, 4, 4, 300, Positional::Rope)},
      {"baichuan-13b style (ALiBi, 40 layers)",
       tinyConfig("baichuan", 40, 4, 4, 300, Positional::Alibi)},
      {"baichuan-13b cut to 3 layers (ALiBi by key)",
       tinyConfig("baichuan", 3, 4, 4, 300, Positional::Alibi)},
      {"baichuan2 (NormHead, vocab 125,696)",
       tinyConfig("baichuan", 1, 2, 2, kBaichuan2Vocab, Positional::Rope)},
  };
  int index = 0;
  for (const auto& [name, config] : cases) {
    auto model = randomModel(config, WeightFormat::F32, 40 + index);
    model->vocab = smallVocab(300);
    const auto want = run(model);
    const std::string base = "m" + std::to_string(index++);
    struct Written {
      std::string label, path;
      double tolerance;
    };
    std::vector<Written> files;
    const auto write_ok = [&](Result<bool> ok, const std::string& what) {
      check(ok.ok(), name + ": write " + what + (ok.ok() ? "" : ": " + ok.error()));
    };
    write_ok(writeGguf(*model, dir / (base + ".gguf")), "GGUF f32");
    files.push_back({"GGUF f32", dir / (base + ".gguf"), 1e-6});
    write_ok(writeGguf(*model, dir / (base + "-f16.gguf"), TensorType::F16), "GGUF f16");
    files.push_back({"GGUF f16 matrices", dir / (base + "-f16.gguf"), 2e-3});
    write_ok(writeHfFolder(*model, dir / (base + "-hf")), "safetensors");
    files.push_back({"safetensors (one file)", dir / (base + "-hf"), 1e-6});
    HfWriteOptions sharded;
    sharded.shards = 3;
    sharded.w_pack = false;
    write_ok(writeHfFolder(*model, dir / (base + "-shards"), sharded), "safetensors shards");
    files.push_back(
        {"safetensors, 3 shards, q/k/v", dir / (base + "-shards") + "/config.json", 1e-6});
    HfWriteOptions bf16;
    bf16.dtype = "BF16";
    write_ok(writeHfFolder(*model, dir / (base + "-bf16"), bf16), "safetensors bf16");
    files.push_back({"safetensors bf16", dir / (base + "-bf16"), 2e-2});
    HfWriteOptions f16;
    f16.dtype = "F16";
    write_ok(writeHfFolder(*model, dir / (base + "-f16"), f16), "safetensors f16");
    files.push_back({"safetensors f16", dir / (base + "-f16"), 2e-3});
    for (const auto& f : files) {
      auto loaded = loadModel(f.path);
      if (!loaded) {
        check(false, name + " via " + f.label + ": " + loaded.error());
        continue;
      }
      const ModelConfig& c = loaded.value()->config;
      check(c.positional == config.positional && c.norm_head == config.norm_head &&
                c.n_layers == config.n_layers && c.n_kv_heads == config.n_kv_heads &&
                c.architecture == config.architecture,
            name + " via " + f.label + ": " + c.describe());
      if (f.label == "safetensors f16" || f.label == "safetensors bf16") {
        const std::string type = f.label == "safetensors f16" ? "F16" : "BF16";
        const std::string want_summary = type + " x" + std::to_string(7 * c.n_layers + 1);
        check(loaded.value()->weightSummary() == want_summary &&
                  loaded.value()->token_embd.formatName() == type,
              name + " via " + f.label + ": every matrix and the embedding table stay " + type +
                  " as stored (" + loaded.value()->weightSummary() + ")");
      }
      const double err = relativeMax(run(loaded.value()), want);
      check(err <= f.tolerance, name + " via " + f.label + ": logits of 6 positions within " +
                                    std::to_string(f.tolerance) + " (max relative error " +
                                    std::to_string(err) + ")");
      check(loaded.value()->vocab.pieces == model->vocab.pieces &&
                loaded.value()->vocab.scores == model->vocab.scores &&
                loaded.value()->vocab.types == model->vocab.types,
            name + " via " + f.label + ": the vocabulary comes back (300 pieces, scores, types)");
    }
  }

  // GGUF Q8_0 / Q4_0 files: read through f32 they stay close to the original; read as
  // q8_0 / int4 with group 32 they keep the stored blocks exactly (no second rounding).
  {
    auto config = tinyConfig("llama", 2, 4, 2, 300, Positional::Rope);  // width 32: whole blocks
    auto model = randomModel(config, WeightFormat::F32, 77);
    const auto want = run(model);
    for (auto [type, runtime, group, tolerance] :
         {std::tuple{TensorType::Q8_0, WeightFormat::Q8_0, 128, 0.02},
          std::tuple{TensorType::Q4_0, WeightFormat::Int4, 32, 0.25}}) {
      const std::string name = typeName(type), path = dir / ("blocks-" + name + ".gguf");
      check(writeGguf(*model, path, type).ok(), name + ": GGUF written");
      auto through_f32 = loadModel(path);
      LoadOptions exact;
      exact.weights = runtime;
      exact.int4_group = group;
      exact.cache = false;
      auto kept = loadModel(path, exact);
      if (!through_f32 || !kept) {
        check(false, name + ": " + (!kept ? kept.error() : through_f32.error()));
        continue;
      }
      const double err = relativeMax(run(through_f32.value()), want);
      check(err < tolerance, name + ": logits within " + std::to_string(tolerance) +
                                 " of the f32 model (max relative error " + std::to_string(err) +
                                 ")");
      // Every stored value, read as the runtime format, equals the file's dequantized value.
      bool same = true;
      const auto& a = kept.value()->layers[1].wq;
      const auto& b = through_f32.value()->layers[1].wq;
      for (int r = 0; r < a.rows(); ++r)
        for (int c = 0; c < a.cols(); ++c) same = same && a.at(r, c) == b.at(r, c);
      const auto& h = kept.value()->classifier;
      for (int r = 0; r < h.rows(); ++r)
        for (int c = 0; c < h.cols(); ++c)
          same = same && h.at(r, c) == through_f32.value()->classifier.at(r, c);
      check(same && a.format() == runtime && h.format() == runtime,
            name + ": kept as " + weightFormatName(runtime) +
                " with every value equal to the file's (no second rounding)");
      check(relativeMax(run(kept.value()), want) < tolerance + 0.03,
            name + ": and its logits stay close to the f32 model's");
    }
  }

  // A tensor type without a fused product (Q4_1 here, written into a GGUF by hand) loads
  // as Q8_0 with a note, and runs close to its exact dequantized values.
  {
    auto model =
        randomModel(tinyConfig("llama", 2, 4, 4, 300, Positional::Rope), WeightFormat::F32, 77);
    const std::string path = dir / "q4_1.gguf";
    check(writeGguf(*model, path).ok(), "Q4_1 case: the f32 file is written");
    std::vector<uint8_t> bytes(std::filesystem::file_size(path));
    FILE* f = std::fopen(path.c_str(), "r+b");
    check(f && std::fread(bytes.data(), 1, bytes.size(), f) == bytes.size(), "read back");
    const GgufFile g = parseGguf(bytes).value();
    const GgufTensor& t = *g.tensor("blk.1.ffn_up.weight");
    const size_t n = t.elements();
    std::vector<float> values(n);
    std::memcpy(values.data(), bytes.data() + t.offset, n * 4);
    for (size_t b = 0; b < n / 32; ++b) {  // Q4_1: d = (max - min) / 15, m = min
      const float* x = values.data() + 32 * b;
      const float lo = *std::min_element(x, x + 32), hi = *std::max_element(x, x + 32);
      BlockQ4_1 block{f32ToF16((hi - lo) / 15), f32ToF16(lo), {}};
      const float d = f16ToF32(block.d), m = f16ToF32(block.m);
      const auto q = [&](float v) {
        return std::clamp(static_cast<int>(std::lround((v - m) / (d > 0 ? d : 1))), 0, 15);
      };
      for (int j = 0; j < 16; ++j) block.qs[j] = static_cast<uint8_t>(q(x[j]) | q(x[j + 16]) << 4);
      std::memcpy(bytes.data() + t.offset + b * sizeof block, &block, sizeof block);
    }
    // The type field follows the name, the dimension count and the dimensions.
    const std::string name = "blk.1.ffn_up.weight";
    const size_t at = std::search(bytes.begin(), bytes.end(), name.begin(), name.end()) -
                      bytes.begin() + name.size() + 4 + 8 * t.dims.size();
    const uint32_t q4_1 = 3;
    std::memcpy(bytes.data() + at, &q4_1, 4);
    std::fseek(f, 0, SEEK_SET);
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
    auto loaded = loadModel(path);
    check(loaded.ok() && loaded.value()->layers[1].w_up.format() == WeightFormat::Stored &&
              loaded.value()->layers[1].w_up.storedType() == TensorType::Q8_0 &&
              loaded.value()->load_note.find("Q4_1 tensors converted to Q8_0") == 0,
          "a Q4_1 matrix loads as Q8_0 and says so: " +
              (loaded.ok() ? loaded.value()->load_note : loaded.error()));
    LoadOptions exact;
    exact.weights = WeightFormat::F32;
    auto reference = loadModel(path, exact);
    const double err = relativeMax(run(loaded.value()), run(reference.value()));
    check(err < 0.02,
          "and its logits are within 2% of the exact Q4_1 values' (" + std::to_string(err) + ")");
  }

  // The permutation between Hugging Face's rotate-half rows and adjacent pairs.
  {
    WeightBuffer<float> rows(2 * 8 * 3);  // 2 heads of 8 rows, 3 columns
    for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<float>(i / 3);
    const auto pairs = rotateHalfToPairs(rows, 2, 8, 3);
    // In head 0, pair j = (row j, row j + 4): rows 0,4,1,5,2,6,3,7.
    check(pairs[0] == 0 && pairs[3] == 4 && pairs[6] == 1 && pairs[9] == 5 && pairs[24] == 8 &&
              pairs[27] == 12,
          "rotate-half rows (j, j + d/2) become adjacent pairs (2j, 2j + 1) per head");
    check(pairsToRotateHalf(pairs, 2, 8, 3) == rows, "and back again");
  }
  return ts::testing::finish();
}
