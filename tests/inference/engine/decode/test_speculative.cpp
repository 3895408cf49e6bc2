// Speculative sampling: greedy output identical to plain greedy decoding for every draft
// source and K; the sampled distribution equal to plain sampling's (chi-squared, with a
// known-wrong rule that the same test rejects); rolled-back KV caches equal to plain ones.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "inference/engine/cpu/cpu_forward.h"
#include "inference/engine/decode/speculative.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/model/model.h"
#include "inference/engine/model/random_model.h"
#include "tests/inference/engine/check.h"
#include "tests/inference/engine/expect_error.h"

using namespace ts::engine;
using ts::testing::check;

namespace {

constexpr int kContext = 96;

std::vector<int> plainGenerate(std::shared_ptr<const Model> model, const std::vector<int>& prompt,
                               int count, SamplingConfig sampling, KvCache* cache_out = nullptr) {
  CpuSession session(model, kContext);
  Sampler sampler(sampling);
  std::vector<int> history = prompt, out;
  auto logits = session.forwardBatch(prompt, 0);
  int pos = static_cast<int>(prompt.size());
  for (int i = 0; i < count; ++i) {
    const int next = sampler.sample(logits, history);
    out.push_back(next);
    history.push_back(next);
    if (i + 1 < count) logits = session.forward(next, pos++);
  }
  if (cache_out) *cache_out = session.cache();
  return out;
}

struct SpecRun {
  std::vector<int> tokens;
  SpeculativeStats stats;
  bool cache_matches_plain = false;
};

SpecRun specGenerate(std::shared_ptr<const Model> model, DraftSource& draft,
                     const std::vector<int>& prompt, int count, SamplingConfig sampling,
                     SpeculativeConfig config, const KvCache* plain_cache = nullptr) {
  CpuSession target(model, kContext);
  Sampler sampler(sampling);
  SpeculativeDecoder decoder(target, draft, sampler, config);
  SpecRun run;
  run.tokens = ts::testing::valueOf(decoder.generate(prompt, count, [](int) { return true; }),
                                    "a speculative run");
  run.stats = decoder.stats();
  if (plain_cache) run.cache_matches_plain = target.cache() == *plain_cache;
  return run;
}

std::unique_ptr<DraftSource> makeDraft(const std::string& kind, std::shared_ptr<const Model> target,
                                       std::shared_ptr<const Model> other) {
  if (kind == "self-int4")
    return std::make_unique<ModelDraft>(kind, selfDraftModel(*target, 0), kContext, KvFormat::F32,
                                        1);
  if (kind == "self-layers:1")
    return std::make_unique<ModelDraft>(kind, selfDraftModel(*target, 1), kContext, KvFormat::F32,
                                        1);
  if (kind == "lookup") return std::make_unique<LookupDraft>(3);
  return std::make_unique<ModelDraft>(kind, other, kContext, KvFormat::F32, 1);
}

// A random model whose logits are far from uniform (classifier scaled up), so that two
// seeds give clearly different distributions.
std::shared_ptr<Model> peakyModel(ModelConfig config, uint64_t seed, float scale) {
  auto model = randomModel(config, WeightFormat::F32, seed);
  const QuantMatrix f = model->classifier.converted(WeightFormat::F32);
  std::vector<float> w(f.f32Data(), f.f32Data() + static_cast<size_t>(f.rows()) * f.cols());
  for (float& v : w) v *= scale;
  model->classifier = QuantMatrix::fromF32(w, f.rows(), f.cols());
  return model;
}

// Exact joint distribution of the first two generated tokens, [t1 * V + t2].
std::vector<double> exactPairs(std::shared_ptr<const Model> model, const std::vector<int>& prompt,
                               SamplingConfig sampling) {
  const int V = model->config.vocab;
  CpuSession session(model, kContext);
  Sampler sampler(sampling);
  auto logits = session.forwardBatch(prompt, 0);
  const std::vector<float> first = sampler.probabilities(logits, prompt);
  std::vector<double> joint(static_cast<size_t>(V) * V, 0.0);
  for (int t1 = 0; t1 < V; ++t1) {
    if (first[t1] <= 0) continue;
    session.truncate(static_cast<int>(prompt.size()));
    std::vector<int> history = prompt;
    history.push_back(t1);
    const auto next = session.forward(t1, static_cast<int>(prompt.size()));
    const std::vector<float> second = sampler.probabilities(next, history);
    for (int t2 = 0; t2 < V; ++t2) joint[static_cast<size_t>(t1) * V + t2] = first[t1] * second[t2];
  }
  return joint;
}

// Pearson's statistic against expected counts (cells expecting < 5 pooled) and whether it
// stays below the 0.1% critical value (Wilson-Hilferty approximation of the quantile).
bool chiSquaredPasses(const std::vector<double>& probability, const std::vector<int>& counts,
                      int samples, const std::string& label) {
  double stat = 0, pooled_expected = 0, pooled_observed = 0;
  int cells = 0;
  for (size_t i = 0; i < probability.size(); ++i) {
    const double expected = probability[i] * samples;
    if (expected < 5) {
      pooled_expected += expected;
      pooled_observed += counts[i];
      continue;
    }
    stat += (counts[i] - expected) * (counts[i] - expected) / expected;
    ++cells;
  }
  if (pooled_expected > 0) {
    stat += (pooled_observed - pooled_expected) * (pooled_observed - pooled_expected) /
            std::max(pooled_expected, 1e-9);
    ++cells;
  }
  const double df = cells - 1, z = 3.090;  // one-sided 0.1%
  const double critical = df * std::pow(1 - 2 / (9 * df) + z * std::sqrt(2 / (9 * df)), 3);
  std::printf("  %s: chi-squared %.1f over %d cells (critical %.1f)\n", label.c_str(), stat, cells,
              critical);
  return stat < critical;
}

}  // namespace

int main() {
  // --- Greedy: token-for-token the plain greedy output, for every source and K. ---
  const char* env = std::getenv("TOKENSCOPE_SHARED_DIR");
  const std::filesystem::path models = std::filesystem::path(env ? env : "../shared") / "models";
  auto tiny = shapeConfig("llama-tiny", 2);
  auto alibi = shapeConfig("baichuan-13b", 2);
  if (!tiny || !alibi) return 1;
  ModelConfig small_alibi = alibi.value();
  small_alibi.dim = 128;
  small_alibi.n_heads = small_alibi.n_kv_heads = 4;
  small_alibi.head_dim = small_alibi.rope_dim = 32;
  small_alibi.ffn_dim = 200;
  small_alibi.vocab = 300;
  std::vector<std::pair<std::string, std::shared_ptr<const Model>>> targets = {
      {"random llama-tiny (GQA)", randomModel(tiny.value(), WeightFormat::F32, 11)},
      {"random ALiBi", randomModel(small_alibi, WeightFormat::F32, 12)}};
  for (const char* file :
       {"aidreams260K/aidreams260K.gguf", "stories260K-altered/stories260K.gguf"}) {
    if (!std::filesystem::exists(models / file)) {
      std::printf("SKIP %s: absent (the shared test fixtures are not laid out here)\n", file);
      continue;
    }
    auto loaded = loadModel((models / file).string());
    check(loaded.ok(), std::string("load ") + file);
    if (loaded) targets.emplace_back(file, loaded.value());
  }
  SamplingConfig greedy;  // temperature 0
  for (const auto& [name, target] : targets) {
    auto other = randomModel(target->config, WeightFormat::F32, 777);  // same vocabulary size
    const int V = target->config.vocab;
    // Prompts: a repetitive one (lookup finds matches) and two arbitrary ones.
    const std::vector<std::vector<int>> prompts = {
        {1, 5 % V, 9 % V, 13 % V, 5 % V, 9 % V, 13 % V, 5 % V, 9 % V},
        {1, 200 % V, 31 % V},
        {1, 77 % V, 78 % V, 79 % V, 80 % V, 81 % V}};
    for (const char* kind : {"self-int4", "self-layers:1", "lookup", "draft model"}) {
      bool same = true, caches = true;
      int accepted = 0, drafted = 0;
      for (const auto& prompt : prompts) {
        KvCache plain_cache(1, 1, 1, 1, KvFormat::F32);
        const std::vector<int> want = plainGenerate(target, prompt, 24, greedy, &plain_cache);
        for (int k : {1, 2, 4, 8, 0}) {  // 0: adaptive
          auto draft = makeDraft(kind, target, other);
          SpeculativeConfig config;
          config.k = k == 0 ? 4 : k;
          config.adaptive = k == 0;
          const SpecRun run =
              specGenerate(target, *draft, prompt, 24, greedy, config, &plain_cache);
          same &= run.tokens == want;
          caches &= run.cache_matches_plain;
          accepted += run.stats.accepted();
          drafted += run.stats.drafted();
        }
      }
      check(same, name + ", " + kind +
                      ": greedy speculative output equals plain greedy (3 "
                      "prompts, K = 1, 2, 4, 8 and adaptive, 24 tokens)");
      check(caches, name + ", " + kind +
                        ": after every run (rejections rolled back) the target's KV cache equals "
                        "plain decoding's, bit for bit");
      std::printf("  %s, %s: %d of %d drafted tokens accepted\n", name.c_str(), kind, accepted,
                  drafted);
      if (std::string(kind) == "self-int4" && name.find("aidreams") != std::string::npos)
        check(accepted > drafted / 2,
              name + ": the int4 self-draft agrees with the target on most greedy tokens");
    }
  }

  // --- Which tokens were accepted drafts: each step's first `accepted`, never the last. ---
  {
    const auto target = targets.front().second;
    auto draft = makeDraft("self-int4", target, nullptr);
    CpuSession session(target, kContext);
    Sampler sampler(greedy);
    SpeculativeDecoder decoder(session, *draft, sampler, {4, false});
    std::vector<bool> flags;
    const auto done = decoder.generate(std::vector<int>{1, 5, 9, 3}, 40, [&](int, bool drafted) {
      flags.push_back(drafted);
      return true;
    });
    check(done.ok(), "the flagged run completes: " + ts::testing::errorOf(done));
    std::vector<bool> expected;
    for (const SpeculativeStep& step : decoder.stats().steps)
      for (int i = 0; i <= step.accepted; ++i) expected.push_back(i < step.accepted);
    expected.resize(flags.size());
    const auto drafted = std::count(flags.begin(), flags.end(), true);
    check(flags == expected && drafted == decoder.stats().accepted() && drafted > 0 &&
              drafted < static_cast<long>(flags.size()),
          "drafted flags: " + std::to_string(drafted) + " of " + std::to_string(flags.size()) +
              " tokens were accepted drafts, as the step records say");
  }

  // --- Draft sources in isolation. ---
  {
    LookupDraft lookup(3);
    Sampler sampler(greedy);
    Draft d;
    const std::vector<int> context = {1, 2, 3, 9, 4, 1, 2, 3};
    lookup.propose(context, 3, sampler, d);
    check(d.tokens == std::vector<int>{9, 4, 1} && d.q.size() == 3 && d.q[0].empty(),
          "lookup: the tokens after the latest earlier '1 2 3' are proposed, deterministically");
    lookup.propose(std::vector<int>{5, 6, 7}, 3, sampler, d);
    check(d.tokens.empty(), "lookup: no earlier match, no proposal");
  }
  {
    auto target = randomModel(tiny.value(), WeightFormat::F32, 1);
    ModelConfig bigger = tiny.value();
    bigger.vocab += 1;
    auto wrong_size = randomModel(bigger, WeightFormat::F32, 1);
    auto r = checkSameVocabulary(*target, *wrong_size);
    check(!r.ok() && r.error().find(std::to_string(bigger.vocab) + " tokens, the target's " +
                                    std::to_string(tiny->vocab)) != std::string::npos,
          "a draft with another vocabulary size is refused: " + (r.ok() ? "(ok)" : r.error()));
    auto renamed = randomModel(tiny.value(), WeightFormat::F32, 1);
    target->vocab.pieces = {"<unk>", "<s>", "</s>", "a"};
    renamed->vocab.pieces = {"<unk>", "<s>", "</s>", "b"};
    r = checkSameVocabulary(*target, *renamed);
    check(!r.ok() && r.error().find("at token 3: target 'a', draft 'b'") != std::string::npos,
          "a draft whose pieces differ is refused, naming the first: " +
              (r.ok() ? "(ok)" : r.error()));
  }
  {  // A model draft runs the prompt in the prefill; each proposal then runs only what is new.
    auto target = randomModel(tiny.value(), WeightFormat::F32, 5);
    auto draft_model = randomModel(tiny.value(), WeightFormat::F32, 6);
    const std::vector<int> prompt = {1, 8, 2, 9, 3, 10, 4, 11, 5};
    Sampler sampler(greedy);
    ModelDraft primed("primed", draft_model, kContext, KvFormat::F32, 1);
    ModelDraft cold("cold", draft_model, kContext, KvFormat::F32, 1);
    primed.prime(prompt);
    const long long prefill = primed.positionsRun();
    Draft a, b;
    primed.propose(prompt, 4, sampler, a);
    cold.propose(prompt, 4, sampler, b);
    check(prefill == 8 && primed.positionsRun() == 8 + 1 + 3 && a.tokens == b.tokens &&
              a.tokens.size() == 4,
          "a primed draft runs 8 of the 9 prompt positions in the prefill, then the last one and "
          "its first 3 proposals (" +
              std::to_string(prefill) + " then " + std::to_string(primed.positionsRun()) +
              "), proposing what an unprimed draft proposes");
    // The next turn shares the prompt and the first proposal: only the rest is run.
    std::vector<int> next = prompt;
    next.insert(next.end(), {a.tokens[0], 7, 6});
    primed.prime(next);
    check(primed.positionsRun() == 12 + 1,
          "priming the next turn runs only its one new position before the last (" +
              std::to_string(primed.positionsRun() - 12) + ")");
  }
  {  // Adaptive K grows while every draft is accepted (the target drafting for itself).
    auto target = randomModel(tiny.value(), WeightFormat::F32, 3);
    ModelDraft self("same model", target, kContext, KvFormat::F32, 1);
    SpeculativeConfig config;
    config.k = 1;
    config.adaptive = true;
    const SpecRun run = specGenerate(target, self, {1, 2, 3}, 80, greedy, config);
    const auto h = run.stats.histogram();
    check(run.stats.acceptanceRate() == 1.0 && static_cast<int>(h.size()) == config.k_max + 1 &&
              h.back() > 0,
          "adaptive K: an always-right draft grows K from 1 to 8 (acceptance 1.0)");
  }

  // --- Distribution: the first two tokens of speculative vs exact target sampling. ---
  ModelConfig small = tiny.value();
  small.vocab = 12;
  small.n_layers = 1;
  auto target = peakyModel(small, 21, 3.f);
  auto draft_model = peakyModel(small, 22, 3.f);
  const std::vector<int> prompt = {1, 4, 7};
  const int samples = 20000;
  for (auto [temperature, top_p] : {std::pair{1.f, 1.f}, std::pair{0.7f, 0.9f}}) {
    SamplingConfig sampling;
    sampling.temperature = temperature;
    sampling.top_p = top_p;
    const std::vector<double> exact = exactPairs(target, prompt, sampling);
    const std::string setting = "temperature " + std::to_string(temperature).substr(0, 3) +
                                ", top-p " + std::to_string(top_p).substr(0, 3);
    std::map<std::string, std::vector<int>> counts;
    for (const char* method : {"plain", "speculative", "wrong residual"})
      counts[method].assign(exact.size(), 0);
    for (int s = 0; s < samples; ++s) {
      sampling.seed = 1000 + s;
      const auto plain = plainGenerate(target, prompt, 2, sampling);
      ++counts["plain"][plain[0] * small.vocab + plain[1]];
      for (const char* method : {"speculative", "wrong residual"}) {
        ModelDraft draft("draft", draft_model, kContext, KvFormat::F32, 1);
        SpeculativeConfig config;
        config.k = 3;
        if (std::string(method) == "wrong residual")
          config.residual = SpeculativeConfig::Residual::FromTarget;
        const SpecRun run = specGenerate(target, draft, prompt, 2, sampling, config);
        ++counts[method][run.tokens[0] * small.vocab + run.tokens[1]];
      }
    }
    check(chiSquaredPasses(exact, counts["plain"], samples, "plain " + setting),
          "plain sampling follows the target's exact distribution (" + setting + ", 20,000 runs)");
    check(chiSquaredPasses(exact, counts["speculative"], samples, "speculative " + setting),
          "speculative sampling follows the target's exact distribution (" + setting +
              ", 20,000 runs)");
    check(!chiSquaredPasses(exact, counts["wrong residual"], samples, "wrong " + setting),
          "the same test rejects a wrong rule (resampling from p instead of max(0, p - q)) (" +
              setting + ")");
  }
  return ts::testing::finish();
}
