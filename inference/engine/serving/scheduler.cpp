#include "inference/engine/serving/scheduler.h"
#include "inference/engine/serving/scheduler_sequence.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "inference/engine/core/edge.h"
#include "inference/engine/core/thread_pool.h"
#include "inference/engine/decode/sampler.h"
#include "inference/engine/model/kv_cache.h"

namespace ts::engine {
namespace {

// Stands in for a failed session that could not be opened again: every pass fails saying
// why, and the next failure tries to open one again.
class UnopenedSession : public DecodeSession {
 public:
  UnopenedSession(int vocab, int positions, std::string why)
      : vocab_(vocab), positions_(positions), why_(std::move(why)) {}
  std::span<const float> forwardBatch(std::span<const int>, int, bool) override {
    throw std::runtime_error(why_);
  }
  void truncate(int) override {}
  int vocab() const override { return vocab_; }
  int maxPositions() const override { return positions_; }
  bool failed() const override { return true; }

 private:
  int vocab_, positions_;
  std::string why_;
};

double msBetween(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// How often a caller whose request waits looks at its cancel flag (nothing wakes it when
// another thread sets the flag): a queued request ends within this of its cancel.
constexpr std::chrono::milliseconds kCancelPoll{10};

}  // namespace

int defaultKvBlocks(int context, int max_running) {
  return blocksFor(std::max(2 * context, max_running * std::min(context, 1024)));
}

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds(std::move(upper_bounds)), counts(bounds.size() + 1, 0) {}

void Histogram::observe(double value) {
  const auto at = std::lower_bound(bounds.begin(), bounds.end(), value) - bounds.begin();
  ++counts[at];
  sum += value;
  ++count;
}

Scheduler::Scheduler(std::unique_ptr<DecodeSession> session, Tokenizer tokenizer,
                     SchedulerOptions options)
    : session_(std::move(session)),
      tokenizer_(std::move(tokenizer)),
      options_(options),
      context_(session_->maxPositions()),
      paged_(false),
      blocks_(0),
      pacer_(0) {
  options_.max_running = std::max(1, options_.max_running);
  options_.tpot_target_ms = std::max(0, options_.tpot_target_ms);
  options_.batch_tokens = std::max(1, options_.batch_tokens);
  options_.prefill_chunk = std::max(0, options_.prefill_chunk);
  const int blocks =
      options_.kv_blocks > 0 ? options_.kv_blocks : defaultKvBlocks(context_, options_.max_running);
  paged_ = session_->usePagedKv(blocks);
  if (paged_) {
    blocks_ = KvBlockManager(blocks);
    options_.kv_blocks = blocks;
  } else {  // one sequence at a time in the session's own cache, prompts whole
    options_.max_running = 1;
    options_.prefill_chunk = 0;
    options_.kv_blocks = 0;
    options_.tpot_target_ms = 0;
  }
  pacer_ = PromptPacer(options_.tpot_target_ms);
  if (paged_ && options_.separate_prefill_tokens > 0) {
    const int threads = options_.separate_prefill_threads > 0
                            ? options_.separate_prefill_threads
                            : std::max(1, ThreadPool::defaultThreads() / 2);
    if (auto spawned = session_->spawn(context_, threads)) {
      worker_ = std::make_unique<PrefillWorker>(std::move(spawned), kSeparatePrefillChunk, [this] {
        {
          std::lock_guard lock(mutex_);
          shared_.separate_ended = true;
        }
        work_.notify_all();
      });
      options_.separate_prefill_threads = threads;
    }
  }
  if (!worker_) {  // off, or a backend without the means (the steps take every prompt)
    options_.separate_prefill_tokens = 0;
    options_.separate_prefill_threads = 0;
  }
  shared_.metrics.kv_blocks_total = options_.kv_blocks;
  shared_.metrics.kv_bytes_total =
      static_cast<uint64_t>(options_.kv_blocks) * session_->kvBlockBytes();
  thread_ = std::thread([this] { loop(); });
}

// Counts a caller in for its whole call: declared first, it leaves last (the scheduler may be
// destroyed the moment the count reaches 0).
struct Scheduler::Inside {
  Scheduler& s;
  explicit Inside(Scheduler& scheduler) : s(scheduler) {
    std::lock_guard lock(s.mutex_);
    ++s.shared_.callers;
  }
  ~Inside() {
    std::lock_guard lock(s.mutex_);
    --s.shared_.callers;
    s.progress_.notify_all();
  }
  Inside(const Inside&) = delete;
  Inside& operator=(const Inside&) = delete;
};

Scheduler::~Scheduler() {
  {
    std::lock_guard lock(mutex_);
    shared_.stop = true;
  }
  work_.notify_all();
  progress_.notify_all();
  thread_.join();
  std::unique_lock lock(mutex_);  // the callers the stop woke leave
  progress_.wait(lock, [&] { return shared_.callers == 0; });
}

void Scheduler::onStep(std::function<void(const StepRecord&)> fn) {
  std::lock_guard lock(mutex_);
  shared_.on_step = std::move(fn);
}

SchedulerMetrics Scheduler::metrics() const {
  std::lock_guard lock(mutex_);
  SchedulerMetrics m = shared_.metrics;
  m.exclusive_waiting = shared_.exclusive_waiting;
  return m;
}

bool Scheduler::fits(int prompt) const {
  return prompt > 0 && prompt < context_ &&
         (!paged_ || blocksFor(prompt + 1) <= options_.kv_blocks);
}

Result<GenerationOutcome> Scheduler::generate(
    const ScheduledRequest& request, const std::function<bool(const GeneratedToken&)>& on_token) {
  const Inside inside(*this);
  const int prompt = static_cast<int>(request.prompt.size());
  if (prompt == 0 || request.max_tokens <= 0) {
    GenerationOutcome out;
    out.finish = "length";
    return out;
  }
  if (prompt >= context_)
    return fail("the prompt has " + std::to_string(prompt) + " tokens; a sequence holds " +
                std::to_string(context_) + " positions (prompt and answer together)");
  if (!fits(prompt))
    return fail("the prompt needs " + std::to_string(blocksFor(prompt + 1)) + " KV blocks of " +
                std::to_string(kKvBlock) + " positions; the pool holds " +
                std::to_string(options_.kv_blocks));
  auto s = std::make_shared<Sequence>(request.sampling);
  s->tokens = request.prompt;
  s->prompt_size = prompt;
  s->max_tokens = request.max_tokens;
  s->submitted = Clock::now();
  s->cancel = request.cancel;
  s->chat = request.chat;
  s->user_token = request.user_token;
  std::unique_lock lock(mutex_);
  if (shared_.stop) {
    GenerationOutcome out;
    out.finish = "cancelled";
    return out;
  }
  s->order = shared_.next_order++;
  s->queued = true;
  shared_.waiting.push_back(s);
  shared_.metrics.waiting = static_cast<int>(shared_.waiting.size());  // running: the loop's
  work_.notify_all();
  const auto ready = [&] { return !s->out.empty() || s->done; };
  while (true) {
    if (s->queued) {  // nothing wakes it when the flag is set: it looks now and then
      progress_.wait_for(lock, kCancelPoll, ready);
      if (s->queued && s->cancelled()) dropWaiting(s, "cancelled");
    } else {  // running: the step after the flag ends it; preempted: it polls again
      progress_.wait(lock, [&] { return ready() || s->queued; });
    }
    while (!s->out.empty()) {
      const GeneratedToken token = std::move(s->out.front());
      s->out.pop_front();
      if (s->stopped_reading) continue;
      lock.unlock();
      const bool go_on = on_token(token);
      lock.lock();
      if (go_on) continue;
      s->stopped_reading = true;
      if (s->queued) dropWaiting(s, "cancelled");  // preempted: it leaves now
    }
    if (s->done) break;
  }
  if (!s->error.empty()) return fail(s->error);
  GenerationOutcome out = std::move(s->outcome);
  if (s->stopped_reading || out.finish == "cancelled") out.finish = "cancelled";
  return out;
}

void Scheduler::failWaiting(const std::shared_ptr<Sequence>& s, const std::string& error) {
  std::lock_guard lock(mutex_);
  if (!s->queued) return;  // its caller cancelled it meanwhile: it ends as cancelled
  s->error = error;
  dropWaiting(s, "error");
}

void Scheduler::dropWaiting(const std::shared_ptr<Sequence>& s, const std::string& reason) {
  std::erase(shared_.waiting, s);
  s->queued = false;
  s->outcome.finish = reason;
  s->done = true;
  ++shared_.metrics.requests_finished;
  shared_.metrics.waiting = static_cast<int>(shared_.waiting.size());
  progress_.notify_all();
}

Result<bool> Scheduler::exclusive(const std::function<void(DecodeSession&)>& fn,
                                  const std::atomic<bool>* cancel) {
  return exclusiveKeeping(
      [&](DecodeSession& session, std::vector<int>& held) {
        held.clear();  // fn may change the cache in any way: nothing is known of it after
        session.truncate(0);
        fn(session);
      },
      cancel);
}

Result<bool> Scheduler::exclusiveKeeping(
    const std::function<void(DecodeSession&, std::vector<int>& held)>& fn,
    const std::atomic<bool>* cancel) {
  const Inside inside(*this);
  std::unique_lock lock(mutex_);
  ++shared_.exclusive_waiting;
  const auto free = [&] {
    return shared_.stop ||
           (!shared_.stepping && shared_.metrics.running == 0 && !shared_.exclusive_held);
  };
  while (!free()) {
    if (cancel && cancel->load()) {
      --shared_.exclusive_waiting;
      work_.notify_all();  // admission may go on
      return false;
    }
    progress_.wait_for(lock, kCancelPoll, free);
  }
  --shared_.exclusive_waiting;
  if (shared_.stop) return fail("the model's scheduler stopped (the model was unloaded)");
  shared_.exclusive_held = true;
  lock.unlock();
  struct Release {  // however fn ends
    Scheduler* s;
    ~Release() {
      {
        std::lock_guard lock(s->mutex_);
        s->shared_.exclusive_held = false;
      }
      s->work_.notify_all();
      s->progress_.notify_all();  // the next exclusive caller
    }
  } release{this};
  std::vector<int>& held = paged_ ? exclusive_held_ : held_;
  try {
    fn(*session_, held);
  } catch (...) {  // what the cache holds is unknown now
    held.clear();
    if (!replaceFailedSession()) session_->truncate(0);
    throw;
  }
  if (session_->failed()) {  // fn's failure came back as a value (engine::generate's)
    held.clear();
    replaceFailedSession();
  }
  return true;
}

bool Scheduler::replaceFailedSession() {
  if (!session_->failed()) return false;
  held_.clear();
  exclusive_held_.clear();
  // Only unpaged sessions fail so (CUDA); a paged pool's blocks would need rebuilding.
  if (!options_.reopen || paged_) return true;
  // The failed session goes first: a device rarely holds two sessions of one model.
  const int vocab = session_->vocab();
  session_.reset();
  std::string why;
  try {  // never leaves session_ empty, nor throws out of the loop's handler
    auto fresh = options_.reopen();
    if (fresh)
      session_ = std::move(fresh.value());
    else
      why = fresh.error();
  } catch (const std::exception& e) {
    why = e.what();
  }
  if (!session_) {
    session_ = std::make_unique<UnopenedSession>(
        vocab, context_, "the session failed and could not be opened again: " + why);
    return true;
  }
  std::lock_guard lock(mutex_);
  ++shared_.metrics.sessions_reopened;
  return true;
}

void Scheduler::loop() {
  while (true) {
    {
      std::unique_lock lock(mutex_);
      // Idle while nothing runs, or while an exclusive caller waits for or has the session,
      // or while what waits can only wait (for the busy prefill worker, for a place).
      work_.wait(lock, [&] {
        const bool admissible =
            shared_.exclusive_waiting == 0 && !shared_.exclusive_held &&
            static_cast<int>(running_.size()) + (separate_ ? 1 : 0) < options_.max_running &&
            std::any_of(shared_.waiting.begin(), shared_.waiting.end(),
                        [](const auto& s) { return !s->parked; });
        return shared_.stop || !running_.empty() || shared_.separate_ended || separate_computed_ ||
               admissible;
      });
      if (shared_.stop) break;
      shared_.stepping = true;
    }
    struct Stepped {  // the exclusive callers wait for the step's end
      Scheduler* s;
      ~Stepped() {
        {
          std::lock_guard lock(s->mutex_);
          s->shared_.stepping = false;
        }
        s->progress_.notify_all();
      }
    };
    Stepped stepped{this};
    try {
      step();
    } catch (const std::bad_alloc&) {  // memory ran out in the pass: every request of it
      failRunning(outOfMemory("for a pass of " + std::to_string(running_.size()) +
                              (running_.size() == 1 ? " sequence" : " sequences"))
                      .message);
    } catch (const std::exception& e) {  // the pass failed (the device's message): the same
      // A failed session is replaced first, so the failed requests' callers find it counted.
      replaceFailedSession();
      failRunning(e.what());
    }
  }
  // Stopping: nothing more runs; every request ends as cancelled. The prefill worker stops
  // within its chunk under way.
  if (worker_) worker_->requestStop();
  for (const auto& s : std::vector(running_)) finish(s, "cancelled");
  {
    std::lock_guard lock(mutex_);
    for (const auto& s : std::vector(shared_.waiting.begin(), shared_.waiting.end()))
      dropWaiting(s, "cancelled");
  }
  worker_.reset();  // joins it (its end calls back under mutex_: not held here)
  if (separate_) {
    const std::shared_ptr<Sequence> s = std::move(separate_);
    separate_.reset();
    separate_computed_ = false;
    finish(s, "cancelled");
  }
  std::lock_guard lock(mutex_);
  shared_.stepping = false;
  progress_.notify_all();
}

void Scheduler::failRunning(const std::string& message) {
  for (const auto& s : std::vector(running_)) {
    {
      std::lock_guard lock(mutex_);
      s->error = message;
    }
    finish(s, "error");
  }
}

void Scheduler::step() {
  collectSeparate();
  admit();
  dropCancelled();
  if (running_.empty()) return;
  std::vector<Item> items = budget();
  if (paged_) allocate(items);
  if (items.empty()) return;
  StepRecord record;
  const std::span<const float> logits = forward(items, record);
  publish(items, logits, record);
}

std::optional<int> Scheduler::place(Sequence& s) {
  // What is already computed of its tokens: at most all but the last (whose logits the
  // next token is sampled from).
  const int limit = static_cast<int>(s.tokens.size()) - 1;
  if (!paged_) {
    int computed = 0;
    while (computed < limit && computed < static_cast<int>(held_.size()) &&
           held_[computed] == s.tokens[computed])
      ++computed;
    session_->truncate(computed);
    held_.resize(computed);
    return computed;
  }
  int copy_from = -1;
  const int computed = blocks_.share(s.tokens, limit, s.table, copy_from);
  struct Unhold {  // the block copied from is held until the copy is made (or not)
    KvBlockManager& blocks;
    int block;
    ~Unhold() {
      if (block >= 0) blocks.unhold(block);
    }
  } unhold{blocks_, copy_from};
  // Room: free or cached blocks for its whole prompt beyond one block per running
  // sequence, so that a newcomer does not force the preemption of another at once.
  const int needed = blocksFor(limit + 2) - static_cast<int>(s.table.size());
  const int room = blocks_.free() + blocks_.cached() - static_cast<int>(running_.size());
  if (!running_.empty() && needed > room) {
    blocks_.release(s.table);
    return std::nullopt;
  }
  try {
    session_->allocateKvBlocks(s.table);
    if (copy_from >= 0) session_->copyKvBlock(copy_from, s.table.back());
  } catch (...) {  // rolled back: it holds no block while it waits
    if (copy_from >= 0) blocks_.noteUnallocated({&s.table.back(), 1});  // the fresh one
    blocks_.release(s.table);
    throw;
  }
  return computed;
}

void Scheduler::admit() {
  {  // cancelled while waiting: they leave first, whatever their place in line
    std::lock_guard lock(mutex_);
    for (const auto& s : std::vector(shared_.waiting.begin(), shared_.waiting.end()))
      if (s->cancelled()) dropWaiting(s, "cancelled");
    for (const auto& s : shared_.waiting) s->parked = false;
  }
  // In arrival order while there is room; a long prompt for the prefill worker while it is
  // busy keeps its place, and the ones behind it go on. None while the worker's last
  // sequence waits for its blocks (it has them first).
  size_t passed = 0;  // long prompts passed over
  while (true) {
    std::shared_ptr<Sequence> s;
    {
      std::lock_guard lock(mutex_);
      const int running = static_cast<int>(running_.size()) + (separate_ ? 1 : 0);
      if (running >= options_.max_running || shared_.waiting.size() <= passed ||
          shared_.exclusive_waiting > 0 || shared_.exclusive_held || separate_computed_)
        break;
      s = shared_.waiting[passed];
    }
    if (worker_) {
      int cached = 0;
      std::vector<int> prefix;
      if (separately(*s, cached, prefix)) {
        if (!separate_) {
          handOff(s, cached, prefix);
        } else {
          std::lock_guard lock(mutex_);
          s->parked = true;
          ++passed;
        }
        continue;
      }
    }
    std::optional<int> computed;
    try {
      computed = place(*s);
    } catch (const std::bad_alloc&) {  // memory ran out for its blocks
      if (shortOfMemory()) continue;   // placed again, from blocks used before
      if (!running_.empty()) break;    // others will free some: it tries again later
      failWaiting(s, "no memory left for the KV cache of the prompt (" +
                         std::to_string(session_->kvCacheBytes() >> 20) +
                         " MiB allocated): " + kOutOfMemoryAdvice);
      continue;
    } catch (const std::exception& e) {  // it alone fails (else it would fail every step)
      failWaiting(s, e.what());
      continue;
    }
    if (!computed) break;  // no room until a running sequence gives blocks back
    std::lock_guard lock(mutex_);
    if (!s->queued) {  // its caller cancelled it meanwhile
      if (paged_) blocks_.release(s->table);
      continue;
    }
    std::erase(shared_.waiting, s);
    s->queued = false;
    running_.push_back(s);
    s->computed = *computed;
    if (!s->admitted_before) {  // not a preempted sequence computed again
      s->admitted_before = true;
      s->outcome.cached_tokens = *computed;
      shared_.metrics.prompt_tokens += s->prompt_size;
      shared_.metrics.prefix_query_tokens += s->prompt_size;
      shared_.metrics.prefix_hit_tokens += *computed;
    }
  }
  std::lock_guard lock(mutex_);
  countQueues();
}

void Scheduler::dropCancelled() {
  for (const auto& s : std::vector(running_))
    if (s->cancelled()) finish(s, "cancelled");
}

std::vector<Scheduler::Item> Scheduler::budget() {
  // Decoding sequences their next token first, then up to a chunk of prompt tokens within
  // the budget, the oldest prompt first (first come, first served: the first prompt's TTFT
  // does not wait for the others'), or whole prompts; none in this step when the pacer
  // keeps it for the decoding ones.
  std::vector<Item> items;
  int budget = options_.batch_tokens;
  for (const auto& s : running_)
    if (static_cast<int>(s->tokens.size()) - s->computed == 1) {
      items.push_back({s, 1});
      --budget;
    }
  const bool decoding = !items.empty();
  int allowance = !pacer_.allowPrompts(decoding) ? 0
                  : options_.prefill_chunk == 0  ? std::numeric_limits<int>::max()  // whole
                                                 : std::min(options_.prefill_chunk, budget);
  for (const auto& s : running_) {
    const int pending = static_cast<int>(s->tokens.size()) - s->computed;
    if (pending <= 1) continue;
    const int n = std::min(pending, allowance);
    if (n <= 0) break;
    items.push_back({s, n});
    allowance -= n;
  }
  return items;
}

bool Scheduler::shortOfMemory() {
  if (short_of_memory_) return false;
  short_of_memory_ = true;
  blocks_.preferUsedBlocks();
  return true;
}

bool Scheduler::allocated(std::vector<int>& table, size_t from) {
  try {
    session_->allocateKvBlocks(std::span<const int>(table).subspan(from));
    return true;
  } catch (const std::bad_alloc&) {
    blocks_.noteUnallocated(std::span<const int>(table).subspan(from));
    blocks_.releaseFrom(table, from);
    return false;
  }
}

void Scheduler::allocate(std::vector<Item>& items) {
  // Blocks for every item; when the pool (or memory) runs out, the newest running sequence
  // gives its blocks back and waits to be computed again.
  for (size_t i = 0; i < items.size();) {
    Sequence& s = *items[i].s;
    const size_t had = s.table.size();
    const bool covered = blocks_.cover(s.table, s.computed + items[i].n);
    if (covered && allocated(s.table, had)) {
      ++i;
      continue;
    }
    if (covered && shortOfMemory()) continue;  // again, from blocks used before
    if (running_.size() == 1) {  // alone and still too long for the pool, or for memory
      const bool ends = covered || s.generated == 0;  // else: the answer stops here
      if (ends) {
        std::lock_guard lock(mutex_);
        s.error = covered ? "no memory left for the KV cache (" +
                                std::to_string(session_->kvCacheBytes() >> 20) +
                                " MiB allocated): " + kOutOfMemoryAdvice
                          : "the prompt needs more KV blocks than the pool's " +
                                std::to_string(blocks_.total());
      }
      finish(items[i].s, ends ? "error" : "length");
      items.erase(items.begin() + static_cast<std::ptrdiff_t>(i));
      continue;
    }
    const std::shared_ptr<Sequence> newest = preemptNewest();
    const auto at = std::find_if(items.begin(), items.end(),
                                 [&](const Item& item) { return item.s == newest; });
    if (at != items.end()) {
      if (at - items.begin() < static_cast<std::ptrdiff_t>(i)) --i;
      items.erase(at);
    }
  }
}

std::span<const float> Scheduler::forward(const std::vector<Item>& items, StepRecord& record) {
  std::vector<SequencePass> passes;
  int tokens = 0, prefill = 0;
  for (const Item& item : items) {
    passes.push_back({std::span<const int>(item.s->tokens).subspan(item.s->computed, item.n),
                      item.s->computed, item.s->table, false});
    tokens += item.n;
    if (item.n > 1 || item.s->generated == 0) prefill += item.n;
  }
  const bool decoding = std::any_of(items.begin(), items.end(), [](const Item& item) {
    return static_cast<int>(item.s->tokens.size()) - item.s->computed == 1;
  });
  const auto t0 = Clock::now();
  const std::span<const float> logits =
      paged_ ? session_->forwardSequences(passes)
             : session_->forwardBatch(passes[0].tokens, passes[0].pos, false);
  const auto t1 = Clock::now();
  pacer_.stepped(decoding, prefill > 0, msBetween(t0, t1));
  record = {t1, std::chrono::duration<double>(t1 - t0).count(), static_cast<int>(items.size()),
            tokens, prefill};
  // The step's figures before its tokens go out: a caller handed its last token may read
  // the metrics at once, and they must count the step that made it.
  std::lock_guard lock(mutex_);
  ++shared_.metrics.steps;
  shared_.metrics.step_seconds.observe(record.seconds);
  shared_.metrics.step_tokens.observe(tokens);
  shared_.metrics.step_sequences.observe(record.sequences);
  return logits;
}

void Scheduler::publish(const std::vector<Item>& items, std::span<const float> logits,
                        const StepRecord& record) {
  const size_t vocab = session_->vocab();
  for (size_t k = 0; k < items.size(); ++k) {
    Sequence& s = *items[k].s;
    const int before = s.computed;
    s.computed += items[k].n;
    if (paged_ && s.computed / kKvBlock > before / kKvBlock)
      blocks_.publish(s.tokens, s.computed, s.table);
    if (!paged_) held_.assign(s.tokens.begin(), s.tokens.begin() + s.computed);
    if (s.computed < static_cast<int>(s.tokens.size())) continue;  // more prompt to come
    if (const std::string ended =
            advance(s, logits.subspan(k * vocab, vocab), static_cast<int>(items.size()));
        !ended.empty())
      finish(items[k].s, ended);
  }
  std::function<void(const StepRecord&)> on_step;
  {
    std::lock_guard lock(mutex_);
    countQueues();
    on_step = shared_.on_step;
  }
  if (on_step) on_step(record);
}

void Scheduler::countQueues() {
  SchedulerMetrics& m = shared_.metrics;
  m.running = static_cast<int>(running_.size()) + (separate_ ? 1 : 0);
  m.separate_prefilling = separate_ ? 1 : 0;
  m.waiting = static_cast<int>(shared_.waiting.size());
  m.kv_blocks_used = blocks_.held();
  m.kv_blocks_cached = blocks_.cached();
  m.kv_bytes = session_->kvCacheBytes();
}

void Scheduler::finish(const std::shared_ptr<Sequence>& s, const std::string& reason) {
  if (paged_) {  // what it computed stays cached for the next request that starts alike
    blocks_.publish(s->tokens, s->computed, s->table);
    blocks_.release(s->table);
  }
  std::erase(running_, s);
  const std::string tail = reason == "cancelled" ? std::string() : s->utf8.flush();
  std::lock_guard lock(mutex_);
  if (!tail.empty()) {
    s->out.push_back({-1, tail});
    s->outcome.text += tail;
  }
  s->outcome.finish = reason;
  s->done = true;
  ++shared_.metrics.requests_finished;
  countQueues();
  progress_.notify_all();
}

std::shared_ptr<Scheduler::Sequence> Scheduler::preemptNewest() {
  const auto newest =
      std::max_element(running_.begin(), running_.end(),
                       [](const auto& a, const auto& b) { return a->order < b->order; });
  std::shared_ptr<Sequence> s = *newest;
  running_.erase(newest);
  blocks_.publish(s->tokens, s->computed, s->table);
  blocks_.release(s->table);
  s->computed = 0;
  std::lock_guard lock(mutex_);
  s->queued = true;
  shared_.waiting.push_front(s);  // first in line again
  ++shared_.metrics.preemptions;
  countQueues();
  progress_.notify_all();  // its caller watches its cancel flag again
  return s;
}

std::string Scheduler::advance(Sequence& s, std::span<const float> logits, int batch) {
  const int id = s.sampler.sample(logits, s.tokens);
  const bool first = s.generated == 0;
  if (endsGeneration(tokenizer_, id, s.chat, s.user_token)) return "stop";
  s.tokens.push_back(id);
  ++s.generated;
  GeneratedToken token{id, s.utf8.push(tokenizer_.displayPiece(id)), false, batch,
                       std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now().time_since_epoch())
                           .count()};
  std::lock_guard lock(mutex_);
  if (first) s.outcome.prefill_ms = msBetween(s.submitted, Clock::now());
  s.outcome.ids.push_back(id);
  s.outcome.text += token.text;
  s.out.push_back(std::move(token));
  ++shared_.metrics.generation_tokens;
  progress_.notify_all();
  // The token just sampled sits at position tokens.size() - 1: past the context it cannot
  // be run.
  const bool more = s.generated < s.max_tokens && static_cast<int>(s.tokens.size()) - 1 < context_;
  return more ? "" : "length";
}

}  // namespace ts::engine
