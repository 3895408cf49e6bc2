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

// One replay: the requests under way, the clock and the step sequence, in named steps.
class Replay {
 public:
  Replay(const MixedLoad& load, const SchedulerOptions& o, const StepCosts& c)
      : load_(load),
        o_(o),
        c_(c),
        crowded_(c.step_slowdown > 0
                     ? c.step_slowdown
                     : std::max(1.0, double(c.step_threads + c.worker_threads) / c.cores)),
        worker_token_s_(c.worker_token_s > 0 ? c.worker_token_s
                                             : c.per_prompt_token_s * crowded_ * c.step_threads /
                                                   std::max(1, c.worker_threads)) {
    for (int k = 0; k < load.streams; ++k) newStream(k);
  }

  // Until the long prompts are done and the stream requests under way then have finished
  // (they count, as in the measured episode).
  void run() {
    for (int guard = 0; guard < 10'000'000 && (longs_done_ < load_.arrivals || !active_.empty());
         ++guard) {
      arrive();
      if (o_.separate_prefill_tokens > 0) handToWorker();
      for (Request& r : active_)
        if (r.in_worker && r.worker_done <= t_) r.in_worker = false;
      if (!step() && !idle()) break;
      retire();
    }
  }

  Sample figures() const;

 private:
  double arrivalTime(int a) const { return load_.every_s / 2 + a * load_.every_s; }
  // A long prompt while the worker computes another keeps its place in the queue: the
  // scheduler never puts it in its steps (scheduler.cpp, admission).
  bool waitsForWorker(const Request& r) const {
    return o_.separate_prefill_tokens > 0 && r.prompt_left > o_.separate_prefill_tokens;
  }
  bool workerBusy() const {
    return std::any_of(active_.begin(), active_.end(),
                       [](const Request& r) { return r.in_worker; });
  }
  void newStream(int k) {
    Request r;
    r.arrival = t_;
    r.prompt_left = load_.stream_prompt;
    r.gen_left = load_.stream_tokens;
    r.stream = k;
    active_.push_back(r);
  }
  void arrive() {  // the long prompts due by now
    for (; next_arrival_ < load_.arrivals && arrivalTime(next_arrival_) <= t_; ++next_arrival_) {
      Request r;
      r.is_long = true;
      r.arrival = arrivalTime(next_arrival_);
      r.prompt_left = load_.long_tokens;
      r.gen_left = load_.long_gen;
      active_.push_back(r);
    }
  }
  void handToWorker() {  // one prompt at a time, the oldest long enough
    if (workerBusy()) return;
    for (Request& r : active_)
      if (r.prompt_left > o_.separate_prefill_tokens) {
        r.in_worker = true;
        r.worker_done = t_ + (r.prompt_left - 1) * worker_token_s_;
        r.prompt_left = 1;  // handed back with its last token to compute
        return;
      }
  }
  // One step: every decoding sequence's token and prompt chunks within the budget. False
  // when there was nothing to run.
  bool step();
  // Nothing to run: the clock jumps to the next arrival or hand-back; false at the end.
  bool idle() {
    double next = std::numeric_limits<double>::max();
    if (next_arrival_ < load_.arrivals) next = arrivalTime(next_arrival_);
    for (const Request& r : active_)
      if (r.in_worker) next = std::min(next, r.worker_done);
    if (next == std::numeric_limits<double>::max()) return false;
    t_ = next;
    return true;
  }
  // Finished requests leave; a stream starts its next request while arrivals remain.
  void retire() {
    for (size_t i = 0; i < active_.size();) {
      if (active_[i].gen_left > 0) {
        ++i;
        continue;
      }
      Request r = std::move(active_[i]);
      active_.erase(active_.begin() + static_cast<std::ptrdiff_t>(i));
      if (r.is_long)
        ++longs_done_;
      else if (longs_done_ < load_.arrivals)
        newStream(r.stream);
      done_.push_back(std::move(r));
    }
  }

  const MixedLoad& load_;
  const SchedulerOptions& o_;
  const StepCosts& c_;
  const double crowded_;         // the steps' slowdown while the worker computes
  const double worker_token_s_;  // the worker's seconds per prompt token
  std::vector<Request> done_, active_;
  double t_ = 0;
  int next_arrival_ = 0, longs_done_ = 0;
};

bool Replay::step() {
  const bool worker_busy = workerBusy();
  int decoding = 0;
  for (const Request& r : active_) decoding += !r.in_worker && r.prompt_left == 0;
  int budget = std::min(chunkFor(o_, c_, decoding), std::max(0, o_.batch_tokens - decoding));
  const bool whole = o_.prefill_chunk == 0 && o_.tpot_target_ms == 0;
  std::vector<std::pair<Request*, int>> prompts;  // prompt tokens each gets
  int sequences = decoding, prompt_tokens = 0;
  for (Request& r : active_) {
    if (r.in_worker || r.prompt_left == 0 || budget == 0 || waitsForWorker(r)) continue;
    const int n = whole ? r.prompt_left : std::min(budget, r.prompt_left);
    prompts.push_back({&r, n});
    budget -= std::min(budget, n);
    prompt_tokens += n;
    ++sequences;
  }
  if (sequences == 0) return false;
  t_ += (c_.decode_step_s + (sequences - 1) * c_.per_sequence_s +
         prompt_tokens * c_.per_prompt_token_s) *
        (worker_busy ? crowded_ : 1.0);
  for (Request& r : active_)
    if (!r.in_worker && r.prompt_left == 0 && r.gen_left > 0) {
      r.tokens.push_back(t_);
      --r.gen_left;
    }
  for (auto& [r, n] : prompts) {
    r->prompt_left -= n;
    if (r->prompt_left == 0) {  // its first token comes from this pass's logits
      r->tokens.push_back(t_);
      --r->gen_left;
    }
  }
  return true;
}

Sample Replay::figures() const {
  std::vector<double> ttft, tpot, itl;
  double begin = std::numeric_limits<double>::max(), end = 0;
  size_t tokens = 0;
  for (const Request& r : done_) {
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

}  // namespace

Sample replayMixedLoad(const MixedLoad& load, const SchedulerOptions& o, const StepCosts& c) {
  Replay replay(load, o, c);
  replay.run();
  return replay.figures();
}

}  // namespace ts::engine::lab
