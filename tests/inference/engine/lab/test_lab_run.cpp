// The lab on the real ktiny files: the accuracy check against llama.cpp's reference logits
// (a model against itself, against its Q4_0 and Q8_0 files), and whole lab runs (KV lever,
// a lookup draft, a weights lever written as a GGUF in the cache) with their report's JSON.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "inference/engine/cpu/cpu_forward.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/lab/crowding_probe.h"
#include "inference/engine/lab/lab_json.h"
#include "inference/engine/lab/lab_run.h"
#include "inference/engine/lab/machine_probe.h"
#include "inference/engine/lab/mixed_load.h"
#include "inference/engine/lab/next_token_agreement.h"
#include "tests/inference/engine/check.h"
#include "tests/inference/engine/temp_dir.h"

namespace fs = std::filesystem;
using namespace ts::engine;
using namespace ts::engine::lab;
using ts::testing::check;

namespace {

const std::vector<int> kPromptA = {1, 100, 200, 300, 400, 500};  // the README's prompt A

std::shared_ptr<Model> load(const fs::path& file) {
  auto m = loadModel(file.string());
  if (!m) {
    check(false, "loads " + file.string() + ": " + m.error());
    std::exit(ts::testing::finish());
  }
  return m.value();
}

// KL(F16 || TYPE) of llama.cpp's last_logits for prompt A (reference/*.json).
double referenceKl(const fs::path& dir, const std::string& type) {
  const auto logits = [&](const std::string& t) {
    std::ifstream in(dir / "reference" / ("ktiny-" + t + ".A.json"));
    const auto j = nlohmann::json::parse(in);
    return j["last_logits"].get<std::vector<float>>();
  };
  return klDivergence(logits("F16"), logits(type));
}

void agreement(const fs::path& dir) {
  auto f16 = load(dir / "ktiny-F16.gguf");
  CpuSession a(f16, 64, KvFormat::F32, 2), b(f16, 64, KvFormat::F32, 2);
  auto self = teacherForcedAgreement(a, b, kPromptA, 24);
  check(self.ok() && self->meanKl() == 0 && self->top1Agreement() == 1 && self->positions == 24,
        "the model against itself: KL 0, top-1 agreement 100% over 24 positions");
  for (const std::string type : {"Q4_0", "Q8_0"}) {
    auto q = load(dir / ("ktiny-" + type + ".gguf"));
    CpuSession s(q, 64, KvFormat::F32, 2);
    auto got = teacherForcedAgreement(a, s, kPromptA, 24);
    if (!got) {
      check(false, type + ": " + got.error());
      continue;
    }
    const double reference = referenceKl(dir, type);
    std::printf(
        "  F16 vs %s: KL at prompt A's end %.5f (llama.cpp's logits: %.5f), top-1 %.1f%% "
        "over 24 teacher-forced positions, mean KL %.4f\n",
        type.c_str(), got->kl[0], reference, 100 * got->top1Agreement(), got->meanKl());
    check(std::fabs(got->kl[0] - reference) <= 0.05 * reference,
          type + ": KL at prompt A's end within 5% of llama.cpp's reference logits' KL");
    check(got->top1_agreed >= 1, type + ": both pick token 95 after prompt A (README)");
    if (type == "Q4_0")  // README: greedy ids agree for 4 steps, then 693 vs 57
      check(got->top1Agreement() < 1 && got->meanKl() > 0.1,
            "Q4_0: the distributions part after the README's 4 common greedy steps");
    else
      check(got->meanKl() < 0.1, "Q8_0: mean KL below 0.1");
  }
  CpuSession small(f16, 8, KvFormat::F32, 1);
  auto too_long = teacherForcedAgreement(a, small, kPromptA, 24);
  check(!too_long.ok() && too_long.error().find("needs 29 positions") != std::string::npos,
        "too few positions: the error says how many are needed");
}

LabSettings settingsFor(const fs::path& dir) {
  LabSettings s;
  s.model_path = (dir / "ktiny-F16.gguf").string();
  s.backend.threads = 1;
  s.prompt_tokens = 16;
  s.gen_tokens = 12;
  s.repeat = 3;
  s.accuracy_positions = 8;
  return s;
}

void kvLever(const fs::path& dir, const fs::path& cache) {
  std::vector<double> fractions;
  auto report = runLab(settingsFor(dir), {"kv", {"int8"}},
                       [&](const std::string&, double f) { fractions.push_back(f); });
  if (!report) {
    check(false, "kv=int8 runs: " + report.error());
    return;
  }
  std::string order;
  for (const auto& o : report->order) order += o;
  check(order == "ABABAB", "kv=int8: the runs alternate A B A B A B (" + order + ")");
  check(std::is_sorted(fractions.begin(), fractions.end()) && fractions.back() == 1,
        "progress only moves forward and ends at 100%");
  const VariantResult& v = report->variants.at(0);
  check(v.value == "int8" && v.arm.kv == "int8" && report->baseline.kv == "f16",
        "the variant runs an int8 KV cache, the baseline f16");
  for (const std::string& m : labMetrics())
    check(v.metrics.at(m).measured.valid && v.metrics.at(m).measured.baseline_median > 0,
          m + ": both arms measured");
  check(v.metrics.at("decode_tok_s").predicted_pct.has_value() &&
            v.metrics.at("prefill_tok_s").predicted_pct.has_value(),
        "decode and prefill carry a prediction");
  check(v.accuracy && v.accuracy->positions == 8 && v.accuracy->top1Agreement() > 0.5,
        "kv=int8: accuracy over 8 positions");
  const nlohmann::json j = labReportJson(report.value());
  const auto& decode = j["variants"][0]["metrics"]["decode_tok_s"];
  check(j["order"].size() == 6 && j["baseline"]["kv"] == "f16" && decode["ci95_pct"].size() == 2 &&
            decode.contains("baseline_median") && decode.contains("variant_median") &&
            decode.contains("change_pct") && decode.contains("predicted_change_pct") &&
            j["variants"][0]["accuracy"].contains("top1_agreement") &&
            j["variants"][0]["accuracy"].contains("mean_kl") &&
            j["variants"][0]["accuracy"]["positions"] == 8 &&
            j["variants"][0]["metrics"].contains("peak_rss_mb"),
        "the JSON has the interface's fields");
  std::ifstream rates(cache / "tokenscope" / "machine-rates.json");
  const auto saved = nlohmann::json::parse(rates, nullptr, false);
  check(saved.is_object() && saved.begin() != saved.end() && saved.begin()->contains("read_gb_s") &&
            (*saved.begin())["types"].contains("F16"),
        "the machine's rates are kept in the cache for the next run");
}

void draftLever(const fs::path& dir) {
  LabSettings s = settingsFor(dir);
  s.draft_ks = {2, 3};
  auto report = runLab(s, {"draft", {"lookup"}});
  if (!report) {
    check(false, "draft=lookup runs: " + report.error());
    return;
  }
  check(report->variants.size() == 2 && report->variants[0].value == "lookup K2" &&
            report->variants[1].value == "lookup K3",
        "one variant per draft K");
  for (const VariantResult& v : report->variants)
    check(v.output_identical == true && v.acceptance_rate.has_value() && !v.accuracy,
          v.value + ": greedy output identical to the baseline's, acceptance reported");
}

void weightsLever(const fs::path& dir, const fs::path& cache) {
  LabSettings s = settingsFor(dir);
  s.repeat = 2;
  auto report = runLab(s, {"weights", {"q4_0", "nonsense"}});
  check(!report.ok() && report.error().find("found 'nonsense'") != std::string::npos,
        "an unknown weights value is named: " + (report.ok() ? "" : report.error()));
  report = runLab(s, {"weights", {"q4_0"}});
  if (!report) {
    check(false, "weights=q4_0 runs: " + report.error());
    return;
  }
  check(report->variants[0].arm.weights.find("Q4_0") == 0,
        "weights=q4_0 runs Q4_0 matrices: " + report->variants[0].arm.weights);
  bool written = false;
  for (const auto& e : fs::recursive_directory_iterator(cache))
    written |= e.path().string().ends_with(".q4_0.gguf");
  check(written, "the Q4_0 file is written in the cache, not beside the model");
}

void prefillLever(const fs::path& dir) {
  LabSettings s = settingsFor(dir);
  s.repeat = 2;
  s.warmup = 0;
  s.mixed = {1, 8, 8, 96, 2, 0.05, 2};  // 1 stream, 96-token prompts arriving twice
  auto report = runLab(s, {"prefill", {"chunk:16", "separate:64"}});
  if (!report) {
    check(false, "prefill=chunk:16,separate:64 runs: " + report.error());
    return;
  }
  std::string order;
  for (const auto& o : report->order) order += o;
  check(order == "ABCABC", "prefill: the three arms alternate (" + order + ")");
  for (const VariantResult& v : report->variants)
    for (const char* metric : {"ttft_p99_long_ms", "tpot_p99_ms", "itl_p99_ms"})
      check(v.metrics.count(metric) && v.metrics.at(metric).measured.valid &&
                v.metrics.at(metric).measured.variant_median > 0,
            v.value + ": the mixed load's " + metric + " is measured");
  check(!report->variants[0].accuracy, "a scheduling policy has no accuracy cost to check");
  for (const VariantResult& v : report->variants)
    check(v.metrics.at("ttft_p99_long_ms").predicted_pct.has_value() &&
              v.metrics.at("tpot_p99_ms").predicted_pct.has_value(),
          v.value + ": the scheduler replay predicts the long prompts' TTFT and the TPOT");
  // What the worker and the steps cost each other, measured on a real session
  CpuSession steps(load(dir / "ktiny-F16.gguf"), 64, KvFormat::F16, 1);
  const auto crowding = measureCrowding(steps, 1, 32);
  check(crowding && crowding->step_alone_s > 0 && crowding->step_beside_s > 0 &&
            crowding->worker_token_s > 0,
        "crowding: a step alone, a step beside the worker and the worker's token time measured");
  check(!steps.forwardBatch(kPromptA, 0, false).empty(),
        "crowding: the steps' session runs on after the probe");
  SchedulerOptions o;
  auto bad = applyPrefillPolicy("chunky:4", o);
  check(!bad.ok() && bad.error() ==
                         "--vary prefill: expected chunk:N, tpot:MS or separate:TOKENS, "
                         "found 'chunky:4'",
        "a prefill policy that does not exist is named");
  check(applyPrefillPolicy("separate:256", o).ok() && o.separate_prefill_tokens == 256 &&
            applyPrefillPolicy("chunk:0", o).ok() && o.prefill_chunk == 0,
        "separate:256 and chunk:0 (whole prompts) set the scheduler's options");
}

}  // namespace

int main() {
  const char* shared = std::getenv("TOKENSCOPE_SHARED_DIR");
  const fs::path dir = fs::path(shared ? shared : "../shared") / "models" / "ktiny";
  if (!fs::exists(dir / "ktiny-F16.gguf")) {
    std::printf("SKIP %s not found: the ktiny fixtures are absent\n", dir.string().c_str());
    return ts::testing::finish();
  }
  ts::testing::TempDir cache("lab-cache");
  setenv("XDG_CACHE_HOME", cache.path().c_str(), 1);
  agreement(dir);
  kvLever(dir, cache.path());
  draftLever(dir);
  weightsLever(dir, cache.path());
  prefillLever(dir);
  return ts::testing::finish();
}
