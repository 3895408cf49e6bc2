// engine-bench (--model PATH | --random SHAPE [--layers N]) [--backend cpu|cuda] [--threads N]
//              [--weights auto|f32|f16|int8|int4|q8_0] [--kv f16|f32|int8] [--prompt-tokens N]
//              (--backend cuda --random also q4_k|q5_k|q6_k|bf16|gguf-q4_0|gguf-q8_0: rows
//              in that GGUF type, read as stored on the device)
//              [--gen-tokens N] [--repeat R] [--draft SOURCE [--draft-k K|auto]]
//              [--turns N [--turn-tokens T]] [--long-prompt N] [--json]
//              cuda only: [--device N] [--contexts 128,2048] [--prefill 512,2048] [--no-graph]
// With --backend cuda see cuda_bench.h (random shapes are filled on the device).
// Prefill and decode speed of the CPU engine (medians over R runs) and the machine's
// memory-read bandwidth measured in the same run (after each decode run), with decode's
// effective bandwidth (weight bytes read per token x tokens/s) as a share of it. Also the
// cost of a speculative verify pass (5 positions) relative to one decode step with the
// break-even acceptance rate it implies, and with --draft a speculative run on a prompt
// that repeats a sentence: acceptance, tokens per target forward, speedup over plain (both
// decode only: a model draft's prompt runs in the prefill, as the target's does) and each
// step's draft and verify milliseconds. A long
// prefill (--long-prompt, 512 positions unless 0) against the machine's int8 multiply peak
// measured in the same process (int8_peak.h): pp512_tok_s, int8_peak_gops and
// prefill_peak_share (the matrices' multiply-adds x 2 per second / that peak). Decode's
// compute ceiling (decode_ceiling.h: its kernels on weights in cache) says whether memory or
// the kernels bound it. No Qt: builds engine-only.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "inference/engine/cpu/cpu_forward.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/lab/machine_probe.h"
#include "inference/engine/model/random_model.h"
#include "tests/bench/engine/bench_clock.h"
#include "tests/bench/engine/conversation_bench.h"
#include "tests/bench/engine/cuda_bench.h"
#include "tests/bench/engine/decode_ceiling.h"
#include "tests/bench/engine/int8_peak.h"
#include "tests/bench/engine/speculative_bench.h"
#include "tests/support/resident_memory.h"

using namespace ts::engine;
using ts::bench::median;

using ts::bench::now;
using ts::bench::number;
using ts::bench::printJson;
using ts::testing::statusMiB;

namespace {

// int8 / f32 operations of one pass over `tokens` positions: 2 per weight of every layer
// matrix per position, and the classifier's for the last position only (what a prefill
// computes). Attention's products are left out: a few percent at 512 positions.
double passOps(const Model& m, int tokens) {
  double weights = 0;
  for (const LayerWeights& l : m.layers)
    for (const QuantMatrix* w : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down})
      weights += static_cast<double>(w->rows()) * w->cols();
  return 2 * (weights * tokens + static_cast<double>(m.classifier.rows()) * m.classifier.cols());
}

// Everything main does; sessions (the decode, prefill and ceiling measurements drive them
// directly, below the engine's edge) throw when their device or memory fails.
int runBench(int argc, char** argv) {
  std::string model_path, shape, weights = "auto", kv = "f16", backend = "cpu", draft,
                                 draft_k = "4";
  int layers = 0, threads = ThreadPool::defaultThreads(), prompt_tokens = 128, gen_tokens = 32,
      repeat = 3, turns = 0, turn_tokens = 150, long_prompt = 512;
  bool json = false;
  ts::bench::CudaBenchArgs cuda;
  const auto list = [](const std::string& text) {  // "128,2048"
    std::vector<int> out;
    for (size_t at = 0; at < text.size();) {
      const size_t comma = std::min(text.find(',', at), text.size());
      out.push_back(std::max(1, std::atoi(text.substr(at, comma - at).c_str())));
      at = comma + 1;
    }
    return out;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&](const char* name) -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "engine-bench: %s expects a value\n", name);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--model")
      model_path = value("--model");
    else if (a == "--random")
      shape = value("--random");
    else if (a == "--layers")
      layers = std::atoi(value("--layers").c_str());
    else if (a == "--backend")
      backend = value("--backend");
    else if (a == "--threads")
      threads = std::max(1, std::atoi(value("--threads").c_str()));
    else if (a == "--weights")
      weights = value("--weights");
    else if (a == "--kv")
      kv = value("--kv");
    else if (a == "--prompt-tokens")
      prompt_tokens = std::max(1, std::atoi(value("--prompt-tokens").c_str()));
    else if (a == "--gen-tokens")
      gen_tokens = std::max(1, std::atoi(value("--gen-tokens").c_str()));
    else if (a == "--repeat")
      repeat = std::max(1, std::atoi(value("--repeat").c_str()));
    else if (a == "--draft")
      draft = value("--draft");
    else if (a == "--draft-k")
      draft_k = value("--draft-k");
    else if (a == "--json")
      json = true;
    else if (a == "--long-prompt")
      long_prompt = std::max(0, std::atoi(value("--long-prompt").c_str()));
    else if (a == "--turns")
      turns = std::max(0, std::atoi(value("--turns").c_str()));
    else if (a == "--turn-tokens")
      turn_tokens = std::max(1, std::atoi(value("--turn-tokens").c_str()));
    else if (a == "--device")
      cuda.device = std::atoi(value("--device").c_str());
    else if (a == "--contexts")
      cuda.contexts = list(value("--contexts"));
    else if (a == "--prefill")
      cuda.prefills = list(value("--prefill"));
    else if (a == "--no-graph")
      cuda.graph = false;
    else {
      std::fprintf(stderr, "engine-bench: unknown option '%s'\n", a.c_str());
      return 2;
    }
  }
  if (model_path.empty() == shape.empty()) {
    std::fprintf(stderr, "engine-bench: expected exactly one of --model PATH or --random SHAPE\n");
    return 2;
  }
  if (backend == "cuda") {
    cuda.model_path = model_path, cuda.shape = shape, cuda.layers = layers;
    cuda.weights = weights, cuda.kv = kv, cuda.gen_tokens = gen_tokens, cuda.repeat = repeat;
    cuda.json = json;
    if (cuda.contexts.empty() || cuda.prefills.empty()) {
      std::fprintf(stderr,
                   "engine-bench: --contexts and --prefill expect numbers, e.g. 128,2048\n");
      return 2;
    }
    return ts::bench::runCudaBench(cuda);
  }
  if (backend != "cpu") {
    std::fprintf(stderr, "engine-bench: --backend: expected 'cpu' or 'cuda', found '%s'\n",
                 backend.c_str());
    return 2;
  }
  auto format = parseWeightFormat(weights);
  auto kv_format = parseKvFormat(kv);
  if (!format || !kv_format) {
    std::fprintf(stderr, "engine-bench: %s\n",
                 (!format ? format.error() : kv_format.error()).c_str());
    return 2;
  }
  std::shared_ptr<Model> model;
  const double load_start = now();
  if (!shape.empty()) {
    auto config = shapeConfig(shape, layers);
    if (!config) {
      std::fprintf(stderr, "engine-bench: %s\n", config.error().c_str());
      return 2;
    }
    model = randomModel(config.value(), format.value(), 1234);
  } else {
    LoadOptions options;
    options.weights = format.value();
    options.cache = false;  // measure the kernels; never write beside the model
    auto loaded = loadModel(model_path, options);
    if (!loaded) {
      std::fprintf(stderr, "engine-bench: %s\n", loaded.error().c_str());
      return 1;
    }
    model = loaded.value();
  }
  const double load_ms = (now() - load_start) * 1e3;
  const double rss_loaded_mb = statusMiB("VmRSS:");
  // file pages mapped 2 MiB at a time (the weights' stream walks 512x fewer page-table
  // entries than through 4 KiB pages; MappedFile asks for them)
  const double huge_file_mb = ts::testing::procMiB("/proc/self/smaps_rollup", "FilePmdMapped:");
  const ModelConfig& c = model->config;
  const int capacity =
      std::min(prompt_tokens + gen_tokens, std::max(c.context, prompt_tokens + gen_tokens));
  const double bytes_per_token = static_cast<double>(model->weight_bytes());
  // GB/s of summing 1 GiB, right after each decode run: this machine's bandwidth drifts by
  // tens of percent within a minute, so decode is compared with that of the same moment.
  ts::engine::lab::ReadBandwidthProbe probe(threads, 1ull << 30);
  std::vector<double> pp, tg, bandwidth, share;
  for (int r = 0; r < repeat; ++r) {
    CpuSession session(model, capacity, kv_format.value(), threads);
    int pos = 0;
    double t0 = now();
    std::vector<int> prompt(prompt_tokens);
    for (int i = 0; i < prompt_tokens; ++i) prompt[i] = (i * 7919 + 1) % c.vocab;
    std::span<const float> logits = session.forwardBatch(prompt, 0);  // batched prefill
    pos = prompt_tokens;
    pp.push_back(prompt_tokens / (now() - t0));
    t0 = now();
    for (int i = 0; i < gen_tokens; ++i) {
      const int next =
          static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin());
      logits = session.forward(next, pos++);
    }
    tg.push_back(gen_tokens / (now() - t0));
    bandwidth.push_back(probe.measure());
    share.push_back(bytes_per_token * tg.back() / 1e9 / bandwidth.back());
  }
  const double rss_peak_mb = statusMiB("VmHWM:");  // model + KV cache + activations
  const double kv_mb =
      static_cast<double>(KvCache(c.n_layers, capacity, c.n_kv_heads, c.head_dim, kv_format.value())
                              .capacityBytes()) /
      (1 << 20);
  const double pp_rate = median(pp), tg_rate = median(tg), bw = median(bandwidth);
  const double effective = bytes_per_token * tg_rate / 1e9;
  const double decode_share = median(share);  // of the ratios of each run
  // What bounds decode: the memory, or the kernels when they consume weights more slowly
  // than the memory delivers them (few threads, fast memory). The share of that bound is
  // the median over the runs of effective / min(read, compute).
  const double compute = ts::bench::measureDecodeCompute(*model, threads);
  std::vector<double> bound_share;
  for (size_t r = 0; r < tg.size(); ++r)
    bound_share.push_back(bytes_per_token * tg[r] / 1e9 / std::min(bandwidth[r], compute));
  const bool compute_bound = compute < bw;
  // Speculative verification: 5 positions (K = 4) in one pass vs one decode step.
  const double verify_ratio = ts::bench::verifyCostRatio(model, prompt_tokens, 5, kv_format.value(),
                                                         threads, std::max(3, repeat));
  const double break_even = ts::bench::breakEvenAcceptance(verify_ratio, 4);
  // A long prefill against the int8 multiply peak measured here and now.
  double long_rate = 0, long_gops = 0, peak_share = 0;
  ts::bench::Int8Peak peak;
  if (long_prompt > 0) {
    std::vector<double> rates;
    std::vector<int> prompt(long_prompt);
    for (int i = 0; i < long_prompt; ++i) prompt[i] = (i * 7919 + 1) % c.vocab;
    for (int r = 0; r < repeat; ++r) {
      CpuSession session(model, long_prompt, kv_format.value(), threads);
      const double t0 = now();
      session.forwardBatch(prompt, 0);
      rates.push_back(long_prompt / (now() - t0));
    }
    long_rate = median(rates);
    peak = ts::bench::measureInt8Peak(threads, activeKernels().name);
    long_gops = passOps(*model, long_prompt) / long_prompt * long_rate / 1e9;
    peak_share = long_gops / peak.gops;
  }
  std::vector<std::pair<std::string, std::string>> fields = {
      {"model", "\"" + c.describe() + "\""},
      {"weights", "\"" + model->weightSummary() + "\""},
      {"weights_requested", "\"" + weights + "\""},
      {"load_ms", number(load_ms)},
      {"rss_mb", number(rss_loaded_mb)},
      {"rss_peak_mb", number(rss_peak_mb)},
      {"file_2mib_pages_mb", number(huge_file_mb)},
      {"kv_mb", number(kv_mb)},
      {"kv", "\"" + kv + "\""},
      {"threads", std::to_string(threads)},
      {"prompt_tokens", std::to_string(prompt_tokens)},
      {"gen_tokens", std::to_string(gen_tokens)},
      {"repeat", std::to_string(repeat)},
      {"pp_tok_s", number(pp_rate)},
      {"tg_tok_s", number(tg_rate)},
      {"weight_bytes", number(bytes_per_token, 0)},
      {"read_bandwidth_gb_s", number(bw)},
      {"decode_effective_gb_s", number(effective)},
      {"decode_bandwidth_share", number(decode_share, 4)},
      {"decode_compute_gb_s", number(compute)},
      {"decode_bound", compute_bound ? "\"compute\"" : "\"memory\""},
      {"decode_bound_share", number(median(bound_share), 4)},
      {"kernels", "\"" + std::string(activeKernels().name) + "\""},
      {"verify5_over_decode", number(verify_ratio, 4)},
      {"break_even_acceptance_k4", number(break_even, 4)}};
  if (long_prompt > 0)
    fields.insert(fields.end(),
                  {{"pp" + std::to_string(long_prompt) + "_tok_s", number(long_rate)},
                   {"int8_peak_gops", number(peak.gops, 1)},
                   {"int8_peak_instruction", "\"" + std::string(peak.instruction) + "\""},
                   {"prefill_peak_share", number(peak_share, 4)}});
  std::string turns_line;
  if (turns > 0) {
    const auto turned = ts::bench::runConversation(model, turns, turn_tokens, gen_tokens,
                                                   kv_format.value(), threads);
    if (!turned) {
      std::fprintf(stderr, "engine-bench: --turns: the engine failed: %s\n",
                   turned.error().c_str());
      return 1;
    }
    const std::vector<ts::bench::ConversationTurn>& conversation = turned.value();
    std::string ttft = "[", cached = "[";
    turns_line = "  conversation (" + std::to_string(turn_tokens) + " new tokens a turn):";
    for (size_t t = 0; t < conversation.size(); ++t) {
      ttft += (t ? ", " : "") + number(conversation[t].ttft_ms);
      cached += (t ? ", " : "") + std::to_string(conversation[t].cached_tokens);
      turns_line += " turn " + std::to_string(t + 1) + " TTFT " +
                    number(conversation[t].ttft_ms, 1) + " ms (" +
                    std::to_string(conversation[t].prompt_tokens - conversation[t].cached_tokens) +
                    " prefilled);";
    }
    const double ratio = conversation.back().ttft_ms / conversation.front().ttft_ms;
    turns_line += " last / first " + number(ratio, 2) + "\n";
    fields.insert(fields.end(), {{"turn_ttft_ms", ttft + "]"},
                                 {"turn_cached_tokens", cached + "]"},
                                 {"last_turn_ttft_over_first", number(ratio, 4)}});
  }
  std::string spec_line;
  if (!draft.empty()) {
    const bool adaptive = draft_k == "auto";
    const int k = adaptive ? 4 : std::max(1, std::atoi(draft_k.c_str()));
    const std::vector<int> prompt = ts::bench::repeatingPrompt(*model, prompt_tokens);
    std::vector<double> speedup, spec_rate, plain_rate, acceptance, accepted_length, per_forward,
        draft_ms, verify_ms;
    for (int r = 0; r < repeat; ++r) {
      const auto ran = ts::bench::runSpeculative(model, draft, k, adaptive, prompt, gen_tokens,
                                                 kv_format.value(), threads);
      if (!ran) {
        std::fprintf(stderr, "engine-bench: --draft: %s\n", ran.error().c_str());
        return 2;
      }
      const ts::bench::SpeculativeRun& run = ran.value();
      speedup.push_back(run.spec_tok_s / run.plain_tok_s);
      spec_rate.push_back(run.spec_tok_s);
      plain_rate.push_back(run.plain_tok_s);
      draft_ms.push_back(run.draft_ms_per_step);
      verify_ms.push_back(run.verify_ms_per_step);
      acceptance.push_back(run.acceptance_rate);
      accepted_length.push_back(run.mean_accepted_length);
      per_forward.push_back(run.tokens_per_target_forward);
    }
    fields.insert(fields.end(), {{"draft", "\"" + draft + "\""},
                                 {"draft_k", "\"" + draft_k + "\""},
                                 {"spec_prompt_tokens", std::to_string(prompt.size())},
                                 {"spec_tok_s", number(median(spec_rate))},
                                 {"spec_speedup", number(median(speedup), 4)},
                                 {"acceptance_rate", number(median(acceptance), 4)},
                                 {"mean_accepted_length", number(median(accepted_length), 4)},
                                 {"tokens_per_target_forward", number(median(per_forward), 4)},
                                 {"spec_plain_tok_s", number(median(plain_rate))},
                                 {"spec_draft_ms_per_step", number(median(draft_ms))},
                                 {"spec_verify_ms_per_step", number(median(verify_ms))}});
    char line[400];
    std::snprintf(line, sizeof line,
                  "  speculative (%s, K %s, greedy, %zu-token repeating prompt): %.2f tok/s = "
                  "%.2fx plain; acceptance %.3f, %.2f accepted per step, %.2f tokens per target "
                  "forward\n",
                  draft.c_str(), draft_k.c_str(), prompt.size(), median(spec_rate), median(speedup),
                  median(acceptance), median(accepted_length), median(per_forward));
    spec_line = line;
  }
  if (json) {
    printJson(fields);
  } else {
    std::printf("%s\nweights %s, KV %s, %d thread(s), %s kernels, %d runs (medians)\n",
                c.describe().c_str(), weights.c_str(), kv.c_str(), threads, activeKernels().name,
                repeat);
    std::printf(
        "  load %.0f ms (%s); resident %.0f MiB after loading, peak %.0f MiB (KV cache %.0f "
        "MiB); %.0f MiB of the file mapped in 2 MiB pages\n",
        load_ms, model->weightSummary().c_str(), rss_loaded_mb, rss_peak_mb, kv_mb, huge_file_mb);
    std::printf("  prefill  pp%-5d %10.2f tok/s (batched)\n", prompt_tokens, pp_rate);
    std::printf("  decode   tg%-5d %10.2f tok/s\n", gen_tokens, tg_rate);
    std::printf(
        "  memory read bandwidth %.2f GB/s; decode reads %.1f MB/token -> %.2f GB/s; %.0f%% of "
        "the bandwidth measured right after it (median of the runs' ratios)\n",
        bw, bytes_per_token / 1e6, effective, 100 * decode_share);
    std::printf(
        "  decode kernels on weights in cache %.2f GB/s -> decode is %s-bound; %.0f%% of that "
        "bound\n",
        compute, compute_bound ? "compute" : "memory", 100 * median(bound_share));
    std::printf(
        "  verify of 5 positions = %.2fx one decode step -> break-even acceptance %.3f at K = 4 "
        "(free draft)\n",
        verify_ratio, break_even);
    if (long_prompt > 0)
      std::printf(
          "  prefill  pp%-5d %10.2f tok/s = %.1f Gops; int8 peak %.1f Gops (%s, %d thread(s)) "
          "-> %.1f%% of it\n",
          long_prompt, long_rate, long_gops, peak.gops, peak.instruction, threads,
          100 * peak_share);
    std::printf("%s%s", turns_line.c_str(), spec_line.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return runBench(argc, argv);
  } catch (const std::exception& e) {  // a session the bench drives directly failed
    std::fprintf(stderr, "engine-bench: the engine failed: %s\n", e.what());
    return 1;
  }
}
