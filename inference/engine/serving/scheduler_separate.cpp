// The separate prefill of the scheduler (scheduler.h): long prompts to the prefill worker
// and back into the running set.
#include <algorithm>

#include "inference/engine/serving/scheduler.h"
#include "inference/engine/serving/scheduler_sequence.h"

namespace ts::engine {

bool Scheduler::separately(const Sequence& s, int& cached, std::vector<int>& prefix) const {
  cached = blocks_.lookup(s.tokens, static_cast<int>(s.tokens.size()) - 1, prefix);
  return static_cast<int>(s.tokens.size()) - cached > options_.separate_prefill_tokens;
}

void Scheduler::handOff(const std::shared_ptr<Sequence>& s, int cached,
                        std::span<const int> prefix) {
  // The worker's session: empty, then the cached prefix's rows (bit for bit), so that it
  // computes only the rest. The pool's blocks are not held meanwhile.
  DecodeSession& session = worker_->session();
  try {
    session.truncate(0);
    if (cached > 0) session.copyKvFromBlocks(*session_, prefix, 0, cached);
  } catch (const std::bad_alloc&) {
    session.truncate(0);
    failWaiting(s, outOfMemory("for the prefill worker's KV cache of the prompt").message);
    return;
  } catch (const std::exception& e) {
    session.truncate(0);
    failWaiting(s, e.what());
    return;
  }
  PrefillWorker::Job job;
  job.tokens.assign(s->tokens.begin(), s->tokens.end() - 1);  // the last: in a step
  job.from = cached;
  job.cancelled = [s] { return s->cancelled(); };
  {
    std::lock_guard lock(mutex_);
    if (!s->queued) return;  // its caller cancelled it meanwhile
    std::erase(shared_.waiting, s);
    s->queued = false;
    s->computed = 0;  // no blocks until it is handed back
    if (!s->admitted_before) {
      s->admitted_before = true;
      s->outcome.cached_tokens = cached;
      shared_.metrics.prompt_tokens += s->prompt_size;
      shared_.metrics.prefix_query_tokens += s->prompt_size;
      shared_.metrics.prefix_hit_tokens += cached;
    }
    separate_ = s;
    separate_computed_ = false;
    countQueues();
  }
  worker_->start(std::move(job));
}

void Scheduler::collectSeparate() {
  {  // before take(): a later end wakes the loop again; also when nothing is there to take
     // (a job's end seen before its call-back came)
    std::lock_guard lock(mutex_);
    shared_.separate_ended = false;
  }
  if (!separate_) return;
  const auto end = [&](const std::string& reason, const std::string& error) {
    const std::shared_ptr<Sequence> s = std::move(separate_);
    separate_.reset();
    separate_computed_ = false;
    if (!error.empty()) {
      std::lock_guard lock(mutex_);
      s->error = error;
    }
    finish(s, reason);
  };
  if (!separate_computed_) {
    const std::optional<PrefillWorker::Outcome> outcome = worker_->take();
    if (!outcome) return;  // still computing
    {
      std::lock_guard lock(mutex_);
      shared_.metrics.separate_prefill_seconds += outcome->seconds;
    }
    if (!outcome->error.empty()) return end("error", outcome->error);
    if (outcome->cancelled) return end("cancelled", "");
    separate_computed_ = true;
  }
  if (separate_->cancelled()) return end("cancelled", "");
  handBack();
}

bool Scheduler::handBack() {
  Sequence& s = *separate_;
  const int limit = static_cast<int>(s.tokens.size()) - 1;  // computed by the worker
  // Whole cached blocks shared (they may be more, or fewer, than at the hand-off), then
  // blocks for the whole prompt, with one spare per running sequence as at admission.
  // Short of them: a newer running sequence is preempted, else the sequence waits.
  int shared = 0;
  while (true) {
    int no_copy = -1;
    shared = blocks_.share(s.tokens, limit, s.table, no_copy, /*whole_only=*/true);
    const int needed = blocksFor(limit + 1) - static_cast<int>(s.table.size());
    const int room = blocks_.free() + blocks_.cached() - static_cast<int>(running_.size());
    if (needed <= room) break;
    blocks_.release(s.table);
    const bool newer = std::any_of(running_.begin(), running_.end(),
                                   [&](const auto& r) { return r->order > s.order; });
    if (newer) {
      preemptNewest();
      continue;
    }
    if (!running_.empty()) return false;  // they give blocks back as they end
    // Alone and still too long for the pool (a preempted sequence's answer so far): it
    // ends as a step would end it.
    const std::shared_ptr<Sequence> seq = std::move(separate_);
    separate_.reset();
    separate_computed_ = false;
    const bool ends = s.generated == 0;
    if (ends) {
      std::lock_guard lock(mutex_);
      s.error =
          "the prompt needs more KV blocks than the pool's " + std::to_string(blocks_.total());
    }
    finish(seq, ends ? "error" : "length");
    return false;
  }
  const size_t had = s.table.size();
  blocks_.cover(s.table, limit + 1);  // there is room
  std::string error;
  if (!allocated(s.table, had)) {  // memory ran out for them: given back
    blocks_.release(s.table);
    if (shortOfMemory() || !running_.empty()) return false;  // again from used blocks, later
    error = "no memory left for the KV cache (" + std::to_string(session_->kvCacheBytes() >> 20) +
            " MiB allocated): " + kOutOfMemoryAdvice;
  } else {
    try {
      worker_->session().copyKvToBlocks(*session_, s.table, shared, limit);
    } catch (const std::exception& e) {
      error = std::string("the separate prefill's KV copy failed: ") + e.what();
    }
  }
  const std::shared_ptr<Sequence> seq = std::move(separate_);
  separate_.reset();
  separate_computed_ = false;
  if (!error.empty()) {
    {
      std::lock_guard lock(mutex_);
      s.error = error;
    }
    finish(seq, "error");  // gives its blocks back
    return false;
  }
  s.computed = limit;
  blocks_.publish(s.tokens, limit, s.table);
  running_.push_back(seq);
  std::lock_guard lock(mutex_);
  ++shared_.metrics.separate_prefills;
  countQueues();
  return true;
}

}  // namespace ts::engine
