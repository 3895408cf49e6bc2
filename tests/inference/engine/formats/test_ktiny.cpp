// GGUF files as a widely used quantizer writes them (../shared/models/ktiny: one random
// llama model as F16, Q8_0, Q4_0, Q4_K_M, Q5_K_M and Q6_K), loaded with the defaults
// (weights "auto": every tensor as stored, multiplied by the fused kernels) and an f32 KV
// cache, against that engine's outputs on the same files: the last prompt position's
// logits within 0.3 (0.05 for F16) and its greedy ids up to the first step whose reference
// top-1 / top-2 margin is below that bound (the README says why the bound is not tighter).
// Also: nothing is converted or copied (every matrix stays in its stored type), and no
// file appears beside the model.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/inference/engine/check.h"

#include "inference/engine/cpu/cpu_forward.h"
#include "inference/engine/formats/json_reader.h"
#include "inference/engine/formats/model_loader.h"

using namespace ts::engine;
using ts::testing::check;
namespace fs = std::filesystem;

namespace {

int argmax(std::span<const float> v) {
  return static_cast<int>(std::max_element(v.begin(), v.end()) - v.begin());
}

std::string listing(const fs::path& dir) {
  std::string names;
  for (const auto& e : fs::directory_iterator(dir)) names += e.path().filename().string() + " ";
  return names;
}

void checkFile(const fs::path& dir, const std::string& type) {
  const fs::path model_path = dir / ("ktiny-" + type + ".gguf");
  std::ifstream in(dir / "reference" / ("ktiny-" + type + ".A.json"));
  std::stringstream text;
  text << in.rdbuf();
  auto ref = parseJson(text.str());
  check(ref.ok(), type + ": reference parses");
  if (!ref) return;
  const Json& r = ref.value();
  const std::vector<int> prompt = r["prompt_ids"].get<std::vector<int>>();
  const std::vector<double> want_logits = r["last_logits"].get<std::vector<double>>();
  const std::vector<int> want_ids = r["generated_ids"].get<std::vector<int>>();
  const auto top2 = r["step_top2"].get<std::vector<std::vector<double>>>();
  const double bound = type == "F16" ? 0.05 : 0.3;

  auto model = loadModel(model_path.string());
  check(model.ok(), type + ": loads with the defaults (" +
                        (model.ok() ? model.value()->weightSummary() : model.error()) + ")");
  if (!model) return;
  const Model& m = *model.value();
  bool as_stored = m.classifier.format() == WeightFormat::Stored &&
                   m.token_embd.format() == WeightFormat::Stored;
  for (const auto& l : m.layers)
    for (const QuantMatrix* w : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down})
      as_stored = as_stored && w->format() == WeightFormat::Stored;
  check(as_stored && m.load_note.empty(),
        type + ": every matrix and the embedding table stay as stored (" + m.weightSummary() + ")");

  CpuSession session(model.value(), 64, KvFormat::F32, 2);
  auto logits = session.forwardBatch(prompt, 0);
  double max_diff = 0;
  for (size_t i = 0; i < want_logits.size(); ++i)
    max_diff = std::max(max_diff, std::abs(logits[i] - want_logits[i]));
  std::printf("  %s: last-position logits max |diff| %.3g\n", type.c_str(), max_diff);
  check(max_diff <= bound, type + ": last-position logits within " + std::to_string(bound) +
                               " of the reference (max |diff| " + std::to_string(max_diff) + ")");

  // Greedy ids: equal at least until the first step whose reference margin is below bound.
  int pos = static_cast<int>(prompt.size());
  int token = argmax(logits);
  size_t must = 0;
  while (must < top2.size() && top2[must][0] - top2[must][1] >= bound) ++must;
  std::vector<int> got;
  for (size_t step = 0; step < want_ids.size(); ++step) {
    got.push_back(token);
    if (step + 1 < want_ids.size()) token = argmax(session.forward(token, pos++));
  }
  size_t same = 0;
  while (same < got.size() && got[same] == want_ids[same]) ++same;
  std::printf("  %s: %zu of %zu greedy ids equal the reference (required: %zu)\n", type.c_str(),
              same, want_ids.size(), must);
  check(same >= must, type + ": greedy ids " + ts::testing::join(got) + " match the reference " +
                          ts::testing::join(want_ids) + " for the first " + std::to_string(must) +
                          " steps");

  // A speculative verification's shape: five positions in one pass give, to the bit, the
  // logits of decoding them one at a time (greedy speculative output relies on it).
  if (got.size() >= 5) {
    CpuSession one(model.value(), 64, KvFormat::F32, 2), pass(model.value(), 64, KvFormat::F32, 2);
    one.forwardBatch(prompt, 0);
    pass.forwardBatch(prompt, 0);
    std::vector<float> sequential;
    for (int i = 0; i < 5; ++i) {
      auto l = one.forward(got[i], static_cast<int>(prompt.size()) + i);
      sequential.insert(sequential.end(), l.begin(), l.end());
    }
    auto all = pass.forwardBatch(std::span(got).first(5), static_cast<int>(prompt.size()), true);
    check(
        std::vector<float>(all.begin(), all.end()) == sequential,
        type + ": a pass of 5 positions gives bit-identical logits to decoding them one at a time");
  }

  // A prompt's shape: a pass of 70 positions (past one chunk of positions of the K types'
  // passes, 32 or 48) gives the logits of decoding them one at a time, to the bit.
  {
    const int n = 70, vocab = model.value()->config.vocab;
    std::vector<int> ids(n);
    for (int i = 0; i < n; ++i) ids[i] = (i * 7919 + 3) % vocab;
    CpuSession one(model.value(), n, KvFormat::F32, 2), pass(model.value(), n, KvFormat::F32, 2);
    std::vector<float> sequential;
    for (int i = 0; i < n; ++i) {
      auto l = one.forward(ids[i], i);
      sequential.insert(sequential.end(), l.begin(), l.end());
    }
    auto all = pass.forwardBatch(ids, 0, true);
    check(std::vector<float>(all.begin(), all.end()) == sequential,
          type +
              ": a pass of 70 positions gives bit-identical logits to decoding them one at a "
              "time");
  }
}

}  // namespace

int main() {
  const char* shared = std::getenv("TOKENSCOPE_SHARED_DIR");
  const fs::path dir = fs::path(shared ? shared : "../shared") / "models" / "ktiny";
  if (!fs::exists(dir / "ktiny-Q4_0.gguf")) {
    std::printf("SKIP %s not found: the ktiny fixtures are absent\n", dir.string().c_str());
    return ts::testing::finish();
  }
  const std::string before = listing(dir);
  for (const std::string type : {"F16", "Q8_0", "Q4_0", "Q4_K_M", "Q5_K_M", "Q6_K"})
    checkFile(dir, type);
  check(listing(dir) == before, "no file was written beside the models");
  return ts::testing::finish();
}
