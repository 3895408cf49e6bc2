#include "inference/engine/lab/mixed_load.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>
#include <thread>
#include <vector>

#include "inference/engine/cpu/cpu_forward.h"
#include "inference/engine/lab/bootstrap.h"

namespace ts::engine::lab {
namespace {

using Clock = std::chrono::steady_clock;

std::vector<int> promptIds(int n, int seed, int vocab) {
  std::vector<int> out(n);
  for (int i = 0; i < n; ++i) out[i] = 3 + (seed * 7919 + i * 104729) % std::max(1, vocab - 3);
  return out;
}

// One request's token times, ns on the steady clock, from its submission.
struct Timed {
  int64_t start = 0;
  std::vector<int64_t> at;
};

Result<Timed> timedRun(Scheduler& s, std::vector<int> prompt, int gen) {
  ScheduledRequest r;
  r.prompt = std::move(prompt);
  r.max_tokens = gen;
  Timed t;
  t.start = Clock::now().time_since_epoch().count();
  auto out = s.generate(r, [&](const GeneratedToken& g) {
    if (g.id >= 0)
      t.at.push_back(g.made_ns > 0 ? g.made_ns : Clock::now().time_since_epoch().count());
    return true;
  });
  if (!out) return fail(out.error());
  return t;
}

}  // namespace

Result<bool> applyPrefillPolicy(const std::string& value, SchedulerOptions& o) {
  const size_t colon = value.find(':');
  const std::string kind = value.substr(0, colon);
  const std::string number = colon == std::string::npos ? "" : value.substr(colon + 1);
  const bool digits = !number.empty() && number.size() <= 6 &&
                      number.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || (kind != "chunk" && kind != "tpot" && kind != "separate"))
    return fail("--vary prefill: expected chunk:N, tpot:MS or separate:TOKENS, found '" + value +
                "'");
  const int n = std::stoi(number);
  if (kind == "chunk") o.prefill_chunk = n;
  if (kind == "tpot") o.tpot_target_ms = n;
  if (kind == "separate") {
    if (n < 1) return fail("--vary prefill: separate:TOKENS needs at least 1 token");
    o.separate_prefill_tokens = n;
  }
  return true;
}

Result<Sample> runMixedEpisode(const std::shared_ptr<const Model>& model, KvFormat kv, int threads,
                               const SchedulerOptions& options, const MixedLoad& load, int episode,
                               double resident_mb) {
  const int vocab = model->config.vocab;
  const int context =
      std::max(load.long_tokens + load.long_gen, load.stream_prompt + load.stream_tokens) + 1;
  Vocabulary vocabulary = model->vocab;
  vocabulary.eos = -1;  // every request its full length
  Scheduler scheduler(std::make_unique<CpuSession>(model, context, kv, threads),
                      Tokenizer(vocabulary), options);
  std::mutex m;
  std::vector<Timed> streams, longs;
  std::string error;
  std::atomic<bool> over{false};
  const auto note = [&](Result<Timed>& r, std::vector<Timed>& into) {
    std::lock_guard lock(m);
    if (r)
      into.push_back(std::move(r.value()));
    else if (error.empty())
      error = r.error();
  };
  std::vector<std::thread> threads_;
  for (int k = 0; k < load.streams; ++k)
    threads_.emplace_back([&, k] {
      for (int i = 0; !over; ++i) {  // the run under way when the arrivals end counts too
        auto r =
            timedRun(scheduler, promptIds(load.stream_prompt, episode * 1000 + k * 100 + i, vocab),
                     load.stream_tokens);
        note(r, streams);
        if (!r) return;
      }
    });
  const auto first = Clock::now() + std::chrono::duration<double>(load.every_s / 2);
  std::vector<std::thread> arrivals;
  for (int a = 0; a < load.arrivals; ++a)
    arrivals.emplace_back([&, a] {
      std::this_thread::sleep_until(first + std::chrono::duration<double>(a * load.every_s));
      auto r = timedRun(scheduler, promptIds(load.long_tokens, 50000 + episode * 100 + a, vocab),
                        load.long_gen);
      note(r, longs);
    });
  for (auto& t : arrivals) t.join();
  over = true;
  for (auto& t : threads_) t.join();
  if (!error.empty()) return fail(error);
  std::vector<double> ttft, tpot, itl;
  int64_t begin = INT64_MAX, end = 0;
  size_t tokens = 0;
  for (const Timed& t : longs)
    if (!t.at.empty()) ttft.push_back((t.at.front() - t.start) / 1e6);
  for (const Timed& t : streams) {
    if (t.at.size() < 2) continue;
    tpot.push_back((t.at.back() - t.at.front()) / 1e6 / (t.at.size() - 1));
    for (size_t i = 1; i < t.at.size(); ++i) itl.push_back((t.at[i] - t.at[i - 1]) / 1e6);
    begin = std::min(begin, t.at.front());
    end = std::max(end, t.at.back());
    tokens += t.at.size();
  }
  if (ttft.empty() || tpot.empty()) return fail("the mixed load produced no complete request");
  return Sample{{"ttft_p50_long_ms", percentileOf(ttft, 50)},
                {"ttft_p99_long_ms", percentileOf(ttft, 99)},
                {"tpot_p50_ms", percentileOf(tpot, 50)},
                {"tpot_p99_ms", percentileOf(tpot, 99)},
                {"itl_p99_ms", percentileOf(itl, 99)},
                {"decode_tok_s", end > begin ? tokens / ((end - begin) / 1e9) : 0},
                {"prefill_tok_s", load.long_tokens / (medianOf(ttft) / 1e3)},
                {"peak_rss_mb", resident_mb}};
}

}  // namespace ts::engine::lab
