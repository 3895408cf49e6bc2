// The self-test's whole-model checks on a device: the CUDA session against the CPU
// session on the same weights (prefill through cuBLAS, a prompt split into passes, decode
// steps from the captured graph, speculative verify passes of 2, 5 and 9 positions, a
// rollback), for random tiny models of every architecture, one mixing formats within its
// layers, a 1,100-position context and the ../shared/models fixtures (ktiny in every stored
// type); and greedy decoding of aidreams260K on the device equal to its reference ids.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "inference/engine/backend/cuda_session.h"
#include "inference/engine/cpu/cpu_forward.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/model/random_model.h"
#include "tests/cuda/selftest.h"
#include "tests/inference/engine/json_text.h"

namespace ts::selftest {

using namespace ts::engine;

std::vector<std::pair<std::string, ModelConfig>> architectureConfigs() {
  // architecture, source, layers, dim, heads, KV heads, head_dim, FFN, vocab, context, eps,
  // theta, rope_dim, positional
  std::vector<std::pair<std::string, ModelConfig>> out = {
      {"rope",
       {"baichuan", "random", 2, 256, 4, 4, 64, 688, 1000, 512, 1e-6f, 1e4f, 64, Positional::Rope}},
      {"alibi",
       {"baichuan", "random", 2, 320, 5, 5, 64, 864, 1000, 512, 1e-6f, 1e4f, 64,
        Positional::Alibi}},
      {"gqa",
       {"llama", "random", 2, 256, 8, 2, 32, 688, 1000, 512, 1e-5f, 1e4f, 32, Positional::Rope}},
      {"normhead",
       {"baichuan", "random", 1, 64, 2, 2, 32, 172, kBaichuan2Vocab, 512, 1e-6f, 1e4f, 32,
        Positional::Rope}}};
  out.back().second.norm_head = true;
  return out;
}

namespace {

int argmax(std::span<const float> v) {
  return static_cast<int>(std::max_element(v.begin(), v.end()) - v.begin());
}

double error(std::span<const float> got, std::span<const float> want) {
  return got.size() != want.size() ? INFINITY
                                   : normalisedError(got.data(), want.data(), want.size());
}

std::vector<float> copy(std::span<const float> logits) {
  return {logits.begin(), logits.end()};
}

struct Limits {
  double decode, prefill;
};

// CPU int8 / int4 products quantize the activations to int8 (kernels.h); the device keeps
// them in f32, so those formats differ by that rounding. cuBLAS takes f16 inputs.
Limits limitsFor(WeightFormat w, KvFormat kv) {
  Limits l{1e-4, 1e-4};
  if (w == WeightFormat::F16) l.prefill = 3e-3;
  if (w == WeightFormat::Int8 || w == WeightFormat::Int4 || w == WeightFormat::Q8_0 ||
      w == WeightFormat::Stored)  // stored: a file's quantized types (ktiny) or a mix
    l = {3e-2, 3e-2};
  if (kv != KvFormat::F32) l.prefill = std::max(l.prefill, 5e-3);
  return l;
}

void compareSessions(Report& report, const std::string& label, std::shared_ptr<const Model> model,
                     WeightFormat w, KvFormat kv, const CudaOptions& options) {
  const int positions = 64, vocab = model->config.vocab;
  const std::string name = label + " " + weightFormatName(w) + " KV " + kvFormatName(kv) +
                           " batch " + std::to_string(options.max_batch) +
                           (options.graph ? "" : " no graph");
  auto gpu = CudaSession::create(CudaModelView(*model), vocab, positions, kv, options);
  if (!report.check(name + ": session", gpu.ok(), gpu.ok() ? "created" : gpu.error())) return;
  CpuSession cpu(model, positions, kv, 1);
  const Limits limit = limitsFor(w, kv);
  std::vector<int> prompt(20);
  for (int i = 0; i < 20; ++i) prompt[i] = (i * 37 + 1) % vocab;
  const std::vector<float> want = copy(cpu.forwardBatch(prompt, 0, true));
  try {
    auto got = gpu.value()->forwardBatch(prompt, 0, true);
    report.close(name + ": prefill 20 positions, every position's logits", error(got, want),
                 limit.prefill);
    int pos = 20, token = argmax(std::span<const float>(want).subspan(19 * size_t(vocab)));
    double worst = 0;
    for (int s = 0; s < 6; ++s, ++pos) {  // decode: the graph replays with new tokens and positions
      const std::vector<float> c = copy(cpu.forwardBatch({&token, 1}, pos));
      worst = std::max(worst, error(gpu.value()->forwardBatch({&token, 1}, pos), c));
      token = argmax(c);
    }
    report.close(name + ": 6 decode steps", worst, limit.decode);
    // Speculative verify passes at 26: 2 positions, 5, and 9 (8 drafts, k_max: the largest
    // the fused matvec and its graphs take).
    const std::vector<int> verify = {token, 5, 9, 14, 3, 21, 8, 30, 2};
    for (size_t n : {size_t{2}, size_t{5}, verify.size()}) {
      const std::span<const int> window(verify.data(), n);
      cpu.truncate(pos);
      gpu.value()->truncate(pos);
      const std::vector<float> cv = copy(cpu.forwardBatch(window, pos, true));
      report.close(name + ": verify pass of " + std::to_string(n) + " positions",
                   error(gpu.value()->forwardBatch(window, pos, true), cv), limit.decode);
    }
    cpu.truncate(pos + 1);  // keep one of the nine, then run another token after it
    gpu.value()->truncate(pos + 1);
    const int next = 77 % vocab;
    const std::vector<float> cr = copy(cpu.forwardBatch({&next, 1}, pos + 1));
    report.close(name + ": after rolling back 8 positions",
                 error(gpu.value()->forwardBatch({&next, 1}, pos + 1), cr), limit.decode);
  } catch (const std::exception& e) {
    report.check(name + ": forward", false, e.what());
  }
}

// A model whose matrices differ in format within a layer, as a K-quant mix stores them
// (llama.cpp's Q4_K_M keeps some attn_v and ffn_down as Q6_K): q / k / v and gate / up
// cannot share one fused launch.
std::shared_ptr<const Model> mixedFormatModel(const ModelConfig& c) {
  std::shared_ptr<Model> model = randomModel(c, WeightFormat::F32, 43);
  for (size_t l = 0; l < model->layers.size(); ++l) {
    LayerWeights& w = model->layers[l];
    w.wq = w.wq.converted(WeightFormat::Int4, 32);
    w.wk = w.wk.converted(WeightFormat::Q8_0);
    w.wv = w.wv.converted(l % 2 ? WeightFormat::F16 : WeightFormat::Int4, 32);
    w.w_gate = w.w_gate.converted(WeightFormat::Int4, 64);
    w.w_up = w.w_up.converted(WeightFormat::Int8);
    w.w_down = w.w_down.converted(WeightFormat::Q8_0);
  }
  return model;
}

// A prompt of 1,100 positions, then decode steps: attention split over many blocks of the
// KV length (the split count grows with the context), against the CPU.
void longContext(Report& report, std::shared_ptr<const Model> model, KvFormat kv) {
  const int positions = 1200, prompt_len = 1100, vocab = model->config.vocab;
  const std::string name = "long context (1,100 positions) KV " + kvFormatName(kv);
  auto gpu = CudaSession::create(CudaModelView(*model), vocab, positions, kv, CudaOptions{});
  if (!report.check(name + ": session", gpu.ok(), gpu.ok() ? "created" : gpu.error())) return;
  CpuSession cpu(model, positions, kv, 1);
  std::vector<int> prompt(prompt_len);
  for (int i = 0; i < prompt_len; ++i) prompt[i] = (i * 53 + 7) % vocab;
  try {
    const std::vector<float> want = copy(cpu.forwardBatch(prompt, 0));
    report.close(name + ": prefill's last logits",
                 error(gpu.value()->forwardBatch(prompt, 0), want),
                 kv == KvFormat::F32 ? 1e-3 : 1e-2);
    int token = argmax(want);
    double worst = 0;
    for (int pos = prompt_len; pos < prompt_len + 8; ++pos) {
      const std::vector<float> c = copy(cpu.forwardBatch({&token, 1}, pos));
      worst = std::max(worst, error(gpu.value()->forwardBatch({&token, 1}, pos), c));
      token = argmax(c);
    }
    report.close(name + ": 8 decode steps", worst, kv == KvFormat::F32 ? 1e-4 : 1e-2);
  } catch (const std::exception& e) {
    report.check(name + ": forward", false, e.what());
  }
}

void greedyReference(Report& report, const std::filesystem::path& model_path,
                     const std::filesystem::path& ref_path, const std::string& label) {
  std::ifstream in(ref_path);
  const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto prompt_ids = ts::testing::jsonNumbers(json, "prompt_ids");
  const auto expected = ts::testing::jsonNumbers(json, "generated_ids");
  auto model = loadModel(model_path.string());
  if (!report.check(label + ": loads", model.ok() && !expected.empty(),
                    model.ok() ? "" : model.error()))
    return;
  const int capacity = static_cast<int>(prompt_ids.size() + expected.size()) + 1;
  auto gpu = CudaSession::create(CudaModelView(*model.value()), model.value()->config.vocab,
                                 capacity, KvFormat::F32);
  if (!report.check(label + ": session", gpu.ok(), gpu.ok() ? "" : gpu.error())) return;
  std::vector<int> prompt(prompt_ids.begin(), prompt_ids.end());
  size_t first_diff = expected.size();
  try {
    auto logits = gpu.value()->forwardBatch(prompt, 0);
    int pos = static_cast<int>(prompt.size());
    for (size_t s = 0; s < expected.size(); ++s) {
      const int next = argmax(logits);
      if (next != static_cast<int>(expected[s])) {
        first_diff = s;
        break;
      }
      logits = gpu.value()->forwardBatch({&next, 1}, pos++);
    }
  } catch (const std::exception& e) {
    report.check(label + ": forward", false, e.what());
    return;
  }
  report.check(label + ": " + std::to_string(expected.size()) + " greedy ids equal the reference",
               first_diff == expected.size(),
               first_diff == expected.size()
                   ? ""
                   : "first difference at step " + std::to_string(first_diff));
}

}  // namespace

void modelChecks(Report& report, const std::string& models_dir) {
  const std::pair<WeightFormat, KvFormat> combos[] = {{WeightFormat::F32, KvFormat::F32},
                                                      {WeightFormat::F16, KvFormat::F16},
                                                      {WeightFormat::Int8, KvFormat::Int8},
                                                      {WeightFormat::Int4, KvFormat::Int8}};
  for (const auto& [arch, config] : architectureConfigs())
    for (auto [w, kv] : combos)
      compareSessions(report, "random " + arch, randomModel(config, w, 42), w, kv,
                      CudaOptions{0, 512, true});
  // The same model through passes of 16 (a 20-token prompt: cuBLAS then matvec), of 8
  // (matvec only) and without the graph.
  auto rope = randomModel(architectureConfigs()[0].second, WeightFormat::F32, 42);
  compareSessions(report, "random rope", rope, WeightFormat::F32, KvFormat::F32,
                  CudaOptions{0, 16, true});
  compareSessions(report, "random rope", rope, WeightFormat::F32, KvFormat::F32,
                  CudaOptions{0, 8, false});
  for (const auto& [arch, config] : architectureConfigs())
    if (arch == "rope" || arch == "gqa")
      compareSessions(report, "random " + arch + " mixed formats", mixedFormatModel(config),
                      WeightFormat::Stored, KvFormat::F16, CudaOptions{});
  for (KvFormat kv : {KvFormat::F32, KvFormat::Int8}) longContext(report, rope, kv);

  const std::filesystem::path models(models_dir);
  if (!std::filesystem::exists(models / "aidreams260K")) {
    report.note("fixtures skipped: " + models.string() + " is absent");
    return;
  }
  const std::pair<const char*, std::filesystem::path> fixtures[] = {
      {"aidreams260K", models / "aidreams260K" / "aidreams260K.gguf"},
      {"stories260K (GQA)", models / "stories260K-altered" / "stories260K.gguf"},
      {"baichuan-tiny-rope", models / "baichuan-tiny-rope" / "baichuan-tiny-rope-32L-f32.gguf"}};
  for (const auto& [label, path] : fixtures)
    for (auto [w, kv] : combos) {
      LoadOptions o;
      o.weights = w;
      o.cache = false;
      auto model = loadModel(path.string(), o);
      if (report.check(std::string(label) + " " + weightFormatName(w) + ": loads", model.ok(),
                       model.ok() ? model.value()->config.describe() : model.error()))
        compareSessions(report, label, model.value(), w, kv, CudaOptions{});
    }
  // ktiny: one model in every stored type the engine keeps (weights "auto"), Q4_K_M and
  // Q5_K_M mixing K-quants with Q6_K within layers.
  for (const char* type : {"F16", "Q8_0", "Q4_0", "Q4_K_M", "Q5_K_M", "Q6_K"}) {
    const std::string label = std::string("ktiny ") + type;
    auto model = loadModel((models / "ktiny" / ("ktiny-" + std::string(type) + ".gguf")).string());
    if (report.check(label + ": loads", model.ok(), model.ok() ? "" : model.error()))
      compareSessions(report, label, model.value(), WeightFormat::Stored, KvFormat::F32,
                      CudaOptions{});
  }
  for (const char* ref : {"I_dreamed", "In_my_dream", "BOS"})
    greedyReference(report, models / "aidreams260K" / "aidreams260K.gguf",
                    models / "aidreams260K" / "reference" / (std::string(ref) + ".json"),
                    std::string("aidreams260K greedy ") + ref);
}

}  // namespace ts::selftest
