#include "inference/engine/serving/scheduler.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "inference/engine/decode/sampler.h"
#include "inference/engine/model/kv_cache.h"

namespace ts::engine {

namespace {

using Clock = std::chrono::steady_clock;

double msBetween(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

int blocksFor(int positions) {
  return (positions + kKvBlock - 1) / kKvBlock;
}

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

// One request. The scheduler's thread alone touches the first group; the rest is shared
// with the caller's thread under the scheduler's mutex.
struct Scheduler::Sequence {
  uint64_t order = 0;       // arrival
  std::vector<int> tokens;  // the prompt, then every sampled token
  int prompt_size = 0;
  int max_tokens = 0;
  Sampler sampler;
  Utf8Stream utf8;
  std::vector<int> table;  // paged: its KV blocks
  int computed = 0;        // positions whose KV rows are in its blocks
  int generated = 0;
  bool admitted_before = false;
  Clock::time_point submitted;
  const std::atomic<bool>* cancel = nullptr;  // the caller's flag
  bool chat = false;
  int user_token = kBaichuanUserToken;

  std::deque<GeneratedToken> out;  // not yet handed to the caller
  GenerationOutcome outcome;       // ids, text, finish, cached_tokens, prefill_ms
  std::string error;
  bool done = false;
  std::atomic<bool> cancelled{false};

  explicit Sequence(const SamplingConfig& sampling) : sampler(sampling) {}
};

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
  metrics_.kv_blocks_total = options_.kv_blocks;
  thread_ = std::thread([this] { loop(); });
}

Scheduler::~Scheduler() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  work_.notify_all();
  thread_.join();
}

void Scheduler::onStep(std::function<void(const StepRecord&)> fn) {
  std::lock_guard lock(mutex_);
  on_step_ = std::move(fn);
}

SchedulerMetrics Scheduler::metrics() const {
  std::lock_guard lock(mutex_);
  return metrics_;
}

GenerationOutcome Scheduler::generate(const ScheduledRequest& request,
                                      const std::function<bool(const GeneratedToken&)>& on_token) {
  const int prompt = static_cast<int>(request.prompt.size());
  if (prompt == 0 || request.max_tokens <= 0) {
    GenerationOutcome out;
    out.finish = "length";
    return out;
  }
  if (prompt >= context_)
    throw std::runtime_error("the prompt has " + std::to_string(prompt) +
                             " tokens; a sequence holds " + std::to_string(context_) +
                             " positions (prompt and answer together)");
  if (paged_ && blocksFor(prompt + 1) > options_.kv_blocks)
    throw std::runtime_error("the prompt needs " + std::to_string(blocksFor(prompt + 1)) +
                             " KV blocks of " + std::to_string(kKvBlock) +
                             " positions; the pool holds " + std::to_string(options_.kv_blocks));
  auto s = std::make_shared<Sequence>(request.sampling);
  s->tokens = request.prompt;
  s->prompt_size = prompt;
  s->max_tokens = request.max_tokens;
  s->submitted = Clock::now();
  s->cancel = request.cancel;
  s->chat = request.chat;
  s->user_token = request.user_token;
  std::unique_lock lock(mutex_);
  s->order = next_order_++;
  waiting_.push_back(s);
  metrics_.waiting = static_cast<int>(waiting_.size());  // running_ is the loop's to count
  work_.notify_all();
  bool cancelled = false;
  while (true) {
    progress_.wait(lock, [&] { return !s->out.empty() || s->done; });
    while (!s->out.empty()) {
      const GeneratedToken token = std::move(s->out.front());
      s->out.pop_front();
      if (cancelled) continue;
      lock.unlock();
      const bool go_on = on_token(token);
      lock.lock();
      if (go_on) continue;
      cancelled = true;
      s->cancelled = true;
      // Still waiting: it leaves now; running: the scheduler drops it at the next step.
      if (const auto it = std::find(waiting_.begin(), waiting_.end(), s); it != waiting_.end()) {
        waiting_.erase(it);
        metrics_.waiting = static_cast<int>(waiting_.size());
        ++metrics_.requests_finished;
        s->done = true;
      }
    }
    if (s->done) break;
  }
  if (!s->error.empty()) throw std::runtime_error(s->error);
  GenerationOutcome out = std::move(s->outcome);
  if (cancelled) out.finish = "cancelled";
  return out;
}

void Scheduler::exclusive(const std::function<void(DecodeSession&)>& fn) {
  std::unique_lock lock(mutex_);
  ++exclusive_;
  progress_.wait(lock, [&] { return stop_ || (!stepping_ && metrics_.running == 0); });
  struct Release {  // however fn ends
    Scheduler* s;
    ~Release() {
      {
        std::lock_guard lock(s->mutex_);
        --s->exclusive_;
      }
      s->work_.notify_all();
    }
  } release{this};
  if (stop_) throw std::runtime_error("the scheduler is stopping");
  lock.unlock();
  if (!paged_) {  // the session's cache is about to change under what held_ says
    held_.clear();
    session_->truncate(0);
  }
  fn(*session_);
}

void Scheduler::loop() {
  while (true) {
    {
      std::unique_lock lock(mutex_);
      // Idle while nothing runs, or while an exclusive caller has the session.
      work_.wait(lock, [&] {
        return stop_ || !running_.empty() || (!waiting_.empty() && exclusive_ == 0);
      });
      if (stop_) break;
      stepping_ = true;
    }
    struct Stepped {  // the exclusive callers wait for the step's end
      Scheduler* s;
      ~Stepped() {
        {
          std::lock_guard lock(s->mutex_);
          s->stepping_ = false;
        }
        s->progress_.notify_all();
      }
    };
    Stepped stepped{this};
    try {
      step();
    } catch (const std::exception& e) {  // the pass failed: every running request with it
      const std::string message = std::string("the engine failed: ") + e.what();
      for (const auto& s : std::vector(running_)) {
        {
          std::lock_guard lock(mutex_);
          s->error = message;
        }
        finish(s, "error");
      }
    }
  }
  // Stopping: nothing more runs; every request ends as cancelled.
  for (const auto& s : std::vector(running_)) finish(s, "cancelled");
  std::lock_guard lock(mutex_);
  stepping_ = false;
  for (const auto& s : waiting_) {
    s->done = true;
    s->outcome.finish = "cancelled";
  }
  waiting_.clear();
  progress_.notify_all();
}

void Scheduler::admit() {
  // In arrival order while there is room: a sequence slot, and (paged) free or cached
  // blocks for its whole prompt beyond one block per running sequence, so that a newcomer
  // does not force the preemption of another at once.
  while (true) {
    std::shared_ptr<Sequence> s;
    {
      std::lock_guard lock(mutex_);
      if (static_cast<int>(running_.size()) >= options_.max_running || waiting_.empty() ||
          exclusive_ > 0)
        break;
      s = waiting_.front();
    }
    if (s->cancel && s->cancel->load()) {
      {
        std::lock_guard lock(mutex_);
        std::erase(waiting_, s);
      }
      finish(s, "cancelled");
      continue;
    }
    // What is already computed of its tokens: at most all but the last (whose logits the
    // next token is sampled from).
    const int limit = static_cast<int>(s->tokens.size()) - 1;
    int computed = 0;
    if (paged_) {
      int copy_from = -1;
      computed = blocks_.share(s->tokens, limit, s->table, copy_from);
      const int needed = blocksFor(limit + 2) - static_cast<int>(s->table.size());
      const int room = blocks_.free() + blocks_.cached() - static_cast<int>(running_.size());
      if (copy_from >= 0) {
        if (running_.empty() || needed <= room) session_->copyKvBlock(copy_from, s->table.back());
        blocks_.unhold(copy_from);
      }
      if (!running_.empty() && needed > room) {
        blocks_.release(s->table);
        break;
      }
    } else {
      while (computed < limit && computed < static_cast<int>(held_.size()) &&
             held_[computed] == s->tokens[computed])
        ++computed;
      session_->truncate(computed);
      held_.resize(computed);
    }
    std::lock_guard lock(mutex_);
    const auto at = std::find(waiting_.begin(), waiting_.end(), s);
    if (at == waiting_.end()) {  // its caller cancelled it meanwhile
      if (paged_) blocks_.release(s->table);
      continue;
    }
    waiting_.erase(at);
    running_.push_back(s);
    s->computed = computed;
    if (!s->admitted_before) {  // not a preempted sequence computed again
      s->admitted_before = true;
      s->outcome.cached_tokens = computed;
      metrics_.prompt_tokens += s->prompt_size;
      metrics_.prefix_query_tokens += s->prompt_size;
      metrics_.prefix_hit_tokens += computed;
    }
  }
  std::lock_guard lock(mutex_);
  countQueues();
}

void Scheduler::countQueues() {
  metrics_.running = static_cast<int>(running_.size());
  metrics_.waiting = static_cast<int>(waiting_.size());
  metrics_.kv_blocks_used = blocks_.held();
  metrics_.kv_blocks_cached = blocks_.cached();
}

void Scheduler::finish(const std::shared_ptr<Sequence>& s, const std::string& reason) {
  if (paged_) {  // what it computed stays cached for the next request that starts alike
    blocks_.publish(s->tokens, s->computed, s->table);
    blocks_.release(s->table);
  }
  running_.erase(std::remove(running_.begin(), running_.end(), s), running_.end());
  const std::string tail = reason == "cancelled" ? std::string() : s->utf8.flush();
  std::lock_guard lock(mutex_);
  if (!tail.empty()) {
    s->out.push_back({-1, tail});
    s->outcome.text += tail;
  }
  s->outcome.finish = reason;
  s->done = true;
  ++metrics_.requests_finished;
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
  waiting_.push_front(s);  // first in line again
  ++metrics_.preemptions;
  countQueues();
  return s;
}

std::string Scheduler::advance(Sequence& s, std::span<const float> logits, int batch) {
  const int id = s.sampler.sample(logits, s.tokens);
  const bool first = s.generated == 0;
  if (endsGeneration(tokenizer_, id, s.chat, s.user_token)) return "stop";
  s.tokens.push_back(id);
  ++s.generated;
  GeneratedToken token{id, s.utf8.push(tokenizer_.piece(id)), false, batch};
  std::lock_guard lock(mutex_);
  if (first) s.outcome.prefill_ms = msBetween(s.submitted, Clock::now());
  s.outcome.ids.push_back(id);
  s.outcome.text += token.text;
  s.out.push_back(std::move(token));
  ++metrics_.generation_tokens;
  progress_.notify_all();
  // The token just sampled sits at position tokens.size() - 1: past the context it cannot
  // be run.
  const bool more = s.generated < s.max_tokens && static_cast<int>(s.tokens.size()) - 1 < context_;
  return more ? "" : "length";
}

void Scheduler::step() {
  admit();
  for (const auto& s : std::vector(running_))
    if (s->cancelled || (s->cancel && s->cancel->load())) finish(s, "cancelled");
  if (running_.empty()) return;

  // The step's share of each sequence: decoding ones their next token first, then up to a
  // chunk of prompt tokens within the budget, the oldest prompt first (first come, first
  // served: the first prompt's TTFT does not wait for the others'), or whole prompts;
  // none in this step when the pacer keeps it for the decoding ones.
  struct Item {
    std::shared_ptr<Sequence> s;
    int n;
  };
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
  if (paged_) {
    // Blocks for every item; when the pool runs out, the newest running sequence gives
    // its blocks back and waits to be computed again.
    for (size_t i = 0; i < items.size();) {
      Sequence& s = *items[i].s;
      if (blocks_.cover(s.table, s.computed + items[i].n)) {
        ++i;
        continue;
      }
      if (running_.size() == 1) {  // alone and still too long for the pool
        if (s.generated == 0) {
          std::lock_guard lock(mutex_);
          s.error =
              "the prompt needs more KV blocks than the pool's " + std::to_string(blocks_.total());
        }
        finish(items[i].s, s.generated > 0 ? "length" : "error");
        items.erase(items.begin() + i);
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
  if (items.empty()) return;

  std::vector<SequencePass> passes;
  int tokens = 0, prefill = 0;
  for (const Item& item : items) {
    passes.push_back({std::span<const int>(item.s->tokens).subspan(item.s->computed, item.n),
                      item.s->computed, item.s->table, false});
    tokens += item.n;
    if (item.n > 1 || item.s->generated == 0) prefill += item.n;
  }
  const auto t0 = Clock::now();
  std::span<const float> logits =
      paged_ ? session_->forwardSequences(passes)
             : session_->forwardBatch(passes[0].tokens, passes[0].pos, false);
  const auto t1 = Clock::now();
  pacer_.stepped(decoding, prefill > 0, msBetween(t0, t1));
  // The step's figures first: a caller handed its last token below may read the metrics
  // at once, and they must count the step that made it.
  const StepRecord record{t1, std::chrono::duration<double>(t1 - t0).count(),
                          static_cast<int>(items.size()), tokens, prefill};
  {
    std::lock_guard lock(mutex_);
    ++metrics_.steps;
    metrics_.step_seconds.observe(record.seconds);
    metrics_.step_tokens.observe(tokens);
    metrics_.step_sequences.observe(record.sequences);
  }
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
    on_step = on_step_;
  }
  if (on_step) on_step(record);
}

}  // namespace ts::engine
