// The scheduler's separate prefill (SchedulerOptions::separate_prefill_tokens): prompts
// with more tokens than the threshold to compute are computed by the prefill worker (its
// own thread and session) and handed to the steps with their KV copied bit for bit. At
// temperature 0 (and with a seed at 0.8) every answer is the one it gets alone on a fresh
// session and under the mixed policy (f16 and int8 KV); short prompts stay in the steps;
// streams keep decoding while the worker is held; a shared prefix is copied into the worker
// and the answer does not change; a pool too short at the hand-back waits without losing
// anything; a cancel while the worker computes ends the request after the chunk under way;
// the scheduler destroyed meanwhile returns; a failing worker fails its request alone.
// A random llama-tiny-shape model (GQA), so no fixture is needed. Waits are on condition
// variables (with a generous limit that fails the test instead of hanging it), no sleeps.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "inference/engine/cpu/cpu_forward.h"
#include "inference/engine/decode/generator.h"
#include "inference/engine/model/random_model.h"
#include "inference/engine/serving/prefill_worker.h"
#include "inference/engine/serving/scheduler.h"
#include "tests/inference/engine/check.h"
#include "tests/inference/engine/expect_error.h"

using namespace ts::engine;
using ts::testing::check;
using ts::testing::join;
using ts::testing::valueOf;

namespace {

constexpr int kContext = 512;
constexpr int kThreshold = 100;  // prompts with more than this to compute: the worker's
constexpr auto kPatience = std::chrono::seconds(120);  // a wait this long is a failure

std::vector<int> promptOf(int n, unsigned seed, int vocab) {
  std::mt19937 rng(seed);
  std::vector<int> p(n);
  for (int& t : p) t = 3 + static_cast<int>(rng() % (vocab - 3));  // no BOS / EOS
  return p;
}

struct Fixture {
  std::shared_ptr<const Model> model;
  int vocab = 0;
  Tokenizer tokenizer{Vocabulary{}};
};

// One generation on a fresh session: what the scheduler must reproduce.
std::vector<int> alone(const Fixture& f, KvFormat kv, const ScheduledRequest& r) {
  CpuSession session(f.model, kContext, kv, 1);
  GenerateOptions o;
  o.max_tokens = r.max_tokens;
  o.sampling = r.sampling;
  return valueOf(generate(session, f.tokenizer, r.prompt, o,
                          [](const GeneratedToken&) { return true; }),
                 "a lone run")
      .ids;
}

// Where the worker's forward passes stop until let through (each pass takes a permit),
// and how many began.
struct Gate {
  std::mutex mutex;
  std::condition_variable changed;
  int entered = 0, left = 0;
  int permits = INT_MAX;  // open

  void pass() {
    std::unique_lock lock(mutex);
    ++entered;
    changed.notify_all();
    changed.wait(lock, [&] { return permits > 0; });
    if (permits != INT_MAX) --permits;
  }
  void close() {
    std::lock_guard lock(mutex);
    permits = 0;
  }
  void open() {
    std::lock_guard lock(mutex);
    permits = INT_MAX;
    changed.notify_all();
  }
  void leave() {
    std::lock_guard lock(mutex);
    ++left;
    changed.notify_all();
  }
  bool waitEntered(int n) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, kPatience, [&] { return entered >= n; });
  }
  bool waitLeft(int n) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, kPatience, [&] { return left >= n; });
  }
  int count() {
    std::lock_guard lock(mutex);
    return entered;
  }
};

// A CPU session whose spawned sessions (the prefill worker's) pass a gate before each
// forward pass, and whose steps (forwardSequences) may pass another.
class GatedSpawnSession : public DecodeSession {
 public:
  GatedSpawnSession(std::unique_ptr<DecodeSession> inner, std::shared_ptr<Gate> gate)
      : inner_(std::move(inner)), gate_(std::move(gate)) {}
  std::span<const float> forwardBatch(std::span<const int> tokens, int pos, bool all) override {
    if (gate_) gate_->pass();
    const auto logits = inner_->forwardBatch(tokens, pos, all);
    if (gate_) gate_->leave();
    return logits;
  }
  void truncate(int length) override { inner_->truncate(length); }
  int vocab() const override { return inner_->vocab(); }
  int maxPositions() const override { return inner_->maxPositions(); }
  bool usePagedKv(int blocks) override { return inner_->usePagedKv(blocks); }
  std::span<const float> forwardSequences(std::span<const SequencePass> passes) override {
    if (step_gate_) step_gate_->pass();
    return inner_->forwardSequences(passes);
  }
  void copyKvBlock(int from, int to) override { inner_->copyKvBlock(from, to); }
  void allocateKvBlocks(std::span<const int> blocks) override { inner_->allocateKvBlocks(blocks); }
  size_t kvCacheBytes() const override { return inner_->kvCacheBytes(); }
  size_t kvBlockBytes() const override { return inner_->kvBlockBytes(); }
  std::unique_ptr<DecodeSession> spawn(int positions, int threads) const override {
    auto spawned = inner_->spawn(positions, threads);
    if (!spawned) return nullptr;
    return std::make_unique<GatedSpawnSession>(std::move(spawned), spawn_gate_);
  }
  void copyKvToBlocks(DecodeSession& paged, std::span<const int> table, int from, int to) override {
    inner_->copyKvToBlocks(unwrap(paged), table, from, to);
  }
  void copyKvFromBlocks(DecodeSession& paged, std::span<const int> table, int from,
                        int to) override {
    inner_->copyKvFromBlocks(unwrap(paged), table, from, to);
  }
  // The scheduler's session: its spawns pass `gate`, its steps `steps` (when given).
  static std::unique_ptr<GatedSpawnSession> holding(std::unique_ptr<DecodeSession> inner,
                                                    std::shared_ptr<Gate> gate,
                                                    std::shared_ptr<Gate> steps = nullptr) {
    auto s = std::make_unique<GatedSpawnSession>(std::move(inner), nullptr);
    s->spawn_gate_ = std::move(gate);
    s->step_gate_ = std::move(steps);
    return s;
  }

 private:
  static DecodeSession& unwrap(DecodeSession& s) {
    auto* gated = dynamic_cast<GatedSpawnSession*>(&s);
    return gated ? *gated->inner_ : s;
  }
  std::unique_ptr<DecodeSession> inner_;
  std::shared_ptr<Gate> gate_;        // this session's passes
  std::shared_ptr<Gate> spawn_gate_;  // its spawns'
  std::shared_ptr<Gate> step_gate_;   // its steps'
};

std::unique_ptr<DecodeSession> cpu(const Fixture& f, KvFormat kv) {
  return std::make_unique<CpuSession>(f.model, kContext, kv, 2);
}

SchedulerOptions separate(int threads = 1) {
  SchedulerOptions o;
  o.prefill_chunk = 64;
  o.separate_prefill_tokens = kThreshold;
  o.separate_prefill_threads = threads;
  return o;
}

GenerationOutcome answer(Scheduler& scheduler, const ScheduledRequest& request) {
  return valueOf(scheduler.generate(request, [](const GeneratedToken&) { return true; }),
                 "a request");
}

// Tokens seen by streams on other threads, waited for without polling.
struct Seen {
  std::mutex mutex;
  std::condition_variable changed;
  int tokens = 0;
  void add() {
    std::lock_guard lock(mutex);
    ++tokens;
    changed.notify_all();
  }
  bool waitFor(int n) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, kPatience, [&] { return tokens >= n; });
  }
  int now() {
    std::lock_guard lock(mutex);
    return tokens;
  }
};

// 1. Long prompts (299 positions for the worker: two chunks) and a short one: the same
// ids under the separate policy, the mixed one and alone, in f16 and int8 KV; the long
// ones counted in separate_prefills, the short one not.
void sameTokensAsMixed(const Fixture& f) {
  for (KvFormat kv : {KvFormat::F16, KvFormat::Int8}) {
    const std::string name = "KV " + kvFormatName(kv) + ": ";
    ScheduledRequest greedy, seeded, shorter;
    greedy.prompt = promptOf(300, 11, f.vocab);
    seeded.prompt = promptOf(260, 12, f.vocab);
    seeded.sampling = {0.8f, 0, 1.f, 1.f, 4242u};
    shorter.prompt = promptOf(kThreshold - 20, 13, f.vocab);
    for (ScheduledRequest* r : {&greedy, &seeded, &shorter}) r->max_tokens = 12;
    Scheduler mixed(cpu(f, kv), f.tokenizer, [] {
      SchedulerOptions o;
      o.prefill_chunk = 64;
      return o;
    }());
    Scheduler split(cpu(f, kv), f.tokenizer, separate());
    check(split.options().separate_prefill_tokens == kThreshold &&
              split.options().separate_prefill_threads == 1,
          name + "the policy applies on the CPU session (threshold " +
              std::to_string(split.options().separate_prefill_tokens) + ")");
    const auto m_greedy = answer(mixed, greedy), s_greedy = answer(split, greedy);
    const uint64_t after_greedy = split.metrics().separate_prefills;
    const auto m_seeded = answer(mixed, seeded), s_seeded = answer(split, seeded);
    const uint64_t after_seeded = split.metrics().separate_prefills;
    const auto m_short = answer(mixed, shorter), s_short = answer(split, shorter);
    const auto m = split.metrics();
    const auto lone = alone(f, kv, greedy);
    check(s_greedy.ids == m_greedy.ids && s_greedy.ids == lone && !lone.empty(),
          name + "a 300-token prompt, greedy: separate " + join(s_greedy.ids) + " = mixed " +
              join(m_greedy.ids) + " = alone");
    check(after_greedy == 1, name + "separate_prefills counts it: " + std::to_string(after_greedy));
    check(
        s_seeded.ids == m_seeded.ids && s_seeded.ids == alone(f, kv, seeded),
        name + "a 260-token prompt sampled at 0.8 with a seed: the same ids " + join(s_seeded.ids));
    check(after_seeded == 2, name + "counted too: " + std::to_string(after_seeded));
    check(s_short.ids == m_short.ids && s_short.ids == alone(f, kv, shorter),
          name + "an 80-token prompt (below the threshold): the same ids " + join(s_short.ids));
    check(m.separate_prefills == 2 && m.separate_prefill_seconds > 0,
          name + "the short one stayed in the steps (separate_prefills " +
              std::to_string(m.separate_prefills) + ")");
    check(m.running == 0 && m.separate_prefilling == 0 && m.kv_blocks_used == 0 &&
              m.requests_finished == 3 && m.prompt_tokens == 640,
          name + "every block given back, every request counted once (" +
              std::to_string(m.requests_finished) + " finished, " +
              std::to_string(m.prompt_tokens) + " prompt tokens)");
  }
}

// 2. Two streams decoding while a long prompt arrives: they go on while the worker is held
// (its first pass gated), and every answer is its lone one.
void streamsDecodeMeanwhile(const Fixture& f) {
  const auto gate = std::make_shared<Gate>();
  gate->close();
  Scheduler scheduler(GatedSpawnSession::holding(cpu(f, KvFormat::F16), gate), f.tokenizer,
                      separate());
  ScheduledRequest streams[2], long_prompt;
  for (int k = 0; k < 2; ++k) {
    streams[k].prompt = promptOf(8 + k, 20 + k, f.vocab);
    // long enough that neither ends while the worker is held, however late it entered
    // on a busy machine (the check below counts them running)
    streams[k].max_tokens = 480;
  }
  long_prompt.prompt = promptOf(340, 22, f.vocab);
  long_prompt.max_tokens = 10;
  Seen seen;
  GenerationOutcome outs[2], long_out;
  std::vector<std::thread> threads;
  for (int k = 0; k < 2; ++k)
    threads.emplace_back([&, k] {
      outs[k] = valueOf(scheduler.generate(streams[k],
                                           [&](const GeneratedToken&) {
                                             seen.add();
                                             return true;
                                           }),
                        "a stream");
    });
  const bool decoding = seen.waitFor(2);
  threads.emplace_back([&] { long_out = answer(scheduler, long_prompt); });
  const bool entered = gate->waitEntered(1);
  const int at_entry = seen.now();
  const bool went_on = seen.waitFor(at_entry + 6);  // the worker holds its first pass
  const auto held = scheduler.metrics();
  gate->open();
  for (auto& t : threads) t.join();
  check(decoding && entered && went_on,
        "the streams decode on while the worker computes the long prompt (" +
            std::to_string(seen.now() - at_entry) + " tokens since)");
  check(held.separate_prefilling == 1 && held.running == 3,
        "meanwhile it counts as running, in the worker (" + std::to_string(held.running) +
            " running)");
  bool same = long_out.ids == alone(f, KvFormat::F16, long_prompt);
  for (int k = 0; k < 2; ++k) same = same && outs[k].ids == alone(f, KvFormat::F16, streams[k]);
  check(same, "all three answers are their lone ones (long: " + join(long_out.ids) + ")");
  check(scheduler.metrics().separate_prefills == 1 && scheduler.metrics().kv_blocks_used == 0,
        "one separate prefill; every block given back");
}

// 3. A shared prefix: the second prompt's cached 200 positions (six whole blocks and 8
// positions of a seventh) are copied into the worker, which computes only the rest; a
// third, short after its prefix, stays in the steps.
void sharedPrefix(const Fixture& f) {
  Scheduler scheduler(cpu(f, KvFormat::F16), f.tokenizer, separate());
  const std::vector<int> system = promptOf(200, 30, f.vocab);
  ScheduledRequest a, b, c;
  a.prompt = b.prompt = c.prompt = system;
  const auto qa = promptOf(100, 31, f.vocab), qb = promptOf(150, 32, f.vocab),
             qc = promptOf(20, 33, f.vocab);
  a.prompt.insert(a.prompt.end(), qa.begin(), qa.end());
  b.prompt.insert(b.prompt.end(), qb.begin(), qb.end());
  c.prompt.insert(c.prompt.end(), qc.begin(), qc.end());
  a.max_tokens = b.max_tokens = c.max_tokens = 10;
  const auto out_a = answer(scheduler, a);
  const auto out_b = answer(scheduler, b);
  const uint64_t after_b = scheduler.metrics().separate_prefills;
  const auto out_c = answer(scheduler, c);
  check(out_a.ids == alone(f, KvFormat::F16, a), "the first prompt answers as alone");
  check(out_b.cached_tokens == 200 && after_b == 2 && out_b.ids == alone(f, KvFormat::F16, b),
        "the second reuses its 200-token prefix in the worker (cached " +
            std::to_string(out_b.cached_tokens) + ") and answers as alone: " + join(out_b.ids));
  check(out_c.cached_tokens >= 200 && scheduler.metrics().separate_prefills == 2 &&
            out_c.ids == alone(f, KvFormat::F16, c),
        "a third with 21 tokens after the cached prefix stays in the steps, answers as alone");
}

// 4. A pool of 16 blocks, a 240-token prompt decoding in the steps (8 blocks, growing to
// 14) when a 300-token one comes back from the worker (10 blocks): the newcomer waits for
// blocks until the older one has finished (its first token after the other's last), it
// is not preempted for it, nothing fails, both answer as alone. The steps are held while
// the worker finishes, so the hand-back comes while the first has ~200 tokens to go.
void shortPoolAtHandBack(const Fixture& f) {
  const auto worker_gate = std::make_shared<Gate>(), step_gate = std::make_shared<Gate>();
  worker_gate->close();
  SchedulerOptions o = separate();
  o.separate_prefill_tokens = 250;
  o.kv_blocks = 16;
  Scheduler scheduler(GatedSpawnSession::holding(cpu(f, KvFormat::F16), worker_gate, step_gate),
                      f.tokenizer, o);
  ScheduledRequest first, long_prompt;
  first.prompt = promptOf(240, 41, f.vocab);
  first.max_tokens = 200;
  long_prompt.prompt = promptOf(300, 42, f.vocab);
  long_prompt.max_tokens = 8;
  Seen seen;
  GenerationOutcome first_out, long_out;
  int64_t first_last_ns = 0, long_first_ns = 0;
  std::thread a([&] {
    first_out = valueOf(scheduler.generate(first,
                                           [&](const GeneratedToken& t) {
                                             first_last_ns = std::max(first_last_ns, t.made_ns);
                                             seen.add();
                                             return true;
                                           }),
                        "the first request");
  });
  const bool decoding = seen.waitFor(1);
  std::thread b([&] {
    long_out = valueOf(scheduler.generate(long_prompt,
                                          [&](const GeneratedToken& t) {
                                            if (long_first_ns == 0) long_first_ns = t.made_ns;
                                            return true;
                                          }),
                       "the long request");
  });
  const bool in_worker = worker_gate->waitEntered(1);
  // Hold the steps, let the worker finish its two passes, then the steps go on.
  const int steps = step_gate->count();
  step_gate->close();
  const bool held = step_gate->waitEntered(steps + 1);
  worker_gate->open();
  const bool computed = worker_gate->waitLeft(2);
  const int first_seen = seen.now();
  step_gate->open();
  a.join();
  b.join();
  const auto m = scheduler.metrics();
  check(decoding && in_worker && held && computed && first_seen < 100,
        "the worker finished while the first request had " + std::to_string(200 - first_seen) +
            " tokens to go");
  check(long_first_ns > first_last_ns && m.preemptions == 0,
        "its hand-back waited for blocks until the older request ended (first token " +
            std::to_string((long_first_ns - first_last_ns) / 1000) +
            " us after the other's last), without preempting it");
  check(first_out.ids == alone(f, KvFormat::F16, first) &&
            long_out.ids == alone(f, KvFormat::F16, long_prompt) && m.separate_prefills == 1 &&
            m.kv_blocks_used == 0,
        "both answer as alone; every block given back");
}

// 5. One running place (max_running 1): a short prompt behind the one in the worker waits
// for it (no step runs meanwhile), then both answer as alone.
void oneRunningPlace(const Fixture& f) {
  const auto gate = std::make_shared<Gate>();
  gate->close();
  SchedulerOptions o = separate();
  o.max_running = 1;
  Scheduler scheduler(GatedSpawnSession::holding(cpu(f, KvFormat::F16), gate), f.tokenizer, o);
  ScheduledRequest long_prompt, short_prompt;
  long_prompt.prompt = promptOf(300, 50, f.vocab);
  short_prompt.prompt = promptOf(10, 51, f.vocab);
  long_prompt.max_tokens = short_prompt.max_tokens = 6;
  GenerationOutcome long_out, short_out;
  std::thread a([&] { long_out = answer(scheduler, long_prompt); });
  const bool entered = gate->waitEntered(1);
  std::thread b([&] { short_out = answer(scheduler, short_prompt); });
  // The short one is queued behind it (nothing signals its arrival in the queue: the
  // metrics are read until they show it, yielding, as test_scheduler does).
  bool queued = false;
  const auto give_up = std::chrono::steady_clock::now() + kPatience;
  while (!(queued = scheduler.metrics().waiting == 1) && std::chrono::steady_clock::now() < give_up)
    std::this_thread::yield();
  const uint64_t steps = scheduler.metrics().steps;
  gate->open();
  a.join();
  b.join();
  check(entered && queued && steps == 0,
        "max_running 1: the short prompt waits while the worker computes (" +
            std::to_string(steps) + " steps meanwhile)");
  check(long_out.ids == alone(f, KvFormat::F16, long_prompt) &&
            short_out.ids == alone(f, KvFormat::F16, short_prompt),
        "then both answer as alone");
}

// 6. A cancel while the worker computes: the request ends as cancelled after the pass under
// way (the worker's second pass never begins), its blocks and place given back; the worker
// takes the next prompt.
void cancelInTheWorker(const Fixture& f) {
  const auto gate = std::make_shared<Gate>();
  gate->close();
  Scheduler scheduler(GatedSpawnSession::holding(cpu(f, KvFormat::F16), gate), f.tokenizer,
                      separate());
  ScheduledRequest r;
  r.prompt = promptOf(400, 60, f.vocab);  // two passes of the worker
  r.max_tokens = 8;
  std::atomic<bool> cancel{false};
  r.cancel = &cancel;
  std::mutex m;
  std::condition_variable ended_cv;
  bool ended = false;
  GenerationOutcome out;
  std::thread t([&] {
    out = answer(scheduler, r);
    std::lock_guard lock(m);
    ended = true;
    ended_cv.notify_all();
  });
  const bool entered = gate->waitEntered(1);
  cancel = true;
  gate->open();
  bool returned = false;
  {
    std::unique_lock lock(m);
    returned = ended_cv.wait_for(lock, kPatience, [&] { return ended; });
  }
  t.join();
  const auto metrics = scheduler.metrics();
  check(entered && returned && out.finish == "cancelled" && out.ids.empty(),
        "cancelled while the worker computes: finish '" + out.finish + "'");
  check(gate->count() == 1, "the worker stopped after the pass under way (" +
                                std::to_string(gate->count()) + " of 2 passes begun)");
  check(metrics.running == 0 && metrics.separate_prefilling == 0 && metrics.kv_blocks_used == 0 &&
            metrics.separate_prefills == 0,
        "nothing held after it");
  r.cancel = nullptr;
  const auto again = answer(scheduler, r);
  check(again.ids == alone(f, KvFormat::F16, r) && scheduler.metrics().separate_prefills == 1,
        "the worker takes the same prompt again and it answers as alone");
}

// 7. The scheduler destroyed while the worker computes: the destructor returns once the
// worker's pass under way ends, and the request ends as cancelled.
void destroyedMidPrompt(const Fixture& f) {
  const auto gate = std::make_shared<Gate>();
  gate->close();
  auto scheduler = std::make_unique<Scheduler>(
      GatedSpawnSession::holding(cpu(f, KvFormat::F16), gate), f.tokenizer, separate());
  ScheduledRequest r;
  r.prompt = promptOf(450, 70, f.vocab);
  r.max_tokens = 8;
  GenerationOutcome out;
  Scheduler* s = scheduler.get();
  std::thread caller([&] { out = answer(*s, r); });
  const bool entered = gate->waitEntered(1);
  std::mutex m;
  std::condition_variable done_cv;
  bool done = false;
  std::thread destroyer([&] {
    scheduler.reset();
    std::lock_guard lock(m);
    done = true;
    done_cv.notify_all();
  });
  gate->open();  // the pass under way ends; the stop is seen before the next one
  bool returned = false;
  {
    std::unique_lock lock(m);
    returned = done_cv.wait_for(lock, kPatience, [&] { return done; });
  }
  destroyer.join();
  caller.join();
  check(entered && returned && out.finish == "cancelled",
        "destroyed while the worker computes: the destructor returns, the request ends '" +
            out.finish + "' (" + std::to_string(gate->count()) + " of 2 worker passes begun)");
}

// 8. A worker pass that fails (memory ran out there): that request returns the error, the
// scheduler goes on.
void failingWorker(const Fixture& f) {
  Scheduler scheduler(cpu(f, KvFormat::F16), f.tokenizer, separate());
  ScheduledRequest r;
  r.prompt = promptOf(300, 80, f.vocab);
  r.max_tokens = 6;
  testing::failSeparatePrefills(1);
  const auto failed = scheduler.generate(r, [](const GeneratedToken&) { return true; });
  testing::failSeparatePrefills(0);
  ts::testing::expectError(ts::testing::errorOf(failed),
                           "not enough memory for the separate prefill",
                           "a failing worker pass fails its request with a message");
  const auto again = answer(scheduler, r);
  check(again.ids == alone(f, KvFormat::F16, r) && scheduler.metrics().kv_blocks_used == 0,
        "and the scheduler goes on: the same prompt answers as alone");
}

// 9. Off where it cannot be: a session without spawn (or without paged KV) keeps every
// prompt in the steps.
void offWithoutTheMeans(const Fixture& f) {
  class Plain : public DecodeSession {  // paged, but no spawn
   public:
    explicit Plain(std::unique_ptr<DecodeSession> inner) : inner_(std::move(inner)) {}
    std::span<const float> forwardBatch(std::span<const int> t, int pos, bool all) override {
      return inner_->forwardBatch(t, pos, all);
    }
    void truncate(int length) override { inner_->truncate(length); }
    int vocab() const override { return inner_->vocab(); }
    int maxPositions() const override { return inner_->maxPositions(); }
    bool usePagedKv(int blocks) override { return inner_->usePagedKv(blocks); }
    std::span<const float> forwardSequences(std::span<const SequencePass> p) override {
      return inner_->forwardSequences(p);
    }
    void copyKvBlock(int from, int to) override { inner_->copyKvBlock(from, to); }

   private:
    std::unique_ptr<DecodeSession> inner_;
  };
  Scheduler scheduler(std::make_unique<Plain>(cpu(f, KvFormat::F16)), f.tokenizer, separate());
  ScheduledRequest r;
  r.prompt = promptOf(300, 90, f.vocab);
  r.max_tokens = 5;
  const auto out = answer(scheduler, r);
  check(scheduler.options().separate_prefill_tokens == 0 &&
            scheduler.metrics().separate_prefills == 0 && out.ids == alone(f, KvFormat::F16, r),
        "a session that cannot spawn: the option does nothing, the prompt runs in the steps");
  SchedulerOptions d;
  d.separate_prefill_tokens = 50;
  Scheduler defaults(cpu(f, KvFormat::F16), f.tokenizer, d);
  const int expected = std::max(1, ThreadPool::defaultThreads() / 2);
  check(defaults.options().separate_prefill_threads == expected,
        "separate_prefill_threads 0: half the CPU threads, at least 1 (" +
            std::to_string(defaults.options().separate_prefill_threads) + ")");
}

// 10. The KV copy on its own: a prompt's rows computed in one session, copied into pool
// blocks of another and back, equal the rows computed there (f32, f16, int8 with scales),
// also from a position inside a block.
void kvCopyIsExact(const Fixture& f) {
  for (KvFormat kv : {KvFormat::F32, KvFormat::F16, KvFormat::Int8}) {
    const auto prompt = promptOf(100, 99, f.vocab);
    CpuSession worker(f.model, kContext, kv, 1), paged(f.model, kContext, kv, 1),
        direct(f.model, kContext, kv, 1);
    paged.usePagedKv(8);
    direct.usePagedKv(8);
    worker.forwardBatch(prompt, 0, false);
    const std::vector<int> table = {5, 2, 7, 0};
    paged.allocateKvBlocks(table);
    worker.copyKvToBlocks(paged, table, 0, 40);
    worker.copyKvToBlocks(paged, table, 40, 100);
    const SequencePass pass{prompt, 0, table, false};
    direct.forwardSequences({&pass, 1});
    const KvCache copied(*const_cast<KvBlockPool*>(paged.pagedPool()), table);
    const KvCache computed(*const_cast<KvBlockPool*>(direct.pagedPool()), table);
    CpuSession back(f.model, kContext, kv, 1);
    back.copyKvFromBlocks(paged, table, 0, 100);
    KvCache worker_rows = worker.cache(), back_rows = back.cache();
    check(copied == computed && back_rows == worker_rows,
          "KV " + kvFormatName(kv) +
              ": rows copied to pool blocks (in two parts, the second "
              "from inside a block) and back equal the computed ones");
  }
}

}  // namespace

int main() {
  auto config = shapeConfig("llama-tiny", 2);
  if (!config) return 1;
  Fixture f;
  f.model = randomModel(config.value(), WeightFormat::Int8, 7);
  f.vocab = config.value().vocab;
  kvCopyIsExact(f);
  sameTokensAsMixed(f);
  streamsDecodeMeanwhile(f);
  sharedPrefix(f);
  shortPoolAtHandBack(f);
  oneRunningPlace(f);
  cancelInTheWorker(f);
  destroyedMidPrompt(f);
  failingWorker(f);
  offWithoutTheMeans(f);
  return ts::testing::finish();
}
