// Baichuan2 as its authors publish it (../shared/models/baichuan2-tiny: a bf16
// pytorch_model.bin in the 7B layout, two f16 shards with an index in the 13B layout),
// against llama.cpp's outputs on the same weights:
// - weights f32, KV f32: all 24 greedy ids, and the last prompt position's logits within
//   1e-3 of the reference whose NormHead matches ours (rows normalized in f32, kept in f32);
//   a missing NormHead would fail it (its logits are ~14x larger);
// - the defaults (weights auto: bf16 / f16 kept and multiplied as stored; KV f16): ids up to
//   the first reference margin below 0.05, logits within 0.05 of the primary reference;
// - convert --to gguf (exportHfFolderToGguf) as f32: llama.cpp's `baichuan` names, shapes,
//   Q/K order and keys, and our GGUF reader's logits equal the folder's within 1e-5.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "inference/engine/cpu/cpu_forward.h"
#include "inference/engine/formats/checkpoint_shards.h"
#include "inference/engine/formats/gguf.h"
#include "inference/engine/formats/gguf_export.h"
#include "inference/engine/formats/hf_loader.h"
#include "inference/engine/formats/json_reader.h"
#include "inference/engine/formats/mapped_file.h"
#include "inference/engine/formats/model_info.h"
#include "inference/engine/formats/model_loader.h"
#include "tests/inference/engine/check.h"
#include "tests/inference/engine/temp_dir.h"

using namespace ts::engine;
using ts::testing::check;
namespace fs = std::filesystem;

namespace {

int argmax(std::span<const float> v) {
  return static_cast<int>(std::max_element(v.begin(), v.end()) - v.begin());
}

std::vector<float> readLogits(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<float> v(kBaichuan2Vocab);
  in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * 4));
  return in ? v : std::vector<float>();
}

double maxDiff(std::span<const float> a, std::span<const float> b) {
  if (a.size() != b.size()) return INFINITY;
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(double(a[i]) - b[i]));
  return d;
}

struct Reference {
  std::vector<int> prompt, ids;
  std::vector<double> margins;
  std::vector<float> logits;       // primary route (normalized head cast back to the file type)
  std::vector<float> logits_f32;   // normalized_f32 (prompt A only)
  std::vector<float> logits_none;  // not_normalized (prompt A only)
  std::vector<std::pair<int, double>> top5_f32;
};

Reference readReference(const fs::path& dir, const std::string& name) {
  Reference r;
  auto json = readJsonFile((dir / (name + ".json")).string());
  if (!json) return r;
  const Json& j = json.value();
  r.prompt = j["prompt_ids"].get<std::vector<int>>();
  r.ids = j["generated_ids"].get<std::vector<int>>();
  r.margins = j["step_margin"].get<std::vector<double>>();
  r.logits = readLogits(dir / (name + ".last_logits.f32"));
  const Json& f32 = j["variants"]["normalized_f32"];
  for (const auto& pair : f32["last_prompt_top5"]) r.top5_f32.emplace_back(pair[0], pair[1]);
  if (f32.contains("last_logits_file"))
    r.logits_f32 = readLogits(dir / f32["last_logits_file"].get<std::string>());
  if (j["variants"].contains("not_normalized"))
    r.logits_none =
        readLogits(dir / j["variants"]["not_normalized"]["last_logits_file"].get<std::string>());
  return r;
}

// Last prompt logits and 24 greedy ids.
struct Run {
  std::vector<float> logits;
  std::vector<int> ids;
};
Run greedy(const std::shared_ptr<Model>& model, const std::vector<int>& prompt, KvFormat kv) {
  CpuSession session(model, 64, kv, 2);
  Run run;
  auto logits = session.forwardBatch(prompt, 0);
  run.logits.assign(logits.begin(), logits.end());
  int pos = static_cast<int>(prompt.size()), token = argmax(logits);
  for (int step = 0; step < 24; ++step) {
    run.ids.push_back(token);
    if (step < 23) token = argmax(session.forward(token, pos++));
  }
  return run;
}

void checkFolder(const fs::path& models, const std::string& name) {
  const fs::path folder = models / name, refs = models / "reference";
  // What the model manager shows, from headers and the pickle only.
  auto info = inspectModel(folder.string());
  check(info.ok() && info->config.source_format == "pytorch" && info->config.norm_head &&
            info->config.vocab == kBaichuan2Vocab &&
            info->stored_types.count(name == "7b-bf16" ? "BF16" : "F16") &&
            info->vocabulary_pieces == kBaichuan2Vocab,
        name + ": inspected as a PyTorch checkpoint, Baichuan2 with NormHead, its vocabulary (" +
            (info ? info->config.describe() : info.error()) + ")");

  LoadOptions f32;
  f32.weights = WeightFormat::F32;
  auto exact = loadModel(folder.string(), f32);
  check(exact.ok(), name + ": loads with --weights f32 (" +
                        (exact ? exact.value()->config.describe() : exact.error()) + ")");
  auto defaults = loadModel(folder.string());
  check(defaults.ok() && defaults.value()->classifier.format() == WeightFormat::Stored &&
            defaults.value()->layers[0].w_up.storedType() ==
                (name == "7b-bf16" ? TensorType::BF16 : TensorType::F16),
        name + ": loads with the defaults, matrices as stored (" +
            (defaults ? defaults.value()->weightSummary() : defaults.error()) + ")");
  if (!exact || !defaults) return;
  check(exact.value()->config.positional ==
            (name == "7b-bf16" ? Positional::Rope : Positional::Alibi),
        name + ": positions by the layer rule (32 layers RoPE, 40 ALiBi)");

  for (const std::string prompt : {"A", "B"}) {
    const std::string what = name + " " + prompt;
    const Reference ref = readReference(refs, name + "." + prompt);
    check(!ref.prompt.empty() && ref.logits.size() == kBaichuan2Vocab, what + ": reference read");
    if (ref.prompt.empty() || ref.logits.empty()) continue;

    const Run run = greedy(exact.value(), ref.prompt, KvFormat::F32);
    check(run.ids == ref.ids, what + ", f32: all 24 greedy ids equal (" +
                                  ts::testing::join(run.ids) + " vs " + ts::testing::join(ref.ids) +
                                  ")");
    if (!ref.logits_f32.empty()) {
      const double d = maxDiff(run.logits, ref.logits_f32);
      std::printf("  %s f32: logits max |diff| %.3g from the normalized_f32 reference\n",
                  what.c_str(), d);
      check(d <= 1e-3, what +
                           ", f32: last-prompt logits within 1e-3 of the reference with "
                           "the head normalized in f32 (max |diff| " +
                           std::to_string(d) + ")");
      // What a missing NormHead looks like: logits 14x larger, so the check above would fail.
      check(maxDiff(ref.logits_none, ref.logits_f32) > 1.0 &&
                *std::max_element(run.logits.begin(), run.logits.end()) < 10.f,
            what + ": logits are NormHead's (max " +
                std::to_string(*std::max_element(run.logits.begin(), run.logits.end())) +
                "), not the un-normalized head's (max " +
                std::to_string(*std::max_element(ref.logits_none.begin(), ref.logits_none.end())) +
                ")");
    } else {
      double top5 = 0;
      for (auto [id, logit] : ref.top5_f32) top5 = std::max(top5, std::abs(run.logits[id] - logit));
      check(top5 <= 1e-3, what +
                              ", f32: the top-5 logits within 1e-3 of the normalized_f32 "
                              "reference (max |diff| " +
                              std::to_string(top5) + ")");
    }
    const double primary = maxDiff(run.logits, ref.logits);
    check(primary <= 0.01, what +
                               ", f32: logits within 0.01 of the primary reference (max |diff| " +
                               std::to_string(primary) + ")");

    const Run fast = greedy(defaults.value(), ref.prompt, KvFormat::F16);
    const double d = maxDiff(fast.logits, ref.logits);
    size_t must = 0, same = 0;
    while (must < ref.margins.size() && ref.margins[must] >= 0.05) ++must;
    while (same < fast.ids.size() && fast.ids[same] == ref.ids[same]) ++same;
    std::printf("  %s defaults: logits max |diff| %.3g, %zu of 24 ids equal (required %zu)\n",
                what.c_str(), d, same, must);
    check(d <= 0.05,
          what + ", defaults: logits within 0.05 (max |diff| " + std::to_string(d) + ")");
    check(same >= must, what + ", defaults: greedy ids equal up to the first margin below 0.05 (" +
                            std::to_string(same) + " of " + std::to_string(must) + ")");
  }
}

// convert --to gguf --type f32: llama.cpp's conventions, and the same logits as the folder.
void checkGgufExport(const fs::path& models, const std::string& name,
                     const ts::testing::TempDir& tmp) {
  const fs::path folder = models / name;
  const std::string out = tmp / (name + ".gguf");
  GgufExportOptions options;
  options.matrices = TensorType::F32;
  auto exported = exportHfFolderToGguf(folder.string(), out, options);
  check(exported.ok() && exported->normalized_head && exported->architecture == "baichuan",
        name + ": exported to GGUF (" +
            (exported ? std::to_string(exported->tensors) + " tensors" : exported.error()) + ")");
  if (!exported) return;
  auto file = MappedFile::open(out);
  auto g = parseGguf(file.value()->bytes());
  check(g.ok(), name + ": the GGUF parses");
  if (!g) return;
  const auto str = [&](const std::string& key) {
    const GgufValue* v = g->find(key);
    return v && v->asString() ? *v->asString() : std::string();
  };
  const auto num = [&](const std::string& key) {
    const GgufValue* v = g->find(key);
    return v && v->asInt() ? *v->asInt() : -1;
  };
  const int layers = name == "7b-bf16" ? 32 : 40;
  check(str("general.architecture") == "baichuan" && num("baichuan.block_count") == layers &&
            num("baichuan.context_length") == 4096 && num("baichuan.embedding_length") == 64 &&
            num("baichuan.feed_forward_length") == 172 &&
            num("baichuan.attention.head_count") == 4 &&
            num("baichuan.attention.head_count_kv") == 4 &&
            num("baichuan.rope.dimension_count") == 16 &&
            str("baichuan.tensor_data_layout") == "Meta AI original pth" &&
            g->find("baichuan.attention.layer_norm_rms_epsilon") && num("general.file_type") == 0 &&
            str("tokenizer.ggml.model") == "llama" && num("tokenizer.ggml.bos_token_id") == 1 &&
            num("tokenizer.ggml.eos_token_id") == 2 && num("tokenizer.ggml.padding_token_id") == 0,
        name + ": llama.cpp's baichuan metadata keys");
  const GgufValue* tokens = g->find("tokenizer.ggml.tokens");
  const GgufValue* types = g->find("tokenizer.ggml.token_type");
  check(tokens && tokens->asArray() && tokens->asArray()->size() == kBaichuan2Vocab && types &&
            types->asArray() && (*types->asArray())[195].asInt() == 4 &&
            (*types->asArray())[1].asInt() == 3,
        name + ": the vocabulary, with user-defined role tokens and control BOS");
  bool names = g->tensors.size() == 3 + 9 * static_cast<size_t>(layers);
  for (const std::string t :
       {"token_embd.weight", "output_norm.weight", "output.weight", "blk.0.attn_q.weight",
        "blk.0.attn_k.weight", "blk.0.attn_v.weight", "blk.0.attn_output.weight",
        "blk.0.ffn_gate.weight", "blk.0.ffn_up.weight", "blk.0.ffn_down.weight",
        "blk.0.attn_norm.weight", "blk.0.ffn_norm.weight"})
    names = names && g->tensor(t) && g->tensor(t)->type == TensorType::F32;
  const GgufTensor* q = g->tensor("blk.1.attn_q.weight");
  names = names && q && q->dims == std::vector<uint64_t>{64, 64} &&
          g->tensor("output.weight")->dims == std::vector<uint64_t>{64, kBaichuan2Vocab} &&
          g->tensor("blk.1.ffn_down.weight")->dims == std::vector<uint64_t>{172, 64};
  check(names, name + ": llama.cpp's tensor names, ggml shapes and F32 types");
  // Q/K rows in adjacent-pair order: attn_k row 2j + a of a head = W_pack's K row a*8 + j.
  auto shards = CheckpointShards::inspect(folder);
  auto pack = shards->readRows("model.layers.1.self_attn.W_pack.weight", 192, 64, 64, 64);
  const GgufTensor* k = g->tensor("blk.1.attn_k.weight");
  const float* kf = reinterpret_cast<const float*>(file.value()->bytes().data() + k->offset);
  bool pairs = pack.ok();
  for (int h = 0; pairs && h < 4; ++h)
    for (int j = 0; j < 8; ++j)
      for (int a = 0; a < 2; ++a)
        for (int col = 0; col < 64; ++col)
          pairs = pairs && kf[(h * 16 + 2 * j + a) * 64 + col] ==
                               pack.value()[(h * 16 + a * 8 + j) * 64 + col];
  check(pairs, name + ": attn_k rows permuted to adjacent RoPE pairs, as llama.cpp's converter");
  const GgufTensor* head = g->tensor("output.weight");
  const float* hf = reinterpret_cast<const float*>(file.value()->bytes().data() + head->offset);
  double worst = 0;
  for (int r = 0; r < kBaichuan2Vocab; r += 997) {
    double n = 0;
    for (int c = 0; c < 64; ++c) n += double(hf[r * 64 + c]) * hf[r * 64 + c];
    worst = std::max(worst, std::abs(std::sqrt(n) - 1));
  }
  check(worst < 1e-6, name + ": output.weight rows have unit length (NormHead applied)");

  LoadOptions f32;
  f32.weights = WeightFormat::F32;
  auto from_gguf = loadModel(out, f32);
  auto from_folder = loadModel(folder.string(), f32);
  check(from_gguf.ok() && from_folder.ok(), name + ": both load");
  if (!from_gguf || !from_folder) return;
  const std::vector<int> prompt = {1, 100, 200, 300};
  CpuSession a(from_gguf.value(), 16, KvFormat::F32, 2),
      b(from_folder.value(), 16, KvFormat::F32, 2);
  const auto la = a.forwardBatch(prompt, 0);
  const std::vector<float> first(la.begin(), la.end());
  const auto lb = b.forwardBatch(prompt, 0);
  const double d = maxDiff(first, lb);
  check(d <= 1e-5, name + ": the GGUF's logits equal the folder's within 1e-5 (max |diff| " +
                       std::to_string(d) + ")");
}

}  // namespace

int main() {
  const char* shared = std::getenv("TOKENSCOPE_SHARED_DIR");
  const fs::path models = fs::path(shared ? shared : "../shared") / "models" / "baichuan2-tiny";
  if (!fs::exists(models / "7b-bf16" / "pytorch_model.bin")) {
    std::printf("SKIP %s not found: the baichuan2-tiny fixtures are absent\n",
                models.string().c_str());
    return ts::testing::finish();
  }
  ts::testing::TempDir tmp("tokenscope-baichuan2");
  for (const std::string name : {"7b-bf16", "13b-sharded-f16"}) {
    checkFolder(models, name);
    checkGgufExport(models, name, tmp);
  }
  return ts::testing::finish();
}
