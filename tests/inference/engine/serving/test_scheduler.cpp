// The serving scheduler against one generation at a time: at temperature 0 (and with a
// seed at temperature 0.8) every request of a batch produces exactly the ids it produces
// alone on a fresh session, whatever its neighbours, the prefill chunk (1, 7, 64, whole)
// and the KV format; a shared prompt prefix is computed once and counted; a tiny block
// pool preempts and evicts without losing a request or changing an output; cancellation
// before and after the first token gives every block back; many concurrent streams get
// exactly their tokens. What cannot run comes back as an error value, never a throw: a prompt
// too long for the pool or the context, memory running out at admission, an exclusive caller
// waiting when the scheduler stops. A session that fails as a device does is reopened
// for the next request. A random llama-tiny-shape model (GQA), so no fixture is needed.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "inference/engine/cpu/cpu_forward.h"
#include "inference/engine/decode/generator.h"
#include "inference/engine/model/random_model.h"
#include "inference/engine/serving/scheduler.h"
#include "tests/inference/engine/check.h"
#include "tests/inference/engine/expect_error.h"

using namespace ts::engine;
using ts::testing::check;
using ts::testing::join;
using ts::testing::valueOf;

namespace {

constexpr int kContext = 512;

std::vector<int> promptOf(int n, unsigned seed, int vocab) {
  std::mt19937 rng(seed);
  std::vector<int> p(n);
  for (int& t : p) t = 3 + static_cast<int>(rng() % (vocab - 3));  // no BOS / EOS
  return p;
}

// One generation on a fresh session: what the scheduler must reproduce.
std::vector<int> alone(const std::shared_ptr<const Model>& model, KvFormat kv,
                       const Tokenizer& tokenizer, const ScheduledRequest& r) {
  CpuSession session(model, kContext, kv, 1);
  GenerateOptions o;
  o.max_tokens = r.max_tokens;
  o.sampling = r.sampling;
  return valueOf(
             generate(session, tokenizer, r.prompt, o, [](const GeneratedToken&) { return true; }),
             "a lone run")
      .ids;
}

struct Run {
  ScheduledRequest request;
  GenerationOutcome out;
  std::vector<int> streamed;  // the ids on_token saw
  std::string error;
};

// Every run at once, a thread each (they join the scheduler in whatever order).
void runAll(Scheduler& scheduler, std::vector<Run>& runs) {
  std::vector<std::thread> threads;
  for (Run& run : runs)
    threads.emplace_back([&scheduler, &run] {
      auto out = scheduler.generate(run.request, [&](const GeneratedToken& t) {
        if (t.id >= 0) run.streamed.push_back(t.id);
        return true;
      });
      if (out)
        run.out = std::move(out.value());
      else
        run.error = out.error();
    });
  for (auto& t : threads) t.join();
}

// Runs `request` on a thread of its own, counting its tokens in `seen` as they come (an
// error: a FAIL line and an empty outcome).
std::thread generating(Scheduler& scheduler, const ScheduledRequest& request,
                       GenerationOutcome& out, std::atomic<int>& seen) {
  return std::thread([&scheduler, &request, &out, &seen] {
    out = valueOf(scheduler.generate(request,
                                     [&seen](const GeneratedToken&) {
                                       ++seen;
                                       return true;
                                     }),
                  "a request on its own thread");
  });
}

// One request to its end, on the calling thread, tokens unread (an error: a FAIL line).
GenerationOutcome answer(Scheduler& scheduler, const ScheduledRequest& request) {
  return valueOf(scheduler.generate(request, [](const GeneratedToken&) { return true; }),
                 "a request");
}

std::unique_ptr<CpuSession> session(const std::shared_ptr<const Model>& model, KvFormat kv) {
  return std::make_unique<CpuSession>(model, kContext, kv, 2);
}

// A CPU session whose prompt tokens cost 1 ms each on top (a machine where prefill is
// slow next to a decode step, as on 2 CPU threads): pacing then has something to spread.
class SlowPromptSession : public DecodeSession {
 public:
  explicit SlowPromptSession(std::unique_ptr<CpuSession> inner) : inner_(std::move(inner)) {}
  std::span<const float> forwardBatch(std::span<const int> tokens, int pos, bool all) override {
    return inner_->forwardBatch(tokens, pos, all);
  }
  void truncate(int length) override { inner_->truncate(length); }
  int vocab() const override { return inner_->vocab(); }
  int maxPositions() const override { return inner_->maxPositions(); }
  bool usePagedKv(int blocks) override { return inner_->usePagedKv(blocks); }
  std::span<const float> forwardSequences(std::span<const SequencePass> passes) override {
    size_t prompt = 0;
    for (const SequencePass& p : passes)
      if (p.tokens.size() > 1) prompt += p.tokens.size();
    std::this_thread::sleep_for(std::chrono::milliseconds(prompt));
    return inner_->forwardSequences(passes);
  }
  void copyKvBlock(int from, int to) override { inner_->copyKvBlock(from, to); }

 private:
  std::unique_ptr<CpuSession> inner_;
};

// A CPU session with paged KV whose passes wait while the gate is closed: holds the
// scheduler's loop inside a step, so that what happens meanwhile is seen without timing.
class GatedSession : public DecodeSession {
 public:
  explicit GatedSession(std::unique_ptr<CpuSession> inner) : inner_(std::move(inner)) {}
  std::span<const float> forwardBatch(std::span<const int> tokens, int pos, bool all) override {
    return inner_->forwardBatch(tokens, pos, all);
  }
  void truncate(int length) override { inner_->truncate(length); }
  int vocab() const override { return inner_->vocab(); }
  int maxPositions() const override { return inner_->maxPositions(); }
  bool usePagedKv(int blocks) override { return inner_->usePagedKv(blocks); }
  std::span<const float> forwardSequences(std::span<const SequencePass> passes) override {
    {
      std::unique_lock lock(mutex_);
      ++entered_;
      changed_.notify_all();
      changed_.wait(lock, [&] { return open_; });
    }
    return inner_->forwardSequences(passes);
  }
  void copyKvBlock(int from, int to) override { inner_->copyKvBlock(from, to); }
  void allocateKvBlocks(std::span<const int> blocks) override { inner_->allocateKvBlocks(blocks); }
  void open() {
    std::lock_guard lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }
  void waitEntered() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return entered_ > 0; });
  }

 private:
  std::unique_ptr<CpuSession> inner_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool open_ = false;
  int entered_ = 0;
};

// An unpaged session (as the CUDA one) whose pass number `fail_at` fails as a device fault
// does, after which it has failed() and refuses every pass (the plugin's session does so).
class FaultingSession : public DecodeSession {
 public:
  FaultingSession(std::unique_ptr<CpuSession> inner, int fail_at)
      : inner_(std::move(inner)), fail_at_(fail_at) {}
  std::span<const float> forwardBatch(std::span<const int> tokens, int pos, bool all) override {
    if (failed_) throw std::runtime_error("CUDA: this session failed earlier");
    if (++passes_ == fail_at_) {
      failed_ = true;
      throw std::runtime_error("CUDA: an illegal memory access was encountered");
    }
    return inner_->forwardBatch(tokens, pos, all);
  }
  void truncate(int length) override {
    if (failed_) throw std::runtime_error("CUDA: this session failed earlier");
    inner_->truncate(length);
  }
  int vocab() const override { return inner_->vocab(); }
  int maxPositions() const override { return inner_->maxPositions(); }
  bool failed() const override { return failed_; }

 private:
  std::unique_ptr<CpuSession> inner_;
  int fail_at_, passes_ = 0;
  bool failed_ = false;
};

// The pacer alone, on modelled step times: decoding steps of decode_ms, steps with a chunk
// chunk_ms longer; prompts always waiting. Returns the average step time and the share of
// steps that carried a chunk.
std::pair<double, double> paced(double target, double decode_ms, double chunk_ms) {
  PromptPacer pacer(target);
  double total = 0;
  int chunks = 0;
  const int steps = 1000;
  for (int i = 0; i < steps; ++i) {
    const bool prompts = pacer.allowPrompts(true);
    const double ms = decode_ms + (prompts ? chunk_ms : 0);
    pacer.stepped(true, prompts, ms);
    total += ms;
    chunks += prompts;
  }
  return {total / steps, static_cast<double>(chunks) / steps};
}

// The model every case runs on: a random llama-tiny shape (GQA), int8 weights.
struct Fixture {
  ModelConfig config;
  std::shared_ptr<const Model> model;
  int vocab = 0;
  Tokenizer tokenizer{Vocabulary{}};
};

// 1. Batches equal lone runs: mixed prompt lengths, joins while others run, every chunk
// size and KV format; two requests sample at temperature 0.8 with their own seeds.
void batchesEqualLoneRuns(const Fixture& f) {
  for (KvFormat kv : {KvFormat::F32, KvFormat::F16, KvFormat::Int8}) {
    std::vector<ScheduledRequest> requests;
    int i = 0;
    for (int length : {1, 9, 40, 77, 130}) {
      ScheduledRequest r;
      r.prompt = promptOf(length, 100 + i, f.vocab);
      r.max_tokens = 10;
      if (i % 2 == 1) r.sampling = {0.8f, 0, 1.f, 1.f, 1000u + i};
      requests.push_back(r);
      ++i;
    }
    std::vector<std::vector<int>> expected;
    for (const auto& r : requests) expected.push_back(alone(f.model, kv, f.tokenizer, r));
    for (int chunk : {1, 7, 64, 0}) {
      SchedulerOptions o;
      o.max_running = 3;  // five requests: two join as others finish
      o.batch_tokens = 64;
      o.prefill_chunk = chunk;
      Scheduler scheduler(session(f.model, kv), f.tokenizer, o);
      std::vector<Run> runs;
      for (const auto& r : requests) runs.push_back({r, {}, {}, {}});
      runAll(scheduler, runs);
      bool same = true;
      std::string detail;
      for (size_t k = 0; k < runs.size(); ++k)
        if (runs[k].out.ids != expected[k] || runs[k].streamed != expected[k]) {
          same = false;
          detail += " request " + std::to_string(k) + ": " + join(runs[k].out.ids) + " vs " +
                    join(expected[k]) + runs[k].error;
        }
      const auto m = scheduler.metrics();
      check(same, "KV " + kvFormatName(kv) + ", chunk " + std::to_string(chunk) +
                      ": five requests batched produce their lone ids" + detail);
      check(m.kv_blocks_used == 0 && m.running == 0 && m.requests_finished == 5,
            "KV " + kvFormatName(kv) + ", chunk " + std::to_string(chunk) +
                ": every block given back (" + std::to_string(m.kv_blocks_used) + " held)");
    }
  }
}

// 2. A shared 300-token prefix: the second request computes only what follows it (nine
// whole blocks shared, the tenth copied for its 12 shared positions), and its answer is
// the unshared one.
void sharedPrefixIsComputedOnce(const Fixture& f) {
  const std::vector<int> shared = promptOf(300, 7, f.vocab);
  ScheduledRequest a, b;
  a.prompt = b.prompt = shared;
  const auto tail_a = promptOf(20, 8, f.vocab), tail_b = promptOf(25, 9, f.vocab);
  a.prompt.insert(a.prompt.end(), tail_a.begin(), tail_a.end());
  b.prompt.insert(b.prompt.end(), tail_b.begin(), tail_b.end());
  a.max_tokens = b.max_tokens = 8;
  SchedulerOptions o;
  o.prefill_chunk = 64;
  Scheduler scheduler(session(f.model, KvFormat::F16), f.tokenizer, o);
  std::atomic<int> prefilled{0};
  scheduler.onStep([&](const StepRecord& r) { prefilled += r.prefill_tokens; });
  const auto out_a = answer(scheduler, a);
  const int first = prefilled.exchange(0);
  const auto out_b = answer(scheduler, b);
  const int second = prefilled.load();
  const int cached = 300;
  check(out_a.cached_tokens == 0 && first == 320,
        "the first request computes its 320 prompt tokens (" + std::to_string(first) + ")");
  check(out_b.cached_tokens == cached && second == 325 - cached,
        "the second computes only the " + std::to_string(325 - cached) +
            " tokens after the shared prefix (cached " + std::to_string(out_b.cached_tokens) +
            ", computed " + std::to_string(second) + ")");
  check(out_b.ids == alone(f.model, KvFormat::F16, f.tokenizer, b),
        "and answers as without sharing: " + join(out_b.ids));
  const auto m = scheduler.metrics();
  check(m.prefix_hit_tokens == static_cast<uint64_t>(cached) && m.prefix_query_tokens == 645 &&
            m.prompt_tokens == 645,
        "the prefix cache's counters: " + std::to_string(m.prefix_hit_tokens) + " hits of " +
            std::to_string(m.prefix_query_tokens));
  // The same prompt again: everything but its last token is cached.
  prefilled = 0;
  const auto again = answer(scheduler, a);
  check(again.cached_tokens == 319 && prefilled == 1 && again.ids == out_a.ids,
        "the same prompt again computes 1 token (cached " + std::to_string(again.cached_tokens) +
            ") and answers the same");
  // A prompt leaving a full cached block part-way: its common positions are copied.
  ScheduledRequest d;
  d.prompt.assign(shared.begin(), shared.begin() + 100);
  const auto tail_d = promptOf(9, 10, f.vocab);
  d.prompt.insert(d.prompt.end(), tail_d.begin(), tail_d.end());
  d.max_tokens = 8;
  prefilled = 0;
  const auto out_d = answer(scheduler, d);
  check(out_d.cached_tokens == 100 && prefilled == 9 &&
            out_d.ids == alone(f.model, KvFormat::F16, f.tokenizer, d),
        "a prompt parting from a cached block at position 100 reuses 100 positions (" +
            std::to_string(out_d.cached_tokens) + ") and answers as alone");
}

// 3. A pool of 10 blocks (320 positions) for four requests of up to 190 positions (6
// blocks each, two of them running at once): the newest is preempted and computed again,
// cached blocks are evicted, no output changes.
void smallPoolPreemptsAndEvicts(const Fixture& f) {
  std::vector<ScheduledRequest> requests;
  for (int k = 0; k < 4; ++k) {
    ScheduledRequest r;
    r.prompt = promptOf(100 + 10 * k, 50 + k, f.vocab);
    r.max_tokens = 60;
    requests.push_back(r);
  }
  SchedulerOptions o;
  o.kv_blocks = 10;
  o.prefill_chunk = 32;
  Scheduler scheduler(session(f.model, KvFormat::F16), f.tokenizer, o);
  // The first step waits for all four to have arrived (however slowly the threads start).
  std::atomic<bool> first_step{true};
  scheduler.onStep([&](const StepRecord&) {
    if (!first_step.exchange(false)) return;
    while (true) {
      const auto now = scheduler.metrics();
      if (now.running + now.waiting + static_cast<int>(now.requests_finished) >= 4) break;
      std::this_thread::yield();
    }
  });
  std::vector<Run> runs;
  for (const auto& r : requests) runs.push_back({r, {}, {}, {}});
  runAll(scheduler, runs);
  bool same = true;
  for (const Run& run : runs)
    same = same && run.error.empty() &&
           run.out.ids == alone(f.model, KvFormat::F16, f.tokenizer, run.request);
  const auto m = scheduler.metrics();
  check(same && m.preemptions > 0,
        "a 10-block pool: all four requests complete with their lone ids after " +
            std::to_string(m.preemptions) + " preemptions");
  check(m.kv_blocks_used == 0, "and the pool is whole again");
  // An unrelated prompt through the full pool: cached blocks are taken back (evicted).
  const int cached_before = m.kv_blocks_cached;
  ScheduledRequest big;
  big.prompt = promptOf(300, 77, f.vocab);
  big.max_tokens = 5;
  const auto out = answer(scheduler, big);
  check(cached_before > 1 && out.ids == alone(f.model, KvFormat::F16, f.tokenizer, big),
        "a 300-token prompt (10 blocks) with " + std::to_string(10 - cached_before) +
            " free evicts cached ones and answers as alone");
  const auto again = answer(scheduler, requests[3]);
  check(again.ids == runs[3].out.ids, "an evicted prompt again: the same answer (cached " +
                                          std::to_string(again.cached_tokens) + ")");
}

// 3b. What cannot run is an error value, never a throw: a prompt larger than a 10-block
// pool, or as long as the context; the scheduler then serves the next request as alone.
void promptsPastThePoolOrContextAreValues(const Fixture& f) {
  SchedulerOptions o;
  o.kv_blocks = 10;
  Scheduler scheduler(session(f.model, KvFormat::F16), f.tokenizer, o);
  ScheduledRequest huge;
  huge.prompt = promptOf(400, 78, f.vocab);
  const auto refused = scheduler.generate(huge, [](const GeneratedToken&) { return true; });
  check(!refused &&
            refused.error() == "the prompt needs 13 KV blocks of 32 positions; the pool holds 10",
        "a prompt larger than the pool is an error value: '" + ts::testing::errorOf(refused) + "'");
  ScheduledRequest longer;
  longer.prompt = promptOf(kContext, 79, f.vocab);
  const auto too_long = scheduler.generate(longer, [](const GeneratedToken&) { return true; });
  check(!too_long && too_long.error() ==
                         "the prompt has 512 tokens; a sequence holds 512 "
                         "positions (prompt and answer together)",
        "a prompt as long as the context is an error value: '" + ts::testing::errorOf(too_long) +
            "'");
  ScheduledRequest next;
  next.prompt = promptOf(100, 80, f.vocab);
  next.max_tokens = 8;
  check(answer(scheduler, next).ids == alone(f.model, KvFormat::F16, f.tokenizer, next) &&
            scheduler.metrics().requests_finished == 1,
        "and the next request answers as alone (the refused ones were never queued)");
}

// 4. Cancellation mid-prefill (the caller's flag, before any token) and mid-decode
// (on_token says stop): every block is given back.
void cancellationGivesBlocksBack(const Fixture& f) {
  SchedulerOptions o;
  o.prefill_chunk = 7;
  Scheduler scheduler(session(f.model, KvFormat::F16), f.tokenizer, o);
  std::atomic<bool> cancel{false};
  std::atomic<int> steps{0};
  scheduler.onStep([&](const StepRecord&) {
    if (++steps == 3) cancel = true;
  });
  ScheduledRequest r;
  r.prompt = promptOf(300, 11, f.vocab);
  r.max_tokens = 20;
  r.cancel = &cancel;
  const auto mid_prefill = answer(scheduler, r);
  auto m = scheduler.metrics();
  check(mid_prefill.finish == "cancelled" && mid_prefill.ids.empty() && m.kv_blocks_used == 0,
        "cancelled mid-prefill: no token, blocks back (" + mid_prefill.finish + ", " +
            std::to_string(m.kv_blocks_used) + " held)");
  r.cancel = nullptr;
  int seen = 0;
  const auto mid_decode = valueOf(
      scheduler.generate(r, [&](const GeneratedToken&) { return ++seen < 3; }), "mid-decode");
  m = scheduler.metrics();
  check(mid_decode.finish == "cancelled" && seen == 3 && m.kv_blocks_used == 0,
        "cancelled after 3 tokens: blocks back (" + std::to_string(m.kv_blocks_used) + " held)");
}

// 4b. The session alone (speculative decoding's way): the running request finishes first,
// the caller then drives the session's own cache, and a request waiting meanwhile runs
// after, with its lone answer.
void exclusiveRunsTheSessionAlone(const Fixture& f) {
  Scheduler scheduler(session(f.model, KvFormat::F16), f.tokenizer, SchedulerOptions{});
  ScheduledRequest running, later;
  running.prompt = promptOf(30, 21, f.vocab);
  running.max_tokens = 40;
  later.prompt = promptOf(12, 22, f.vocab);
  later.max_tokens = 6;
  std::atomic<int> seen{0};
  GenerationOutcome first, second;
  std::thread a = generating(scheduler, running, first, seen);
  while (seen == 0) std::this_thread::yield();  // it runs
  bool alone_inside = false;
  std::vector<float> logits;
  std::thread b;
  const auto ran = scheduler.exclusive([&](DecodeSession& s) {
    const auto now = scheduler.metrics();
    alone_inside = now.running == 0 && now.requests_finished == 1;
    b = std::thread([&] { second = answer(scheduler, later); });
    while (scheduler.metrics().waiting == 0) std::this_thread::yield();
    const auto out = s.forwardBatch(later.prompt, 0, false);
    logits.assign(out.begin(), out.end());
    s.truncate(0);
  });
  a.join();
  b.join();
  CpuSession fresh(f.model, kContext, KvFormat::F16, 1);
  const auto want = fresh.forwardBatch(later.prompt, 0, false);
  check(ran.ok() && ran.value() && alone_inside &&
            logits == std::vector<float>(want.begin(), want.end()),
        "exclusive: the running request ends first, the session runs alone");
  check(second.ids == alone(f.model, KvFormat::F16, f.tokenizer, later) &&
            first.ids == alone(f.model, KvFormat::F16, f.tokenizer, running),
        "and the request that waited meanwhile answers as alone");
}

// 4c. A waiting request ends as soon as its flag is set, even while the loop is held in
// a pass: counted once, out of the queue; an exclusive caller cancelled while it waits
// returns without the session; the running request answers as alone.
void queuedCancelEndsAtOnce(const Fixture& f) {
  SchedulerOptions o;
  o.max_running = 1;
  auto gated = std::make_unique<GatedSession>(session(f.model, KvFormat::F16));
  GatedSession* gate = gated.get();
  Scheduler scheduler(std::move(gated), f.tokenizer, o);
  ScheduledRequest running, queued;
  running.prompt = promptOf(20, 31, f.vocab);
  running.max_tokens = 5;
  queued.prompt = promptOf(10, 32, f.vocab);
  queued.max_tokens = 5;
  std::atomic<bool> cancel{false}, give_up{false};
  queued.cancel = &cancel;
  std::atomic<int> seen{0}, seen_queued{0};
  GenerationOutcome first, second;
  std::thread a = generating(scheduler, running, first, seen);
  gate->waitEntered();  // running, held in its first pass
  std::thread b = generating(scheduler, queued, second, seen_queued);
  while (scheduler.metrics().waiting == 0) std::this_thread::yield();
  Result<bool> ran = true;
  std::thread c([&] { ran = scheduler.exclusive([](DecodeSession&) {}, &give_up); });
  give_up = true;
  c.join();
  cancel = true;
  b.join();
  const auto m = scheduler.metrics();
  check(second.finish == "cancelled" && second.ids.empty() && ran.ok() && !ran.value() &&
            m.waiting == 0 && m.running == 1 && m.requests_finished == 1,
        "a queued request cancelled while the loop is held ends at once, counted once (" +
            second.finish + ", " + std::to_string(m.waiting) + " waiting, " +
            std::to_string(m.requests_finished) + " finished)");
  gate->open();
  a.join();
  check(first.ids == alone(f.model, KvFormat::F16, f.tokenizer, running) &&
            scheduler.metrics().requests_finished == 2,
        "the running one then answers as alone, counted once");
}

// 4d. exclusive() is a lock: four callers at once, one inside at a time.
void exclusiveIsALock(const Fixture& f) {
  Scheduler scheduler(session(f.model, KvFormat::F16), f.tokenizer, SchedulerOptions{});
  std::atomic<int> inside{0}, most{0};
  std::vector<std::thread> callers;
  for (int i = 0; i < 4; ++i)
    callers.emplace_back([&] {
      (void)scheduler.exclusive([&](DecodeSession&) {
        const int now = ++inside;
        most = std::max(most.load(), now);
        for (int k = 0; k < 2000; ++k) std::this_thread::yield();
        --inside;
      });
    });
  for (auto& t : callers) t.join();
  check(most == 1, "exclusive: one caller inside at a time (" + std::to_string(most) + ")");
}

// 4d'. The scheduler stopping (its owner destroys it, e.g. the model is unloaded) while a
// caller waits in exclusive() for the session another holds: the waiting caller gets an
// error value (not a throw) without running; the destructor returns once both have left.
void stoppingAnswersAWaitingExclusiveCaller(const Fixture& f) {
  auto owned =
      std::make_unique<Scheduler>(session(f.model, KvFormat::F16), f.tokenizer, SchedulerOptions{});
  Scheduler* scheduler = owned.get();
  std::atomic<bool> held{false}, release{false}, waiter_ran{false};
  std::thread holder([&] {
    (void)scheduler->exclusive([&](DecodeSession&) {
      held = true;
      while (!release) std::this_thread::yield();
    });
  });
  while (!held) std::this_thread::yield();
  Result<bool> waited = true;
  std::thread waiter(
      [&] { waited = scheduler->exclusive([&](DecodeSession&) { waiter_ran = true; }); });
  while (scheduler->metrics().exclusive_waiting == 0) std::this_thread::yield();
  std::thread stopper([&] { owned.reset(); });  // returns once the holder has left too
  waiter.join();  // answered by the stop, while the holder still has the session
  const bool answered_first = !release;
  release = true;
  holder.join();
  stopper.join();
  check(answered_first && !waited.ok() && !waiter_ran &&
            waited.error() == "the model's scheduler stopped (the model was unloaded)",
        "a caller waiting in exclusive() when the scheduler stops gets an error value: '" +
            ts::testing::errorOf(waited) + "'");
}

// 4e. Memory running out (the pool's test hook) at an admission: the request gets an error
// value that says what to do, its blocks rolled back, and the next admissions answer as a
// fresh scheduler does.
void memoryOutAtAdmissionIsAValue(const Fixture& f) {
  Scheduler scheduler(session(f.model, KvFormat::F16), f.tokenizer, SchedulerOptions{});
  ScheduledRequest a, b;
  a.prompt = promptOf(40, 41, f.vocab);
  a.max_tokens = 4;
  answer(scheduler, a);
  b.prompt = std::vector<int>(a.prompt.begin(), a.prompt.begin() + 38);  // copies block 1
  b.prompt.insert(b.prompt.end(), {5, 6, 7});
  b.max_tokens = 6;
  testing::failKvBlockAllocations(2);  // the first placing, and the one again from used blocks
  const auto failed = scheduler.generate(b, [](const GeneratedToken&) { return true; });
  testing::failKvBlockAllocations(0);
  const std::string error = ts::testing::errorOf(failed);
  check(!failed && error.find("no memory left for the KV cache") != std::string::npos &&
            error.find("run fewer sequences at once, a smaller context or a smaller KV cache "
                       "format") != std::string::npos &&
            scheduler.metrics().kv_blocks_used == 0,
        "an allocation failure at admission is that request's error value, blocks rolled back "
        "('" +
            error + "', " + std::to_string(scheduler.metrics().kv_blocks_used) + " held)");
  const auto again = answer(scheduler, b);
  check(again.ids == alone(f.model, KvFormat::F16, f.tokenizer, b) && again.cached_tokens >= 32,
        "the same request next answers as alone, from the prefix cache");
}

// 4f. In a step with three running, memory gone for good: the newest is preempted and the
// blocks used before carry everyone, every answer exact.
void memoryGoneInAStepPreempts(const Fixture& f) {
  Scheduler scheduler(session(f.model, KvFormat::F16), f.tokenizer, SchedulerOptions{});
  // From a step with three running on, no new block can be allocated at all: the ones
  // used before (the preempted one's, then the finished ones') must carry everyone.
  std::atomic<bool> armed{false};
  scheduler.onStep([&](const StepRecord& r) {
    if (r.sequences == 3 && !armed.exchange(true)) testing::failKvBlockAllocations(1 << 20);
  });
  std::vector<Run> runs(3);
  for (int k = 0; k < 3; ++k) {
    runs[k].request.prompt = promptOf(20, 50 + k, f.vocab);
    runs[k].request.max_tokens = 40;
  }
  // All three queue while an exclusive caller holds the loop, so they are admitted in one
  // step and reach their second block together (on a loaded machine they could otherwise
  // arrive one by one, and a finished one's blocks would leave nobody to preempt).
  std::atomic<bool> inside{false}, release{false};
  std::thread holder([&] {
    (void)scheduler.exclusive([&](DecodeSession&) {
      inside = true;
      while (!release) std::this_thread::yield();
    });
  });
  while (!inside) std::this_thread::yield();
  std::thread all([&] { runAll(scheduler, runs); });
  while (scheduler.metrics().waiting < 3) std::this_thread::yield();
  release = true;
  holder.join();
  all.join();
  testing::failKvBlockAllocations(0);
  bool exact = true;
  for (const Run& run : runs)
    exact = exact && run.error.empty() &&
            run.out.ids == alone(f.model, KvFormat::F16, f.tokenizer, run.request);
  const auto m = scheduler.metrics();
  check(armed && exact && m.preemptions >= 1 && m.kv_blocks_used == 0,
        "memory gone in a step: the newest is preempted, blocks used before carry all, every "
        "answer exact (" +
            std::to_string(m.preemptions) + " preemptions)");
  check(m.kv_bytes > 0 && m.kv_bytes <= m.kv_bytes_total &&
            m.kv_bytes_total == static_cast<uint64_t>(m.kv_blocks_total) *
                                    kvBlockBytes(KvFormat::F16, f.config.n_layers,
                                                 f.config.n_kv_heads, f.config.head_dim),
        "kv_bytes: what is allocated, within the pool's bytes (" + std::to_string(m.kv_bytes) +
            " of " + std::to_string(m.kv_bytes_total) + ")");
}

// 5. 64 streams at once through 8 running sequences: each gets its own tokens, exactly.
void manyStreamsGetTheirOwnTokens(const Fixture& f) {
  SchedulerOptions o;
  Scheduler scheduler(session(f.model, KvFormat::F16), f.tokenizer, o);
  std::vector<Run> runs(64);
  for (int k = 0; k < 64; ++k) {
    runs[k].request.prompt = promptOf(5 + k % 13, 200 + k, f.vocab);
    runs[k].request.max_tokens = 6 + k % 5;
  }
  runAll(scheduler, runs);
  int exact = 0;
  uint64_t tokens = 0;
  for (const Run& run : runs) {
    exact += run.streamed == run.out.ids &&
             run.out.ids == alone(f.model, KvFormat::F16, f.tokenizer, run.request);
    tokens += run.out.ids.size();
  }
  const auto m = scheduler.metrics();
  check(exact == 64, "64 concurrent streams: " + std::to_string(exact) + " exact");
  check(m.generation_tokens == tokens && m.requests_finished == 64 &&
            m.step_sequences.count == m.steps,
        "the counters add up: " + std::to_string(m.generation_tokens) + " tokens generated");
}

// 5b. A caller that reads late (its thread busy with the first token while the passes go
// on) gets each token stamped with when its pass made it: strictly increasing, all made
// before the caller took the second. Timing the callback instead would give the queued
// tokens one instant (a served request's TPOT of 0.00 ms on a fast model).
void tokensCarryWhenTheyWereMade(const Fixture& f) {
  SchedulerOptions o;
  Scheduler scheduler(session(f.model, KvFormat::F16), f.tokenizer, o);
  ScheduledRequest r;
  r.prompt = promptOf(9, 77, f.vocab);
  r.max_tokens = 12;
  std::vector<int64_t> made;
  int64_t first_returned = 0;
  const auto now = [] {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  auto out = scheduler.generate(r, [&](const GeneratedToken& t) {
    if (t.id < 0) return true;
    made.push_back(t.made_ns);
    if (made.size() == 1) {  // hold the first until the request has ended
      while (scheduler.metrics().requests_finished < 1 &&
             std::chrono::steady_clock::now() < deadline)
        std::this_thread::yield();
      first_returned = now();
    }
    return true;
  });
  bool increasing =
      out && made.size() == out.value().ids.size() && made.size() >= 3 && made.front() > 0;
  for (size_t k = 1; k < made.size(); ++k) increasing = increasing && made[k] > made[k - 1];
  check(out && increasing && made.back() <= first_returned,
        "tokens read late carry their making times: " + std::to_string(made.size()) +
            " tokens, strictly increasing and all before the second was read");
}

// 6. Pacing prompt chunks (tpot_target_ms). The pacer on modelled times (a 4-stream decode
// step of 26 ms, a 64-token chunk 194 ms more, as on 2 threads): steps average the target,
// a chunk every ~17 steps; decoders slower than the target still leave prompts a tenth.
void pacerSpreadsChunks() {
  const auto [average, share] = paced(37, 26, 194);
  check(average <= 37.5 && average > 34 && share > 0.04 && share < 0.07,
        "paced to 37 ms: steps average " + std::to_string(average) + " ms, " +
            std::to_string(share) + " of them with a chunk");
  const auto slow_share = paced(37, 50, 194).second;
  check(slow_share > 0.015, "decoders slower than the target: prompts still get chunks (" +
                                std::to_string(slow_share) + " of the steps)");
  PromptPacer pacer(37);
  pacer.stepped(true, true, 500);
  check(!pacer.allowPrompts(true) && pacer.allowPrompts(false),
        "after an expensive chunk the decoders' next step goes without one; with no "
        "decoders nothing waits");
  check(paced(0, 26, 194).second == 1.0, "no target: a chunk every step");
}

// 6b. The scheduler with it: a stream decoding while a 300-token prompt arrives, chunks of
// 64 costing 64 ms more each: paced to 20 ms no two steps in a row carry a chunk while the
// stream decodes (unpaced they do), and both answers are their lone ones.
void schedulerPacesPromptChunks(const Fixture& f, int target) {
  SchedulerOptions o;
  o.prefill_chunk = 64;
  o.tpot_target_ms = target;
  Scheduler scheduler(std::make_unique<SlowPromptSession>(session(f.model, KvFormat::F16)),
                      f.tokenizer, o);
  std::mutex records_mutex;
  std::vector<StepRecord> records;
  scheduler.onStep([&](const StepRecord& r) {
    bool first = false;
    {
      std::lock_guard lock(records_mutex);
      records.push_back(r);
      first = records.size() == 1;
    }
    // After the stream's first step, the next waits for the long prompt to arrive: it
    // comes while the stream decodes, however slowly the threads run.
    while (first && scheduler.metrics().waiting == 0) std::this_thread::yield();
  });
  ScheduledRequest stream, long_prompt;
  stream.prompt = promptOf(5, 31, f.vocab);
  stream.max_tokens = 60;
  long_prompt.prompt = promptOf(300, 32, f.vocab);
  long_prompt.max_tokens = 4;
  std::atomic<int> seen{0};
  GenerationOutcome stream_out, long_out;
  std::thread a = generating(scheduler, stream, stream_out, seen);
  while (seen == 0) std::this_thread::yield();  // the stream decodes
  long_out = answer(scheduler, long_prompt);
  a.join();
  int chunk_after_chunk = 0, chunk_steps = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    const auto decoding = [&](size_t k) { return records[k].tokens > records[k].prefill_tokens; };
    chunk_steps += records[i].prefill_tokens > 1;
    if (i > 0 && decoding(i - 1) && decoding(i) && records[i - 1].prefill_tokens > 1 &&
        records[i].prefill_tokens > 1)
      ++chunk_after_chunk;
  }
  const std::string name = target > 0 ? "paced to 20 ms" : "unpaced";
  check(chunk_steps >= 5 && (target > 0 ? chunk_after_chunk == 0 : chunk_after_chunk > 0),
        name + ": " + std::to_string(chunk_after_chunk) +
            " steps with a chunk right after another while the stream decodes (" +
            std::to_string(chunk_steps) + " with a chunk)");
  check(stream_out.ids == alone(f.model, KvFormat::F16, f.tokenizer, stream) &&
            long_out.ids == alone(f.model, KvFormat::F16, f.tokenizer, long_prompt),
        name + ": both answers are their lone ones");
}

}  // namespace

// 12. A device fault in a pass (a CUDA session that then refuses every pass): that request
// fails with the device's message; with SchedulerOptions::reopen the failed session is let
// go and the next request runs on a new one, answering as alone; without it, every later
// request fails (what Serve did before: the broken session was kept).
void aFailedSessionIsReopened(const Fixture& f) {
  ScheduledRequest r;
  r.prompt = promptOf(40, 91, f.vocab);
  r.max_tokens = 6;
  const auto faulting = [&](int fail_at) {
    return std::make_unique<FaultingSession>(session(f.model, KvFormat::F16), fail_at);
  };
  int reopened = 0;
  SchedulerOptions o;
  o.reopen = [&]() -> Result<std::unique_ptr<DecodeSession>> {
    ++reopened;
    return std::unique_ptr<DecodeSession>(faulting(-1));
  };
  Scheduler scheduler(faulting(3), f.tokenizer, o);
  const auto failed = scheduler.generate(r, [](const GeneratedToken&) { return true; });
  check(!failed && ts::testing::errorOf(failed).find("illegal memory access") != std::string::npos,
        "the faulting pass's request fails with the device's message: '" +
            ts::testing::errorOf(failed) + "'");
  const bool same = answer(scheduler, r).ids == alone(f.model, KvFormat::F16, f.tokenizer, r);
  check(same && reopened == 1,
        "the next request runs on a reopened session and answers as alone (" +
            std::to_string(reopened) + " reopened)");
  Scheduler kept(faulting(3), f.tokenizer, SchedulerOptions{});
  const auto first = kept.generate(r, [](const GeneratedToken&) { return true; });
  const auto second = kept.generate(r, [](const GeneratedToken&) { return true; });
  check(
      !first && !second && ts::testing::errorOf(second).find("failed earlier") != std::string::npos,
      "without reopen the failed session stays and refuses: '" + ts::testing::errorOf(second) +
          "'");
}

int main() {
  auto config = shapeConfig("llama-tiny", 2);
  if (!config) return 1;
  Fixture f;
  f.config = config.value();
  f.model = randomModel(f.config, WeightFormat::Int8, 7);
  f.vocab = f.config.vocab;
  batchesEqualLoneRuns(f);
  sharedPrefixIsComputedOnce(f);
  smallPoolPreemptsAndEvicts(f);
  promptsPastThePoolOrContextAreValues(f);
  cancellationGivesBlocksBack(f);
  exclusiveRunsTheSessionAlone(f);
  queuedCancelEndsAtOnce(f);
  exclusiveIsALock(f);
  stoppingAnswersAWaitingExclusiveCaller(f);
  memoryOutAtAdmissionIsAValue(f);
  memoryGoneInAStepPreempts(f);
  manyStreamsGetTheirOwnTokens(f);
  tokensCarryWhenTheyWereMade(f);
  pacerSpreadsChunks();
  for (int target : {20, 0}) schedulerPacesPromptChunks(f, target);
  aFailedSessionIsReopened(f);
  return ts::testing::finish();
}
