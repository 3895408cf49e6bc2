// serving-bench: the scheduler (engine/serving/scheduler.h) under the loads of the serving
// issue, on the engine alone (no HTTP: the in-process numbers a server adds its I/O to).
//   serving-bench --model PATH [--threads N] [--kv f16|f32|int8] <scenario> [--json]
// Scenarios:
//   --steps 1,2,4,8            ms per step of B sequences each decoding one token (context
//                              --context-tokens, default 64), and the speed-up over B = 1
//   --throughput 1,8           closed loop at each concurrency: --requests per level (default
//                              4 x concurrency), --prompt-tokens (16), --gen-tokens (32);
//                              output tok/s, TTFT and TPOT medians; --same-prompt: every
//                              request sends one prompt (as `tokenscope-cli bench` does)
//   --mixed 16,32,64,128,256,512,0
//                              --streams (4) requests decoding back to back (--gen-tokens
//                              64 each) while a --long-tokens (1,024) prompt arrives every
//                              --every seconds (2), --arrivals times (5), per prefill chunk
//                              (0: whole prompts): TTFT p50/p99 of the long prompts, TPOT
//                              p50/p99 and ITL p99 of the streams, and one stream alone's TPOT;
//                              --separate THRESHOLD: one more row under the same load with
//                              prompts of more than THRESHOLD tokens computed by the separate
//                              prefill worker (--separate-threads N of its own, default 0: half
//                              the machine's), the streams' prompts chunked by --prefill-chunk
//   --prefix                   a --system-tokens (512) system prompt: TTFT of the first
//                              request, then of one with the same system prompt and another
//                              question (cached), median of --repeat (3) pairs
// Default scheduler settings unless --parallel, --batch-tokens, --prefill-chunk,
// --tpot-target are given (--tpot-target auto: twice the one stream alone's TPOT, measured
// first; with --mixed).
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "inference/engine/core/thread_pool.h"
#include "inference/engine/cpu/cpu_forward.h"
#include "inference/engine/decode/open_session.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/serving/scheduler.h"
#include "tests/bench/engine/bench_clock.h"

using namespace ts::engine;
using ts::bench::median;
using ts::bench::now;
using ts::bench::number;

namespace {

struct Settings {
  std::shared_ptr<const Model> model;
  KvFormat kv = KvFormat::F16;
  int threads = 1;
  SchedulerOptions scheduling;
  int context = 0;
};

std::vector<int> list(const std::string& text) {
  std::vector<int> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::atoi(item.c_str()));
  return out;
}

double percentile(std::vector<double> v, double p) {  // nearest rank, p in [0, 100]
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t rank = static_cast<size_t>(std::ceil(p / 100 * v.size()));
  return v[std::clamp<size_t>(rank, 1, v.size()) - 1];
}

std::vector<int> tokens(int n, int seed, int vocab) {
  std::vector<int> out(n);
  for (int i = 0; i < n; ++i) out[i] = 3 + (seed * 7919 + i * 104729) % (vocab - 3);
  return out;
}

std::unique_ptr<Scheduler> scheduler(const Settings& s, SchedulerOptions o) {
  auto session = std::make_unique<CpuSession>(s.model, s.context, s.kv, s.threads);
  Vocabulary vocab = s.model->vocab;
  vocab.eos = -1;  // random weights: never stop early, every request its full length
  return std::make_unique<Scheduler>(std::move(session), Tokenizer(vocab), o);
}

// One request's timings (seconds): from submission to each token.
struct Timed {
  double start = 0;
  std::vector<double> at;  // each token's arrival
  double ttft() const { return at.empty() ? 0 : at.front() - start; }
  double tpot() const {  // DESIGN.md: (e2e - ttft) / (tokens - 1)
    return at.size() < 2 ? 0 : (at.back() - at.front()) / (at.size() - 1);
  }
};

// One request's token times. A request the engine fails ends the bench at once (exit 1,
// from whichever client thread): the figures around it would not be the scheduler's.
Timed run(Scheduler& s, const std::vector<int>& prompt, int gen) {
  ScheduledRequest r;
  r.prompt = prompt;
  r.max_tokens = gen;
  Timed t;
  t.start = now();
  const auto out = s.generate(r, [&](const GeneratedToken& g) {
    if (g.id >= 0) t.at.push_back(now());
    return true;
  });
  if (!out) {
    std::fprintf(stderr, "serving-bench: the engine failed: %s\n", out.error().c_str());
    std::fflush(stderr);
    std::_Exit(1);  // other client threads still run: no destructors
  }
  return t;
}

void steps(const Settings& s, const std::vector<int>& sizes, int context_tokens) {
  const int vocab = s.model->config.vocab;
  CpuSession session(s.model, s.context, s.kv, s.threads);
  const int max_b = *std::max_element(sizes.begin(), sizes.end());
  const int per = (context_tokens + 1 + kKvBlock - 1) / kKvBlock + 1;
  session.usePagedKv(max_b * per);
  std::vector<std::vector<int>> tables(max_b), prompts(max_b);
  for (int b = 0; b < max_b; ++b) {
    for (int i = 0; i < per; ++i) tables[b].push_back(b * per + i);
    prompts[b] = tokens(context_tokens + 1, b, vocab);
    const SequencePass p{std::span<const int>(prompts[b]).first(context_tokens), 0, tables[b]};
    session.forwardSequences({&p, 1});
  }
  double base = 0;
  for (int b : sizes) {
    std::vector<SequencePass> passes;
    for (int k = 0; k < b; ++k)
      passes.push_back(
          {std::span<const int>(prompts[k]).subspan(context_tokens, 1), context_tokens, tables[k]});
    std::vector<double> ms;
    for (int r = 0; r < 7; ++r) {
      const double t0 = now();
      session.forwardSequences(passes);
      ms.push_back((now() - t0) * 1e3);
    }
    const double m = median(ms);
    if (b == sizes.front()) base = m / b;
    std::printf("  %d sequences: %s ms per step, %s tok/s (x%s of one)\n", b, number(m, 1).c_str(),
                number(b * 1e3 / m, 1).c_str(), number(base * b / m, 2).c_str());
  }
}

void throughput(const Settings& s, const std::vector<int>& levels, int requests, int prompt_tokens,
                int gen, bool same_prompt) {
  const int vocab = s.model->config.vocab;
  for (int c : levels) {
    auto sched = scheduler(s, s.scheduling);
    std::atomic<int> step_count{0}, step_tokens{0};
    std::atomic<long> step_us{0};
    sched->onStep([&](const StepRecord& r) {
      ++step_count;
      step_tokens += r.tokens;
      step_us += static_cast<long>(r.seconds * 1e6);
    });
    const int n = requests > 0 ? requests : 4 * c;
    std::atomic<int> next{0};
    std::vector<Timed> done(n);
    const double t0 = now();
    std::vector<std::thread> clients;
    for (int k = 0; k < c; ++k)
      clients.emplace_back([&] {
        for (int i; (i = next++) < n;)
          done[i] = run(*sched, tokens(prompt_tokens, same_prompt ? 0 : i, vocab), gen);
      });
    for (auto& t : clients) t.join();
    const double wall = now() - t0;
    std::vector<double> ttft, tpot;
    size_t out = 0;
    for (const Timed& t : done) {
      ttft.push_back(t.ttft() * 1e3);
      tpot.push_back(t.tpot() * 1e3);
      out += t.at.size();
    }
    std::printf(
        "  concurrency %d: %s output tok/s, TTFT p50 %s ms, TPOT p50 %s ms (%d requests; %d steps "
        "of %s tokens on average, passes %s%% of the time)\n",
        c, number(out / wall, 2).c_str(), number(median(ttft), 1).c_str(),
        number(median(tpot), 1).c_str(), n, step_count.load(),
        number(static_cast<double>(step_tokens) / std::max(1, step_count.load()), 1).c_str(),
        number(step_us.load() / 1e4 / wall, 1).c_str());
  }
}

void mixed(const Settings& s, const std::vector<int>& chunks, int streams, int gen, int long_tokens,
           double every, int arrivals, bool tpot_auto, int separate, int separate_threads) {
  const int vocab = s.model->config.vocab;
  double alone_tpot = 0;
  {
    auto sched = scheduler(s, s.scheduling);
    std::vector<double> tpot;
    for (int i = 0; i < 3; ++i) tpot.push_back(run(*sched, tokens(16, 900 + i, vocab), gen).tpot());
    alone_tpot = median(tpot) * 1e3;
    std::printf("  one stream alone: TPOT p50 %s ms\n", number(alone_tpot, 1).c_str());
  }
  SchedulerOptions paced = s.scheduling;
  if (tpot_auto) paced.tpot_target_ms = static_cast<int>(2 * alone_tpot);
  if (paced.tpot_target_ms > 0)
    std::printf("  prompt chunks paced to a TPOT of %d ms\n", paced.tpot_target_ms);
  // One row: the load on a scheduler with `o`.
  const auto row = [&](const SchedulerOptions& o, const std::string& label) {
    auto sched = scheduler(s, o);
    std::atomic<bool> over{false};
    std::mutex m;
    std::vector<Timed> stream_runs, long_runs;
    std::vector<std::thread> threads;
    for (int k = 0; k < streams; ++k)
      threads.emplace_back([&, k] {
        for (int i = 0; !over; ++i) {  // the run under way when the arrivals end counts too
          Timed t = run(*sched, tokens(16, 1000 * k + i, vocab), gen);
          std::lock_guard lock(m);
          stream_runs.push_back(std::move(t));
        }
      });
    // The streams reach their decoding first; then the long prompts come.
    const double first = now() + every / 2;
    std::vector<std::thread> arrivals_threads;
    for (int a = 0; a < arrivals; ++a)
      arrivals_threads.emplace_back([&, a] {
        const double at = first + a * every;
        while (now() < at) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        Timed t = run(*sched, tokens(long_tokens, 5000 + a, vocab), 16);
        std::lock_guard lock(m);
        long_runs.push_back(std::move(t));
      });
    for (auto& t : arrivals_threads) t.join();
    over = true;
    for (auto& t : threads) t.join();
    std::vector<double> ttft, tpot, itl;
    for (const Timed& t : long_runs) ttft.push_back(t.ttft() * 1e3);
    for (const Timed& t : stream_runs) {
      tpot.push_back(t.tpot() * 1e3);
      for (size_t i = 1; i < t.at.size(); ++i) itl.push_back((t.at[i] - t.at[i - 1]) * 1e3);
    }
    std::printf(
        "  %-13s TTFT p50 %7s p99 %7s ms | streams' TPOT p50 %6s p99 %6s ms (%s x alone), "
        "ITL p99 %7s max %7s ms\n",
        label.c_str(), number(percentile(ttft, 50), 0).c_str(),
        number(percentile(ttft, 99), 0).c_str(), number(percentile(tpot, 50), 1).c_str(),
        number(percentile(tpot, 99), 1).c_str(),
        number(percentile(tpot, 99) / alone_tpot, 2).c_str(),
        number(percentile(itl, 99), 0).c_str(), number(percentile(itl, 100), 0).c_str());
    return sched->options();
  };
  for (int chunk : chunks) {
    SchedulerOptions o = paced;
    o.prefill_chunk = chunk;
    row(o, "chunk " + (chunk == 0 ? std::string("whole") : std::to_string(chunk)));
  }
  if (separate > 0) {
    SchedulerOptions o = paced;
    o.separate_prefill_tokens = separate;
    o.separate_prefill_threads = separate_threads;
    const SchedulerOptions applied = row(o, "separate >" + std::to_string(separate));
    std::printf(
        "  (separate: a prefill worker of %d threads beside the steps' %d; the streams' "
        "prompts in chunks of %d)\n",
        applied.separate_prefill_threads, s.threads, applied.prefill_chunk);
  }
}

void prefix(const Settings& s, int system_tokens, int repeat) {
  const int vocab = s.model->config.vocab;
  std::vector<double> firsts, cached, ratios;
  for (int r = 0; r < repeat; ++r) {
    auto sched = scheduler(s, s.scheduling);
    std::vector<int> a = tokens(system_tokens, 70 + r, vocab), b = a;
    const auto qa = tokens(12, 80 + r, vocab), qb = tokens(15, 90 + r, vocab);
    a.insert(a.end(), qa.begin(), qa.end());
    b.insert(b.end(), qb.begin(), qb.end());
    const double t1 = run(*sched, a, 4).ttft() * 1e3, t2 = run(*sched, b, 4).ttft() * 1e3;
    firsts.push_back(t1);
    cached.push_back(t2);
    ratios.push_back(t2 / t1);
  }
  std::printf(
      "  %d-token system prompt: first TTFT %s ms, cached %s ms: %s of the first (median "
      "of %d)\n",
      system_tokens, number(median(firsts), 1).c_str(), number(median(cached), 1).c_str(),
      number(median(ratios), 3).c_str(), repeat);
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  s.threads = ThreadPool::defaultThreads();
  std::string model_path, kv = "f16";
  std::string steps_list, throughput_list, mixed_list;
  bool prefix_run = false, same_prompt = false, tpot_auto = false;
  int requests = 0, prompt_tokens = 16, gen = -1, context_tokens = 64, streams = 4,
      long_tokens = 1024, arrivals = 5, system_tokens = 512, repeat = 3, separate = 0,
      separate_threads = 0;
  double every = 2;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "serving-bench: %s expects a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--model")
      model_path = value();
    else if (a == "--threads")
      s.threads = std::max(1, std::atoi(value().c_str()));
    else if (a == "--kv")
      kv = value();
    else if (a == "--parallel")
      s.scheduling.max_running = std::atoi(value().c_str());
    else if (a == "--batch-tokens")
      s.scheduling.batch_tokens = std::atoi(value().c_str());
    else if (a == "--prefill-chunk")
      s.scheduling.prefill_chunk = std::atoi(value().c_str());
    else if (a == "--tpot-target") {
      const std::string v = value();
      tpot_auto = v == "auto";
      s.scheduling.tpot_target_ms = tpot_auto ? 0 : std::atoi(v.c_str());
    } else if (a == "--steps")
      steps_list = value();
    else if (a == "--throughput")
      throughput_list = value();
    else if (a == "--mixed")
      mixed_list = value();
    else if (a == "--separate")
      separate = std::atoi(value().c_str());
    else if (a == "--separate-threads")
      separate_threads = std::atoi(value().c_str());
    else if (a == "--prefix")
      prefix_run = true;
    else if (a == "--same-prompt")
      same_prompt = true;
    else if (a == "--requests")
      requests = std::atoi(value().c_str());
    else if (a == "--prompt-tokens")
      prompt_tokens = std::atoi(value().c_str());
    else if (a == "--gen-tokens")
      gen = std::atoi(value().c_str());
    else if (a == "--context-tokens")
      context_tokens = std::atoi(value().c_str());
    else if (a == "--streams")
      streams = std::atoi(value().c_str());
    else if (a == "--long-tokens")
      long_tokens = std::atoi(value().c_str());
    else if (a == "--every")
      every = std::atof(value().c_str());
    else if (a == "--arrivals")
      arrivals = std::atoi(value().c_str());
    else if (a == "--system-tokens")
      system_tokens = std::atoi(value().c_str());
    else if (a == "--repeat")
      repeat = std::atoi(value().c_str());
    else {
      std::fprintf(stderr, "serving-bench: unknown argument '%s' (see the file's header)\n",
                   a.c_str());
      return 2;
    }
  }
  auto format = parseKvFormat(kv);
  if (model_path.empty() || !format) {
    std::fprintf(stderr, "serving-bench: expected --model PATH and --kv f16|f32|int8\n");
    return 2;
  }
  if (separate > 0 && mixed_list.empty()) {
    std::fprintf(stderr, "serving-bench: --separate adds a row to --mixed: give --mixed too\n");
    return 2;
  }
  s.kv = format.value();
  auto loaded = loadModel(model_path);
  if (!loaded) {
    std::fprintf(stderr, "serving-bench: %s\n", loaded.error().c_str());
    return 1;
  }
  s.model = loaded.value();
  s.context = defaultPositions(s.model->config);
  std::printf("serving-bench: %s, %d threads, KV %s\n", s.model->config.describe().c_str(),
              s.threads, kv.c_str());
  if (!steps_list.empty()) steps(s, list(steps_list), context_tokens);
  if (!throughput_list.empty())
    throughput(s, list(throughput_list), requests, prompt_tokens, gen > 0 ? gen : 32, same_prompt);
  if (!mixed_list.empty())
    mixed(s, list(mixed_list), streams, gen > 0 ? gen : 64, long_tokens, every, arrivals, tpot_auto,
          separate, separate_threads);
  if (prefix_run) prefix(s, system_tokens, repeat);
  return 0;
}
