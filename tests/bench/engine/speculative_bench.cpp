#include "tests/bench/engine/speculative_bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "inference/engine/cpu/cpu_forward.h"
#include "inference/engine/decode/speculative.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/tokenizer/tokenizer.h"
#include "tests/bench/engine/bench_clock.h"

namespace ts::bench {
double verifyCostRatio(std::shared_ptr<const engine::Model> model, int context, int positions,
                       engine::KvFormat kv, int threads, int repeat) {
  const int vocab = model->config.vocab;
  engine::CpuSession session(model, context + positions, kv, threads);
  std::vector<int> prompt(context), batch(positions);
  for (int i = 0; i < context; ++i) prompt[i] = (i * 7919 + 1) % vocab;
  for (int i = 0; i < positions; ++i) batch[i] = (i * 104729 + 3) % vocab;
  session.forwardBatch(prompt, 0);
  std::vector<double> ratios;
  for (int r = 0; r < repeat; ++r) {
    double t0 = now();
    session.forwardBatch(std::span(batch).first(1), context, false);
    const double one = now() - t0;
    session.truncate(context);
    t0 = now();
    session.forwardBatch(batch, context, true);
    const double many = now() - t0;
    session.truncate(context);
    ratios.push_back(many / one);
  }
  return median(ratios);
}

double breakEvenAcceptance(double cost_ratio, int k) {
  const auto tokens_per_step = [k](double a) {
    double sum = 0, power = 1;
    for (int i = 0; i <= k; ++i, power *= a) sum += power;  // 1 + a + ... + a^k
    return sum;
  };
  if (tokens_per_step(0) >= cost_ratio) return 0;
  if (tokens_per_step(1) < cost_ratio) return 1;  // never pays
  double lo = 0, hi = 1;
  for (int i = 0; i < 60; ++i) {
    const double mid = (lo + hi) / 2;
    (tokens_per_step(mid) < cost_ratio ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

engine::Result<SpeculativeRun> runSpeculative(std::shared_ptr<const engine::Model> model,
                                              const std::string& spec, int k, bool adaptive,
                                              const std::vector<int>& prompt, int gen_tokens,
                                              engine::KvFormat kv, int threads) {
  const int capacity = static_cast<int>(prompt.size()) + gen_tokens;
  SpeculativeRun run;
  {  // plain greedy decoding
    engine::CpuSession session(model, capacity, kv, threads);
    engine::Sampler sampler({});
    std::vector<int> history = prompt;
    auto logits = session.forwardBatch(prompt, 0);
    const double t0 = now();
    for (int i = 0; i < gen_tokens; ++i) {
      history.push_back(sampler.sample(logits, history));
      if (i + 1 < gen_tokens)
        logits = session.forward(history.back(), static_cast<int>(history.size()) - 1);
    }
    run.plain_tok_s = gen_tokens / (now() - t0);
  }
  engine::LoadOptions load;
  load.weights = model->weight_format;
  load.cache = false;
  auto draft = engine::makeDraftSource(spec, model, load, capacity, kv, threads);
  if (!draft) return engine::fail(draft.error());
  engine::CpuSession target(model, capacity, kv, threads);
  engine::Sampler sampler({});
  engine::SpeculativeConfig config;
  config.k = k;
  config.adaptive = adaptive;
  engine::SpeculativeDecoder decoder(target, *draft.value(), sampler, config);
  const double t0 = now();
  const auto generated = decoder.generate(prompt, gen_tokens, [](int) { return true; });
  if (!generated) return engine::fail("the engine failed: " + generated.error());
  const std::vector<int>& tokens = generated.value();
  const double seconds = now() - t0 - decoder.prefillMs() / 1e3;
  run.spec_tok_s = tokens.size() / seconds;
  const engine::SpeculativeStats& s = decoder.stats();
  run.acceptance_rate = s.acceptanceRate();
  run.mean_accepted_length = s.meanAcceptedLength();
  run.tokens_per_target_forward =
      s.steps.empty() ? 0 : static_cast<double>(tokens.size()) / s.steps.size();
  if (!s.steps.empty()) {
    run.draft_ms_per_step = s.draftMs() / s.steps.size();
    run.verify_ms_per_step = s.verifyMs() / s.steps.size();
  }
  return run;
}

std::vector<int> repeatingPrompt(const engine::Model& model, int tokens) {
  std::vector<int> sentence;
  if (!model.vocab.pieces.empty()) {
    engine::Tokenizer tokenizer(model.vocab);
    sentence = tokenizer.encode("The little dog ran to the park and played with the ball.", false);
  }
  if (sentence.empty())
    for (int i = 0; i < 16; ++i) sentence.push_back((i * 7919 + 5) % model.config.vocab);
  std::vector<int> prompt = {model.vocab.bos};
  while (static_cast<int>(prompt.size()) + static_cast<int>(sentence.size()) <= std::max(tokens, 2))
    prompt.insert(prompt.end(), sentence.begin(), sentence.end());
  if (prompt.size() == 1) prompt.insert(prompt.end(), sentence.begin(), sentence.end());
  return prompt;
}

}  // namespace ts::bench
