// The lab's statistics and predictions on synthetic inputs with known answers: bootstrap
// coverage, the interleaved order and its drift cancellation, KL and top-1, the cost
// model's formulas against hand-computed values, the tensor-parallel range.
#include <cmath>
#include <cstdio>
#include <random>

#include "inference/engine/lab/bootstrap.h"
#include "inference/engine/lab/cost_model.h"
#include "inference/engine/lab/interleave.h"
#include "inference/engine/lab/lab_plan.h"
#include "inference/engine/lab/ladder.h"
#include "inference/engine/lab/next_token_agreement.h"
#include "inference/engine/lab/prefill_replay.h"
#include "tests/inference/engine/check.h"

using namespace ts::engine;
using namespace ts::engine::lab;
using ts::testing::check;

namespace {

bool near(double a, double b, double tolerance) {
  return std::fabs(a - b) <= tolerance;
}

std::vector<double> normal(std::mt19937_64& rng, int n, double mean, double sigma) {
  std::normal_distribution<double> d(mean, sigma);
  std::vector<double> v(n);
  for (double& x : v) x = d(rng);
  return v;
}

void bootstrapCoverage() {
  // 100 seeded trials, 30 samples an arm, sigma 2 around 100 and 103: the true change of
  // the (symmetric) distributions' medians is +3 %.
  int covered = 0;
  for (int trial = 0; trial < 100; ++trial) {
    std::mt19937_64 rng(1000 + trial);
    const auto a = normal(rng, 30, 100, 2), b = normal(rng, 30, 103, 2);
    const ChangeInterval c = bootstrapChange(a, b, trial, 2000);
    covered += c.ci95_low_pct <= 3.0 && 3.0 <= c.ci95_high_pct;
  }
  std::printf("  bootstrap: the 95%% interval covered the true +3%% in %d of 100 trials\n",
              covered);
  check(covered >= 93, "the 95% interval covers the true difference in >= 93 of 100 trials");

  int excluded = 0;  // a 5-sigma shift: 100 -> 110 with sigma 2
  for (int trial = 0; trial < 20; ++trial) {
    std::mt19937_64 rng(5000 + trial);
    const auto a = normal(rng, 10, 100, 2), b = normal(rng, 10, 110, 2);
    excluded += bootstrapChange(a, b, trial).measurable();
  }
  check(excluded == 20,
        "a 5-sigma shift is measurable in every trial (" + std::to_string(excluded) + " of 20)");

  const std::vector<double> same = {10, 11, 12, 10.5, 11.5};
  const ChangeInterval none = bootstrapChange(same, same, 7);
  check(!none.measurable() && none.change_pct == 0 && none.ci95_low_pct == 0 &&
            none.ci95_high_pct == 0,
        "identical inputs: change 0, interval [0, 0], no measurable difference");
  check(medianOf(std::vector<double>{4, 1, 3, 2}) == 2.5 &&
            medianOf(std::vector<double>{5, 1, 3}) == 3,
        "the median of an even count is the mean of the middle two");
  const ChangeInterval empty = bootstrapChange(std::vector<double>{}, same, 1);
  check(!empty.valid && !empty.measurable(), "no baseline samples: no interval");
}

void interleaving() {
  // Arm B is 10 % faster than A; from run 10 on every run is twice as slow (a machine
  // that slowed down halfway).
  int run = 0;
  const auto measure = [&](int arm, int) -> Result<Sample> {
    const double slow = run++ >= 10 ? 2.0 : 1.0;
    return Sample{{"ms", (arm == 0 ? 100.0 : 90.0) * slow}};
  };
  auto runs = runInterleaved(2, 8, 1, measure);
  check(runs.ok(), "the interleaved runs ran");
  std::string order;
  for (const auto& name : runs->order) order += name;
  check(order == "ABABABABABABABAB", "the run order recorded is A B A B ... (" + order + ")");
  check(runs->arms[0].size() == 8 && runs->arms[1].size() == 8,
        "the warm-up round is discarded: 8 samples an arm");
  const ChangeInterval c = bootstrapChange(runs->values(0, "ms"), runs->values(1, "ms"), 3);
  check(near(c.change_pct, -10, 1e-9),
        "a slowdown halfway hits both arms: the change stays -10% (" +
            std::to_string(c.change_pct) + ")");
  // The same slowdown with the arms run one after the other would blame the second arm.
  std::vector<double> a, b;
  for (int i = 0; i < 8; ++i) a.push_back(100.0 * (i >= 5 ? 2 : 1));
  for (int i = 0; i < 8; ++i) b.push_back(90.0 * 2);
  check(!near(bootstrapChange(a, b, 3).change_pct, -10, 1),
        "run A A ... B B ..., the same slowdown would have changed the answer");

  std::atomic<bool> cancel{false};
  int calls = 0;
  auto cancelled = runInterleaved(
      2, 5, 0,
      [&](int, int) -> Result<Sample> {
        if (++calls == 3) cancel = true;
        return Sample{{"ms", 1.0}};
      },
      {}, &cancel);
  check(!cancelled.ok() && cancelled.error() == "cancelled" && calls == 3,
        "cancel stops between runs");
  auto failed = runInterleaved(2, 3, 0, [](int arm, int) -> Result<Sample> {
    if (arm == 1) return fail("the device failed");
    return Sample{{"ms", 1.0}};
  });
  check(!failed.ok() && failed.error() == "run 2 (arm B): the device failed",
        "a failed run names its arm: " + (failed.ok() ? std::string() : failed.error()));
}

void agreement() {
  const std::vector<float> p = {1.0f, 2.0f, 0.5f, -1.0f};
  check(klDivergence(p, p) == 0, "KL of a distribution against itself is 0");
  const std::vector<float> q = {1.0f, 1.0f, 0.5f, -1.0f};
  // by hand: softmax p, softmax q, sum p log(p/q)
  double zp = 0, zq = 0, kl = 0;
  for (int i = 0; i < 4; ++i) zp += std::exp(double(p[i])), zq += std::exp(double(q[i]));
  for (int i = 0; i < 4; ++i) {
    const double pi = std::exp(double(p[i])) / zp, qi = std::exp(double(q[i])) / zq;
    kl += pi * std::log(pi / qi);
  }
  check(near(klDivergence(p, q), kl, 1e-12),
        "KL matches the hand computation: " + std::to_string(klDivergence(p, q)) + " vs " +
            std::to_string(kl));
  check(argmax(p) == 1 && argmax(q) == 0, "argmax takes the first of equals");
}

void costModel() {
  ModelCost cost;
  cost.layers["Q4_0"] = {1e9, 2e9};  // 1 GB of weights, 2 G multiply-adds a token
  cost.classifier_type = "q8_0";
  cost.classifier = {0.5e9, 0.25e9};
  cost.kv_bytes_per_position = 1e5;
  cost.n_layers = 32;
  cost.dim = 4096;
  MachineRates rates;
  rates.read_gb_s = 10;
  // kernels faster than memory: memory bounds
  rates.types["Q4_0"] = {.decode_gb_s = 20, .prefill_gmacs = 50};
  // kernels slower: they bound
  rates.types["q8_0"] = {.decode_gb_s = 5, .prefill_gmacs = 100};
  // decode: 1e9 / 10e9 + 0.5e9 / 5e9 + 1e5 * 1000 / 10e9 = 0.1 + 0.1 + 0.01
  const auto step = decodeStepSeconds(cost, rates, 1000);
  check(step && near(*step, 0.21, 1e-12), "decode step = bytes / min(bandwidth, kernel rate) + KV");
  // prefill of 100 tokens: 2e9 * 100 / 50e9 + 0.25e9 / 100e9 = 4 + 0.0025 of multiply-adds,
  // plus every weight read once: (1e9 + 0.5e9) / 10e9 = 0.15
  const auto prefill = prefillSeconds(cost, rates, 100);
  check(prefill && near(*prefill, 4.1525, 1e-12),
        "prefill = multiply-adds / measured rate + weights read once / bandwidth");
  // A share measured beside the bandwidth wins over the streamed rate: Q4_0 at 0.8 x 10 GB/s
  MachineRates shared = rates;
  shared.types["Q4_0"].decode_share = 0.8;
  const auto shared_step = decodeStepSeconds(cost, shared, 1000);
  check(shared_step && near(*shared_step, 1e9 / 8e9 + 0.1 + 0.01, 1e-12),
        "decode step = bytes / (share x bandwidth) where a share was measured");
  // Prefill rates by pass size, interpolated on log(positions): 100 lies at
  // log(100/64) / log(4) = 0.3219 of the way from 64 (50) to 256 (90)
  MachineRates sized = rates;
  sized.types["Q4_0"].prefill_gmacs_at = {{16, 20}, {64, 50}, {256, 90}};
  const double at100 = 50 + std::log(100.0 / 64) / std::log(4.0) * 40;
  check(near(sized.types["Q4_0"].prefillGmacs(100), at100, 1e-9) &&
            sized.types["Q4_0"].prefillGmacs(8) == 20 &&
            sized.types["Q4_0"].prefillGmacs(64) == 50 &&
            sized.types["Q4_0"].prefillGmacs(1000) == 90,
        "prefill rate interpolated between the pass sizes measured, the nearest outside them");
  const auto sized_prefill = prefillSeconds(cost, sized, 100);
  check(sized_prefill && near(*sized_prefill, 2e9 * 100 / (at100 * 1e9) + 0.0025 + 0.15, 1e-12),
        "prefill at the pass's size");
  MachineRates missing = rates;
  missing.types.erase("q8_0");
  check(!decodeStepSeconds(cost, missing, 10) && !prefillSeconds(cost, missing, 10),
        "a type without a measured rate: no prediction");

  // speculative: acceptance 0.8 then 0.5 -> E = 1 + 0.8 + 0.4 = 2.2; cost 1.2 + 2 x 0.1
  const std::vector<double> acceptance = {0.8, 0.5};
  check(near(expectedTokensPerStep(acceptance), 2.2, 1e-12), "expected tokens per step 2.2");
  check(near(speculativeSpeedup(acceptance, 1.2, 0.1), 2.2 / 1.4, 1e-12),
        "speculative speed-up = E / (verify + K x draft)");
  check(near(predictionErrorPct(55, 62), (1.55 / 1.62 - 1) * 100, 1e-12),
        "prediction error on the ratio (1 + p) / (1 + c) - 1");

  // tensor parallel on NVLink, 2 devices at 1000 GB/s, efficiency 0.5 .. 1:
  // bytes per device (1.5e9 + 1e5 x 0) / 2 = 7.5e8; 64 all-reduces of 8192 bytes at 150 GB/s
  const auto link = interconnectNamed("nvlink");
  check(link && link->allreduce_us_low == 6 && link->allreduce_us_high == 25,
        "NVLink's published small all-reduce latency range 6 .. 25 us");
  const TensorParallelEstimate tp = estimateTensorParallel(cost, 2, *link, 1000, 0, 0.5, 1.0);
  const double message = 8192 / 150e9;
  const double slow = 7.5e8 / 500e9 + 64 * (25e-6 + message);
  const double fast = 7.5e8 / 1000e9 + 64 * (6e-6 + message);
  check(
      near(tp.tok_s_low, 1 / slow, 1e-9) && near(tp.tok_s_high, 1 / fast, 1e-9),
      "TP range by hand: " + std::to_string(tp.tok_s_low) + " .. " + std::to_string(tp.tok_s_high));
  check(near(tp.allreduce_us_per_token, 64 * (15.5 + message * 1e6), 1e-9),
        "all-reduce time per token: 2 per layer at the middle latency");
  check(tp.assumptions.find("estimate - no measurement possible on this machine") == 0,
        "the estimate says no measurement is possible here");
  const TensorParallelEstimate pcie =
      estimateTensorParallel(cost, 2, *interconnectNamed("pcie"), 1000, 0, 0.5, 1.0);
  check(pcie.tok_s_high / pcie.tok_s_low > tp.tok_s_high / tp.tok_s_low,
        "the TP range widens with the interconnect's latency (PCIe wider than NVLink)");
  const TensorParallelEstimate one = estimateTensorParallel(cost, 1, *link, 1000, 0, 0.5, 1.0);
  check(one.allreduce_us_per_token == 0, "one device: no all-reduce");
  check(!interconnectNamed("ethernet"), "an unknown interconnect is refused");
}

void levers() {
  auto weights = parseLever("weights=q8_0,q4_k");
  check(weights.ok() && weights->name == "weights" && weights->values.size() == 2 &&
            weights->values[1] == "q4_k",
        "weights=q8_0,q4_k parses into two values");
  auto bad = parseLever("speed=fast");
  check(!bad.ok() && bad.error() ==
                         "--vary: expected a lever among weights, kv, draft, threads, prefill, "
                         "found 'speed'",
        "an unknown lever names the levers: " + (bad.ok() ? "" : bad.error()));
  auto kv = parseLever("kv=int4");
  check(!kv.ok() && kv.error() == "--vary kv: expected f16, f32 or int8, found 'int4'",
        "a KV format that does not exist is named");
  check(!parseLever("threads=0").ok() && !parseLever("weights=").ok() && !parseLever("kv").ok(),
        "threads 0, no value and no '=' are refused");
}

// A variant with decode and memory changes (percent) and their intervals.
VariantResult variant(double decode, double decode_lo, double decode_hi, double memory,
                      std::optional<double> top1) {
  VariantResult v;
  auto change = [](double c, double lo, double hi) {
    ChangeInterval i;
    i.valid = true;
    i.baseline_median = 100;
    i.change_pct = c, i.ci95_low_pct = lo, i.ci95_high_pct = hi;
    return MetricChange{i, std::nullopt, std::nullopt};
  };
  v.metrics["decode_tok_s"] = change(decode, decode_lo, decode_hi);
  v.metrics["peak_rss_mb"] = change(memory, memory, memory);
  if (top1) {
    v.accuracy = NextTokenAgreement{};
    v.accuracy->positions = 100;
    v.accuracy->top1_agreed = static_cast<int>(*top1 * 100);
  }
  return v;
}

void ladderRules() {
  std::string why;
  check(stepImproved("weights", variant(62, 58, 66, -40, 0.97), 0.95, why),
        "weights: decode +62% [58, 66] at 97% top-1 is kept");
  check(!stepImproved("weights", variant(62, 58, 66, -40, 0.90), 0.95, why) &&
            why == "top-1 agreement 90.0% is below the limit 95.0%",
        "weights: below the accuracy limit is not kept: " + why);
  check(!stepImproved("weights", variant(3, -1, 7, -40, 0.99), 0.95, why) &&
            why == "no measurable decode difference",
        "weights: an interval containing 0 is not kept: " + why);
  check(stepImproved("kv", variant(-1, -3, 2, -10, 0.99), 0.95, why),
        "kv: memory -10% with decode not measurably slower is kept");
  check(!stepImproved("kv", variant(-8, -10, -6, -10, 0.99), 0.95, why) &&
            why == "decode got slower (-8.0%)",
        "kv: a measurably slower decode is not kept: " + why);
  VariantResult draft = variant(40, 30, 50, 5, std::nullopt);
  draft.output_identical = false;
  check(!stepImproved("draft", draft, 0.95, why) &&
            why == "the greedy output differs from the baseline's",
        "draft: a different greedy output is never kept");
}

void prefillReplay() {
  // 1 stream (1-token prompts, 50 tokens each), one 100-token prompt at 0.3 s; a decoding
  // pass 10 ms, a prompt token 1 ms, a further sequence free; 2 cores, 1 thread each.
  const MixedLoad load{1, 1, 50, 100, 4, 0.6, 1};  // arrives at 0.3 s, mid-request
  const StepCosts costs{0.010, 0, 0.001, 2, 1, 1};
  SchedulerOptions whole, chunked, separate;
  whole.prefill_chunk = 0;
  chunked.prefill_chunk = 16;
  separate.separate_prefill_tokens = 64;
  const Sample w = replayMixedLoad(load, whole, costs), c = replayMixedLoad(load, chunked, costs),
               s = replayMixedLoad(load, separate, costs);
  std::printf(
      "  replay: whole TTFT %.0f TPOT p99 %.2f ITL %.1f | chunk 16 TTFT %.0f TPOT p99 %.2f ITL "
      "%.1f | "
      "separate TTFT %.0f TPOT p99 %.2f (ms)\n",
      w.at("ttft_p99_long_ms"), w.at("tpot_p99_ms"), w.at("itl_p99_ms"), c.at("ttft_p99_long_ms"),
      c.at("tpot_p99_ms"), c.at("itl_p99_ms"), s.at("ttft_p99_long_ms"), s.at("tpot_p99_ms"));
  // whole: the prompt waits at most one 10 ms step, then one 10 + 100 ms pass
  check(w.at("ttft_p99_long_ms") >= 110 && w.at("ttft_p99_long_ms") <= 120,
        "whole prompts: TTFT = the wait for a step boundary + one 110 ms pass");
  check(c.at("ttft_p99_long_ms") > w.at("ttft_p99_long_ms"),
        "chunks of 16 delay the long prompt (7 passes of a decode step each)");
  check(w.at("itl_p99_ms") >= 110 - 1e-6 && c.at("itl_p99_ms") <= 26 + 1e-6,
        "chunks of 16 spare the stream's gaps the whole prompt's 110 ms pass (at most 26 ms)");
  check(std::fabs(c.at("tpot_p99_ms") - w.at("tpot_p99_ms")) < 0.5,
        "a request's mean TPOT pays for the prompt either way (the same tokens run)");
  // separate: the worker computes 99 tokens in 99 ms beside the steps (no crowding on 2
  // cores), the hand-back waits for a step boundary, then one 10 + 1 ms pass
  check(s.at("ttft_p99_long_ms") >= 110 && s.at("ttft_p99_long_ms") <= 131,
        "separate: TTFT = 99 ms in the worker + at most two steps");
  check(s.at("tpot_p99_ms") < c.at("tpot_p99_ms") && s.at("tpot_p99_ms") < 10.5,
        "separate: the stream's TPOT stays near the decode step");
  StepCosts crowded = costs;
  crowded.cores = 1;
  check(replayMixedLoad(load, separate, crowded).at("tpot_p99_ms") > s.at("tpot_p99_ms"),
        "on one core the worker slows the steps it runs beside");
  // two long prompts 20 ms apart: the second waits for the worker (never in the steps), so
  // its TTFT holds most of the first's 99 ms and its own, and the stream's gaps stay one
  // step each
  const MixedLoad two{1, 1, 50, 100, 4, 0.02, 2};  // arrive at 0.01 and 0.03 s
  const Sample t = replayMixedLoad(two, separate, costs);
  check(t.at("ttft_p99_long_ms") >= 2 * 99 - 20 && t.at("itl_p99_ms") <= 11 + 1e-6,
        "separate: a long prompt waits for the busy worker, out of the steps (TTFT p99 " +
            std::to_string(t.at("ttft_p99_long_ms")) + " ms, ITL p99 " +
            std::to_string(t.at("itl_p99_ms")) + " ms)");
  // measured crowding wins over the thread counts: steps twice as long beside the worker,
  // 2 ms per worker token -> TTFT = 198 ms in the worker + at most two 20 ms steps + a pass
  StepCosts measured = costs;
  measured.step_slowdown = 2;
  measured.worker_token_s = 0.002;
  const Sample m = replayMixedLoad(load, separate, measured);
  check(m.at("ttft_p99_long_ms") >= 198 + 11 && m.at("ttft_p99_long_ms") <= 198 + 51,
        "separate: the measured worker rate sets the TTFT (" +
            std::to_string(m.at("ttft_p99_long_ms")) + " ms)");
  // about ten 20 ms steps beside the worker instead of 10 ms: +100 ms over the stream
  // request's 49 gaps, +2 ms on its TPOT
  check(m.at("tpot_p99_ms") > s.at("tpot_p99_ms") + 1.5 &&
            m.at("tpot_p99_ms") < s.at("tpot_p99_ms") + 3,
        "separate: the measured step slowdown applies while the worker computes (TPOT p99 " +
            std::to_string(m.at("tpot_p99_ms")) + " ms)");
}

}  // namespace

int main() {
  bootstrapCoverage();
  interleaving();
  agreement();
  costModel();
  levers();
  ladderRules();
  prefillReplay();
  return ts::testing::finish();
}
