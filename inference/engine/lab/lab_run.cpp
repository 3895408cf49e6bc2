#include "inference/engine/lab/lab_run.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "inference/engine/core/edge.h"
#include "inference/engine/core/thread_pool.h"
#include "inference/engine/decode/generator.h"
#include "inference/engine/lab/crowding_probe.h"
#include "inference/engine/lab/interleave.h"
#include "inference/engine/lab/lab_arms.h"
#include "inference/engine/lab/machine_probe.h"
#include "inference/engine/lab/mixed_load.h"
#include "inference/engine/lab/predictions.h"
#include "inference/engine/lab/prefill_replay.h"

namespace ts::engine::lab {

bool higherIsBetter(const std::string& metric) {
  return metric == "decode_tok_s" || metric == "prefill_tok_s";
}

namespace {

int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The prompt every run sends: the same ids for every arm (a fixed pattern over the
// vocabulary past its special tokens, as engine-bench's).
std::vector<int> labPrompt(const Model& model, int tokens) {
  std::vector<int> out(tokens);
  const int vocab = model.config.vocab;
  for (int i = 0; i < tokens; ++i) out[i] = 3 + (i * 7919 + 1) % std::max(1, vocab - 3);
  return out;
}

// What one run of an arm produced.
struct RunOutcome {
  Sample sample;
  std::vector<int> ids;
  std::optional<SpeculativeStats> speculative;
};

// One generation of the arm, measured as DESIGN.md defines the metrics.
Result<RunOutcome> runOnce(Arm& arm, const std::vector<int>& prompt, int gen_tokens) {
  Vocabulary vocab = arm.model->vocab;
  vocab.eos = -1;  // every run its full length: equal lengths across arms
  const Tokenizer tokenizer(vocab);
  GenerateOptions options;
  options.max_tokens = gen_tokens;
  options.sampling.temperature = 0;
  options.draft = arm.draft.get();
  options.speculative.k = std::max(1, arm.draft_k);
  std::vector<int64_t> at;
  RunOutcome out;
  const int64_t start = nowNs();
  auto outcome = generate(*arm.session, tokenizer, prompt, options, [&](const GeneratedToken& t) {
    if (t.id >= 0) {
      at.push_back(nowNs());
      out.ids.push_back(t.id);
    }
    return true;
  });
  if (!outcome) return fail(outcome.error());
  if (at.size() < 2) return fail("a run produced " + std::to_string(at.size()) + " token(s)");
  const double ttft = (at.front() - start) / 1e6, span = (at.back() - at.front()) / 1e6;
  std::vector<double> gaps;
  for (size_t i = 1; i < at.size(); ++i) gaps.push_back((at[i] - at[i - 1]) / 1e6);
  const double n = static_cast<double>(at.size());
  out.sample = {{"ttft_ms", ttft},
                {"tpot_ms", span / (n - 1)},
                {"decode_tok_s", (n - 1) / (span / 1e3)},
                {"itl_p50_ms", percentileOf(gaps, 50)},
                {"itl_p99_ms", percentileOf(gaps, 99)},
                {"peak_rss_mb", arm.resident_mb}};
  if (outcome->prefill_ms > 0)
    out.sample["prefill_tok_s"] = prompt.size() / (outcome->prefill_ms / 1e3);
  out.speculative = outcome->speculative;
  return out;
}

// The prefill lever: the mixed load replayed (prefill_replay.h) under each arm's policy,
// with the step costs the baseline's single-stream priming run measured, and for separate
// prefill what the worker and the steps cost each other, measured on the arm's session.
Predicted predictPrefillPolicy(const MixedLoad& load, Arm& base, Arm& arm,
                               const Sample& base_single) {
  const double prefill_rate =
      base_single.count("prefill_tok_s") ? base_single.at("prefill_tok_s") : 0;
  if (prefill_rate <= 0) return {};
  StepCosts costs;
  costs.decode_step_s = base_single.at("tpot_ms") / 1e3;
  costs.per_prompt_token_s = 1 / prefill_rate;
  costs.per_sequence_s = costs.per_prompt_token_s;
  costs.cores = ThreadPool::defaultThreads();
  const auto replay = [&](Arm& a) {
    StepCosts c = costs;
    c.step_threads = a.threads;
    c.worker_threads = a.scheduling.separate_prefill_threads > 0
                           ? a.scheduling.separate_prefill_threads
                           : std::max(1, c.cores / 2);
    if (a.scheduling.separate_prefill_tokens > 0 && a.session)
      if (const auto crowding = measureCrowding(
              *a.session, c.worker_threads, std::min(load.long_tokens, kSeparatePrefillChunk))) {
        c.step_slowdown = crowding->stepSlowdown();
        c.worker_token_s = crowding->worker_token_s;
      }
    return replayMixedLoad(load, a.scheduling, c);
  };
  const Sample b = replay(base), v = replay(arm);
  Predicted out;
  for (const auto& [metric, value] : b)
    if (value > 0 && v.count(metric)) out[metric] = changePct(value, v.at(metric));
  return out;
}

// The metrics the runs measured: labMetrics' in their order, then any others (the mixed
// load's percentiles).
std::vector<std::string> metricsOf(const InterleavedRuns& runs) {
  std::vector<std::string> out = labMetrics(), extra;
  for (const auto& arm : runs.arms)
    for (const Sample& sample : arm)
      for (const auto& [name, value] : sample)
        if (std::find(out.begin(), out.end(), name) == out.end() &&
            std::find(extra.begin(), extra.end(), name) == extra.end())
          extra.push_back(name);
  std::erase_if(out, [&](const std::string& name) { return runs.values(0, name).empty(); });
  out.insert(out.end(), extra.begin(), extra.end());
  return out;
}

// The machine's rates at each thread count the arms use (measured once, then cached; the
// types of every arm's model).
Result<std::map<int, MachineRates>> ratesOf(const std::vector<Arm>& arms, bool remeasure,
                                            const LabProgress& progress) {
  std::map<int, MachineRates> rates;
  for (const Arm& arm : arms) {
    if (rates.count(arm.threads) && arm.model == arms.front().model) continue;
    auto r = machineRatesFor(*arm.model, arm.threads, remeasure && rates.empty(),
                             [&](const std::string& what) {
                               if (progress) progress("measuring this machine: " + what, 0.25);
                             });
    if (!r) return fail(r.error());
    MachineRates& slot = rates[arm.threads];
    for (auto& [type, t] : r->types) slot.types[type] = t;
    slot.read_gb_s = r->read_gb_s;
    slot.threads = r->threads;
    slot.kernels = r->kernels;
  }
  return rates;
}

// Every metric's change from arm 0 to arm `a`, with its interval.
std::map<std::string, MetricChange> measuredChanges(const InterleavedRuns& runs, int a,
                                                    uint64_t seed) {
  std::map<std::string, MetricChange> out;
  for (const std::string& metric : metricsOf(runs))
    out[metric].measured = bootstrapChange(runs.values(0, metric), runs.values(a, metric), seed);
  return out;
}

void addPredictions(VariantResult& v, const Predicted& predicted) {
  for (const auto& [metric, pct] : predicted) {
    MetricChange& m = v.metrics[metric];
    m.predicted_pct = pct;
    if (m.measured.valid) m.error_pct = predictionErrorPct(pct, m.measured.change_pct);
  }
}

// A draft variant: its acceptance (all runs' steps together), whether its greedy output is
// the baseline's, and the speculative prediction (timing the verify pass on its session).
Result<Predicted> draftOutcome(Arm& arm, const std::vector<SpeculativeStats>& runs,
                               double base_step_s, std::span<const int> prompt, bool identical,
                               VariantResult& v) {
  SpeculativeStats all;
  for (const auto& st : runs) all.steps.insert(all.steps.end(), st.steps.begin(), st.steps.end());
  v.output_identical = identical;
  v.acceptance_rate = all.acceptanceRate();
  v.acceptance_by_position = acceptanceByPosition(all, arm.draft_k);
  return caughtAtEdge<Predicted>(
      [&]() -> Result<Predicted> { return predictSpeculative(arm, all, base_step_s, prompt); },
      "for the verify cost");
}

// The baseline's measured step and prefill times and memory: the predictions are ratios of
// modelled times, scaled to these.
BaselineMeasured baselineOf(const InterleavedRuns& runs, const Arm& base, int prompt_tokens) {
  BaselineMeasured measured;
  measured.step_s = medianOf(runs.values(0, "tpot_ms")) / 1e3;
  const double prefill_rate = medianOf(runs.values(0, "prefill_tok_s"));
  measured.prefill_s = prefill_rate > 0 ? prompt_tokens / prefill_rate : 0;
  measured.resident_mb = base.resident_mb;
  return measured;
}

// Top-1 agreement and KL of the variant's next-token distributions against the baseline's,
// teacher-forced on the baseline's greedy continuation of `prompt`.
Result<NextTokenAgreement> accuracyOf(Arm& base, Arm& arm, const std::vector<int>& prompt,
                                      const LabSettings& s) {
  auto agreement = teacherForcedAgreement(*base.session, *arm.session, prompt,
                                          std::min(s.accuracy_positions, s.gen_tokens + 1));
  if (!agreement) return fail("the accuracy check of " + arm.value + ": " + agreement.error());
  return agreement;
}

}  // namespace

Result<LabReport> runLab(const LabSettings& s, const Lever& lever, const LabProgress& progress,
                         const std::atomic<bool>* cancel) {
  if (s.repeat < 2) return fail("--repeat: the lab needs at least 2 runs per arm for an interval");
  LabReport report;
  report.settings = s;
  std::vector<int> prompt;
  std::vector<std::vector<int>> first_ids;  // per arm, its priming run's tokens
  std::vector<Sample> first_samples;        // and its figures (the prefill replay's costs)
  std::vector<std::vector<SpeculativeStats>> spec_stats;
  const auto prime = [&](Arm& arm) -> Result<bool> {
    if (prompt.empty()) prompt = labPrompt(*arm.model, s.prompt_tokens);
    auto run = runOnce(arm, prompt, s.gen_tokens);
    if (!run) return fail(run.error());
    first_ids.push_back(run->ids);
    first_samples.push_back(run->sample);
    return true;
  };
  auto made = makeArms(s, lever, prime, progress, cancel);
  if (!made) return fail(made.error());
  std::vector<Arm>& arms = made.value();
  spec_stats.resize(arms.size());
  Arm& base = arms.front();
  report.model_description = base.model->config.describe();
  report.baseline = base.describe();
  auto measured_rates = ratesOf(arms, s.remeasure, progress);
  if (!measured_rates) return fail(measured_rates.error());
  std::map<int, MachineRates>& rates = measured_rates.value();
  report.rates = rates[base.threads];
  // The interleaved runs.
  const auto measure = [&](int arm, int round) -> Result<Sample> {
    if (lever.name == "prefill")  // the mixed load on a scheduler with the arm's policy
      return runMixedEpisode(arms[arm].model, arms[arm].kv, arms[arm].threads, arms[arm].scheduling,
                             s.mixed, round * static_cast<int>(arms.size()) + arm,
                             arms[arm].resident_mb);
    auto run = runOnce(arms[arm], prompt, s.gen_tokens);
    if (!run) return fail(run.error());
    if (run->speculative) spec_stats[arm].push_back(*run->speculative);
    return run->sample;
  };
  auto runs = runInterleaved(
      static_cast<int>(arms.size()), s.repeat, s.warmup, measure,
      [&](int done, int total) {
        if (progress)
          progress("run " + std::to_string(done) + " of " + std::to_string(total),
                   0.3 + 0.6 * done / total);
      },
      cancel);
  if (!runs) return fail(runs.error());
  report.order = runs->order;
  const int context = s.prompt_tokens + s.gen_tokens / 2;
  const ModelCost base_cost = modelCost(*base.model, base.kv);
  const BaselineMeasured measured = baselineOf(runs.value(), base, s.prompt_tokens);
  for (size_t a = 1; a < arms.size(); ++a) {
    if (cancel && cancel->load()) return fail("cancelled");
    Arm& arm = arms[a];
    VariantResult v;
    v.lever = lever.name;
    v.value = arm.value;
    v.arm = arm.describe();
    v.metrics = measuredChanges(runs.value(), static_cast<int>(a), s.seed + a);
    if (lever.name == "draft") {
      auto predicted = draftOutcome(arm, spec_stats[a], measured.step_s, prompt,
                                    first_ids[a] == first_ids[0], v);
      if (!predicted) return fail(predicted.error());
      addPredictions(v, predicted.value());
    } else if (lever.name == "prefill") {
      addPredictions(v, predictPrefillPolicy(s.mixed, base, arm, first_samples.front()));
    } else {
      addPredictions(v,
                     predictFromCost(base_cost, modelCost(*arm.model, arm.kv), rates[base.threads],
                                     rates[arm.threads], context, s.prompt_tokens, measured));
    }
    if (lever.name == "weights" || lever.name == "kv") {
      if (progress) progress("accuracy of " + arm.value, 0.9 + 0.1 * a / arms.size());
      auto agreement = accuracyOf(base, arm, prompt, s);
      if (!agreement) return fail(agreement.error());
      v.accuracy = agreement.value();
    }
    report.variants.push_back(std::move(v));
  }
  if (progress) progress("done", 1);
  return report;
}

}  // namespace ts::engine::lab
