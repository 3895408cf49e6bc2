// Golden runs (llama2.c's way of pinning a whole pipeline): real tiny models from
// ../shared/models, greedy decoding in f32, compared with reference outputs produced by an
// independent implementation: prompt top-5 logits and every step's top-1 logit within 1e-4,
// and the exact generated ids (and, for aidreams260K, the exact text).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <vector>
#include "tests/inference/engine/check.h"
#include "tests/inference/engine/json_text.h"

#include "inference/engine/cpu/cpu_forward.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/tokenizer/pieces.h"

using ts::testing::check;

using namespace ts::engine;

namespace {

// The reference files are small, flat JSON: read the few fields with regular expressions.
using ts::testing::jsonNumbers;
std::vector<std::pair<int, double>> top5(const std::string& json) {
  std::smatch block;
  std::vector<std::pair<int, double>> out;
  if (!std::regex_search(json, block,
                         std::regex("\"last_prompt_pos_top5\"\\s*:\\s*\\[([\\s\\S]*?)\\]")))
    return out;
  const std::string text = block[1].str();
  const std::regex item("\"id\"\\s*:\\s*(\\d+)\\s*,\\s*\"logit\"\\s*:\\s*(-?[0-9.eE+-]+)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), item); it != std::sregex_iterator();
       ++it)
    out.emplace_back(std::stoi((*it)[1]), std::stod((*it)[2]));
  return out;
}
std::string stringField(const std::string& json, const std::string& key) {
  std::smatch m;
  if (!std::regex_search(json, m, std::regex("\"" + key + "\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"")))
    return {};
  return ts::testing::jsonUnescape(m[1].str());
}

int argmax(std::span<const float> v) {
  return static_cast<int>(std::max_element(v.begin(), v.end()) - v.begin());
}

void golden(const std::string& label, const std::string& model_path, const std::string& ref_path,
            bool compare_text) {
  std::ifstream in(ref_path);
  const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto model = loadModel(model_path);
  check(model.ok(), label + ": loads (" +
                        (model.ok() ? model.value()->config.describe() : model.error()) + ")");
  if (!model.ok()) return;
  const auto prompt = jsonNumbers(json, "prompt_ids");
  const auto expected = jsonNumbers(json, "generated_ids");
  const auto step_logit = jsonNumbers(json, "step_top1_logit");
  CpuSession session(model.value(), static_cast<int>(prompt.size() + expected.size()) + 1);
  std::span<const float> logits;
  int pos = 0;
  for (double id : prompt) logits = session.forward(static_cast<int>(id), pos++);
  double worst = 0;
  bool same_ids = true;
  std::vector<float> sorted(logits.begin(), logits.end());
  for (auto [id, logit] : top5(json)) {
    worst = std::max(worst, std::abs(logits[id] - logit));
    std::nth_element(sorted.begin(), sorted.begin() + 4, sorted.end(), std::greater<float>());
    same_ids &= logits[id] >= sorted[4];
  }
  check(same_ids && worst < 1e-4,
        label + ": prompt top-5 ids match, max |logit error| " + std::to_string(worst));
  std::vector<int> got;
  std::string text;
  double worst_step = 0;
  for (size_t s = 0; s < expected.size(); ++s) {
    const int next = argmax(logits);
    if (s < step_logit.size())
      worst_step = std::max(worst_step, std::abs(logits[next] - step_logit[s]));
    got.push_back(next);
    text += pieceBytes(model.value()->vocab, next);
    logits = session.forward(next, pos++);
  }
  size_t first_diff = expected.size();
  for (size_t s = 0; s < expected.size(); ++s)
    if (got[s] != static_cast<int>(expected[s])) {
      first_diff = s;
      break;
    }
  check(first_diff == expected.size(),
        label + ": " + std::to_string(expected.size()) + " greedy ids equal the reference" +
            (first_diff < expected.size()
                 ? " (first difference at step " + std::to_string(first_diff) + ")"
                 : ""));
  check(worst_step < 1e-4, label + ": every step's top-1 logit within 1e-4 (max error " +
                               std::to_string(worst_step) + ")");
  if (compare_text) {
    const std::string want = stringField(json, "generated_text");
    check(text == want, label + ": text equals the reference: \"" + text.substr(0, 60) + "…\"");
  }
}
}  // namespace

int main() {
  const char* env = std::getenv("TOKENSCOPE_SHARED_DIR");
  const std::filesystem::path models = std::filesystem::path(env ? env : "../shared") / "models";
  if (!std::filesystem::exists(models / "aidreams260K")) {
    std::printf("SKIP: %s is absent (the shared test fixtures are not laid out here)\n",
                models.c_str());
    std::printf("0 passed, 0 failed\n");
    return 0;
  }
  const auto a = models / "aidreams260K";
  for (const char* ref : {"I_dreamed", "In_my_dream", "BOS"}) {
    const std::string r = (a / "reference" / (std::string(ref) + ".json")).string();
    golden(std::string("aidreams260K.bin ") + ref, (a / "aidreams260K.bin").string(), r, true);
    golden(std::string("aidreams260K.gguf ") + ref, (a / "aidreams260K.gguf").string(), r, true);
  }
  const auto st = models / "stories260K-altered";
  for (const char* ref : {"Once_upon_a_time", "The_little_dog"}) {
    const std::string r = (st / "reference" / (std::string(ref) + ".json")).string();
    golden(std::string("stories260K.bin (GQA) ") + ref, (st / "stories260K.bin").string(), r,
           false);
    golden(std::string("stories260K.gguf (GQA) ") + ref, (st / "stories260K.gguf").string(), r,
           false);
  }
  const auto b = models / "baichuan-tiny-rope";
  golden("baichuan-tiny-rope (baichuan GGUF)", (b / "baichuan-tiny-rope-32L-f32.gguf").string(),
         (b / "reference.json").string(), false);
  return ts::testing::finish();
}
