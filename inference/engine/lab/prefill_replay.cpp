#include "inference/engine/lab/prefill_replay.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "inference/engine/lab/bootstrap.h"

namespace ts::engine::lab {
namespace {

struct Request {
  bool is_long = false;
  double arrival = 0;   // seconds
  int prompt_left = 0;  // prompt tokens still to compute in the steps
  int gen_left = 0;     // tokens still to generate
  bool in_worker = false;
  double worker_done = 0;      // when the worker hands it back
  std::vector<double> tokens;  // token times
  int stream = -1;             // which stream made it (-1: a long prompt)
};

// The chunk a step gets for prompts: chunk:N as given (0: whole), tpot:MS as what keeps the
// step within MS with `decoding` sequences in it.
int chunkFor(const SchedulerOptions& o, const StepCosts& c, int decoding) {
  if (o.tpot_target_ms > 0 && decoding > 0) {
    const double room =
        o.tpot_target_ms / 1e3 - c.decode_step_s - (decoding - 1) * c.per_sequence_s;
    return std::max(1, static_cast<int>(room / c.per_prompt_token_s));
  }
  return o.prefill_chunk > 0 ? o.prefill_chunk : std::numeric_limits<int>::max();
}

}  // namespace

Sample replayMixedLoad(const MixedLoad& load, const SchedulerOptions& o, const StepCosts& c) {
  std::vector<Request> done, active;
  double t = 0;
  int next_arrival = 0;
  const double first = load.every_s / 2;
  const auto newStream = [&](int k, double at) {
    Request r;
    r.arrival = at;
    r.prompt_left = load.stream_prompt;
    r.gen_left = load.stream_tokens;
    r.stream = k;
    active.push_back(r);
  };
  for (int k = 0; k < load.streams; ++k) newStream(k, 0);
  const bool separate = o.separate_prefill_tokens > 0;
  const double crowded = std::max(1.0, double(c.step_threads + c.worker_threads) / c.cores);
  int longs_done = 0;
  // Until the long prompts are done and the stream requests under way then have finished
  // (they count, as in the measured episode).
  for (int guard = 0; guard < 10'000'000 && (longs_done < load.arrivals || !active.empty());
       ++guard) {
    while (next_arrival < load.arrivals && first + next_arrival * load.every_s <= t) {
      Request r;
      r.is_long = true;
      r.arrival = first + next_arrival * load.every_s;
      r.prompt_left = load.long_tokens;
      r.gen_left = load.long_gen;
      active.push_back(r);
      ++next_arrival;
    }
    // The worker: one prompt at a time, the oldest long enough.
    bool worker_busy = false;
    for (Request& r : active) worker_busy |= r.in_worker;
    if (separate && !worker_busy)
      for (Request& r : active)
        if (r.prompt_left > o.separate_prefill_tokens) {
          r.in_worker = true;
          r.worker_done = t + (r.prompt_left - 1) * c.per_prompt_token_s * crowded *
                                  c.step_threads / std::max(1, c.worker_threads);
          r.prompt_left = 1;  // handed back with its last token to compute
          worker_busy = true;
          break;
        }
    for (Request& r : active)
      if (r.in_worker && r.worker_done <= t) r.in_worker = false;
    worker_busy = false;
    for (const Request& r : active) worker_busy |= r.in_worker;
    // This step's work.
    int decoding = 0;
    for (const Request& r : active) decoding += !r.in_worker && r.prompt_left == 0;
    int budget = std::min(chunkFor(o, c, decoding), std::max(0, o.batch_tokens - decoding));
    std::vector<std::pair<Request*, int>> prompts;  // prompt tokens each gets
    int sequences = decoding, prompt_tokens = 0;
    for (Request& r : active) {
      if (r.in_worker || r.prompt_left == 0 || budget == 0) continue;
      const int n = o.prefill_chunk == 0 && o.tpot_target_ms == 0 ? r.prompt_left
                                                                  : std::min(budget, r.prompt_left);
      prompts.push_back({&r, n});
      budget -= std::min(budget, n);
      prompt_tokens += n;
      ++sequences;
    }
    if (sequences == 0) {  // idle until the next arrival or the worker's hand-back
      double next = std::numeric_limits<double>::max();
      if (next_arrival < load.arrivals) next = first + next_arrival * load.every_s;
      for (const Request& r : active)
        if (r.in_worker) next = std::min(next, r.worker_done);
      if (next == std::numeric_limits<double>::max()) break;
      t = next;
      continue;
    }
    const double dt = (c.decode_step_s + (sequences - 1) * c.per_sequence_s +
                       prompt_tokens * c.per_prompt_token_s) *
                      (worker_busy ? crowded : 1.0);
    t += dt;
    for (Request& r : active)
      if (!r.in_worker && r.prompt_left == 0 && r.gen_left > 0) {
        r.tokens.push_back(t);
        --r.gen_left;
      }
    for (auto& [r, n] : prompts) {
      r->prompt_left -= n;
      if (r->prompt_left == 0) {  // its first token comes from this pass's logits
        r->tokens.push_back(t);
        --r->gen_left;
      }
    }
    // Finished requests leave; a stream starts its next request while arrivals remain.
    for (size_t i = 0; i < active.size();) {
      if (active[i].gen_left > 0) {
        ++i;
        continue;
      }
      Request r = active[i];
      active.erase(active.begin() + i);
      if (r.is_long)
        ++longs_done;
      else if (longs_done < load.arrivals)
        newStream(r.stream, t);
      done.push_back(std::move(r));
    }
  }
  std::vector<double> ttft, tpot, itl;
  double begin = std::numeric_limits<double>::max(), end = 0;
  size_t tokens = 0;
  for (const Request& r : done) {
    if (r.tokens.empty()) continue;
    if (r.is_long) {
      ttft.push_back((r.tokens.front() - r.arrival) * 1e3);
      continue;
    }
    if (r.tokens.size() < 2) continue;
    tpot.push_back((r.tokens.back() - r.tokens.front()) * 1e3 / (r.tokens.size() - 1));
    for (size_t i = 1; i < r.tokens.size(); ++i)
      itl.push_back((r.tokens[i] - r.tokens[i - 1]) * 1e3);
    begin = std::min(begin, r.tokens.front());
    end = std::max(end, r.tokens.back());
    tokens += r.tokens.size();
  }
  return {{"ttft_p50_long_ms", percentileOf(ttft, 50)},
          {"ttft_p99_long_ms", percentileOf(ttft, 99)},
          {"tpot_p50_ms", percentileOf(tpot, 50)},
          {"tpot_p99_ms", percentileOf(tpot, 99)},
          {"itl_p99_ms", percentileOf(itl, 99)},
          {"decode_tok_s", end > begin ? tokens / (end - begin) : 0}};
}

}  // namespace ts::engine::lab
