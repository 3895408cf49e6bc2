// The serving scheduler of one loaded model: every generation on the model goes through it
// (the app's chat, the OpenAI-compatible server, `bench --model-path`). A thread of its
// own runs steps; each step is ONE forward pass over all running sequences, each with its
// own positions and KV blocks (DecodeSession::forwardSequences): a decoding sequence adds
// its one next token, a prefilling one a chunk of its prompt, within a budget of tokens
// per step. Requests join at step boundaries (continuous batching); finished and
// cancelled ones leave at once and give their blocks back. Full blocks of computed tokens
// are published to the prefix cache (KvBlockManager): a request whose prompt begins like an
// earlier one computes only the rest. When the pool runs out, the newest running sequence
// is preempted (its blocks freed, its tokens so far computed again once it runs again).
//
//            waiting (arrival order)          running (<= max_running)
//   submit ─▶ [r5 r6 r7] ── admitted at ──▶ [r1 decode][r2 decode][r3 chunk 64 of 1,024]
//                           step boundaries         │ one pass: 1 + 1 + 64 tokens
//                                                   ▼
//                   tokens ◀── sample per sequence ◀── logits of each sequence's last row
//
// A backend without paged KV (the CUDA session for now) runs one sequence at a time, its
// prompt whole, reusing what its one cache holds of the new prompt.
//
// Separate prefill (separate_prefill_tokens > 0): a prompt with more tokens than that still
// to compute (after the prefix cache) is not chunked into the steps but computed by a
// prefill worker (prefill_worker.h): a thread and a session of its own (its own KV cache
// and separate_prefill_threads CPU threads), one prompt at a time, while the steps go on
// decoding the others. When it is done, its KV rows are copied bit for bit into the
// sequence's pool blocks and the sequence joins the running ones with its last prompt token
// still to compute: the next step computes that token and samples the first one from it,
// as a decoding sequence. So a request's tokens are the same under either policy (greedy:
// identical; the CPU's rows do not depend on their neighbours in a pass). Short prompts
// stay chunked in the steps as before.
//
//                 long (> threshold)   ┌─ prefill worker (own thread, session, threads) ─┐
//   submit ─▶ waiting ─────────────────┤ cached prefix copied in; chunks of 256; cancel  │
//                 │                    │ and stop looked at between chunks               │
//                 │ short              └───────────────┬─────────────────────────────────┘
//                 ▼                                    ▼ KV rows copied into its blocks
//              running (steps: decode + prompt chunks) ◀── joins with 1 token to compute
//
// - Prefix cache: the worker gets the cached prefix's KV rows copied into its session and
//   computes only the rest; at the hand-back the sequence shares whatever whole blocks the
//   cache then holds and gets the other rows from the worker's session.
// - Blocks: none are held while the worker computes (its KV lives in the worker's own
//   cache, memory beyond the pool's); they are reserved at the hand-back, for the whole
//   prompt plus one spare block per running sequence, as at admission. Short of them, a
//   running sequence newer than the long one is preempted, else the hand-back waits (and
//   admission with it) until running sequences give blocks back. The worker holds no
//   blocks, so the pool cannot deadlock on it, and a running sequence older than the long
//   prompt never loses blocks to it.
// - Order: the worker takes one prompt at a time, in arrival order; a long prompt that
//   finds it busy keeps its place in line while shorter prompts behind it are admitted.
//   The sequence in the worker counts as running (metrics, max_running, exclusive()).
// - Cancellation and stop: the worker looks at the request's cancel flag and at the
//   scheduler's stop between chunks, so a cancelled request ends, and the destructor
//   returns, within one chunk's forward pass; a failing worker pass (memory, the device)
//   fails that request with its message, not the scheduler.
// - Backends: needs paged KV and DecodeSession::spawn / copyKvToBlocks (the CPU session).
//   Without paged KV (CUDA for now) the option does nothing, as prefill_chunk is ignored
//   there; a CUDA worker on a stream of its own is out of scope for now.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "inference/engine/backend/decode_session.h"
#include "inference/engine/core/result.h"
#include "inference/engine/decode/generator.h"
#include "inference/engine/serving/kv_block_manager.h"
#include "inference/engine/serving/prefill_worker.h"
#include "inference/engine/serving/prompt_pacer.h"
#include "inference/engine/tokenizer/tokenizer.h"

namespace ts::engine {

struct SchedulerOptions {
  int max_running = 8;              // sequences in one step
  int batch_tokens = 512;           // tokens per step: decoding sequences first, then prompt chunks
  int prefill_chunk = 256;          // prompt tokens per step (the oldest prompt's first, then the
                                    // next's), within batch_tokens; 0: whole prompts (they run
                                    // whole whatever the budget)
  int kv_blocks = 0;                // paged pool size; 0: defaultKvBlocks (planKvPool sizes it
                                    // by memory: kv_budget.h)
  int kv_memory_mb = 0;             // > 0: the pool in MiB, for planKvPool (the scheduler reads
                                    // kv_blocks only)
  int tpot_target_ms = 0;           // > 0: while sequences decode, prompt chunks are spread over
                                    // the steps so that their TPOT stays near this (PromptPacer);
                                    // 0: a chunk in every step
  int separate_prefill_tokens = 0;  // > 0: prompts with more tokens than this to compute
                                    // go to the prefill worker (above); 0: none
  int separate_prefill_threads = 0;  // the worker's CPU threads; 0: half the machine's
                                     // (ThreadPool::defaultThreads() / 2, at least 1): the
                                     // steps keep their session's threads, so the two
                                     // share the cores the way a split machine would
  // A new session in place of one that failed() (a CUDA fault): the requests of the failed
  // pass fail with its message, the next ones run on the new session. Empty: the failed
  // session stays, and every later request fails with its message.
  std::function<Result<std::unique_ptr<DecodeSession>>()> reopen;
};

// Positions per forward pass of the prefill worker: the longest a cancel or the
// scheduler's stop waits for it.
inline constexpr int kSeparatePrefillChunk = 256;

// Blocks of kKvBlock positions for a pool when none is named: two whole contexts, or
// max_running sequences of up to 1,024 positions, whichever is more.
int defaultKvBlocks(int context, int max_running);

// A histogram in Prometheus's form: counts of observations <= each bound (cumulative when
// written), their sum and count.
struct Histogram {
  std::vector<double> bounds;
  std::vector<uint64_t> counts;  // per bound, not cumulative; one more for +Inf
  double sum = 0;
  uint64_t count = 0;
  explicit Histogram(std::vector<double> upper_bounds);
  void observe(double value);
};

struct SchedulerMetrics {
  int running = 0, waiting = 0;
  int exclusive_waiting = 0;  // exclusive() callers waiting for the session
  int kv_blocks_total = 0, kv_blocks_used = 0, kv_blocks_cached = 0;
  uint64_t kv_bytes = 0;             // KV cache memory allocated now
  uint64_t kv_bytes_total = 0;       // the pool's size (paged), allocated as blocks are used
  uint64_t prompt_tokens = 0;        // of admitted requests (recomputations not counted)
  uint64_t prefix_hit_tokens = 0;    // prompt tokens found in the prefix cache
  uint64_t prefix_query_tokens = 0;  // prompt tokens looked up there
  uint64_t generation_tokens = 0;
  uint64_t requests_finished = 0;  // stop, length, cancelled or failed; each request once
  uint64_t preemptions = 0;
  uint64_t steps = 0;
  int separate_prefilling = 0;          // in the prefill worker now (counted in running too)
  uint64_t separate_prefills = 0;       // prompts the prefill worker computed (handed back)
  double separate_prefill_seconds = 0;  // the worker's time computing them
  uint64_t sessions_reopened = 0;       // failed sessions replaced (SchedulerOptions::reopen)
  Histogram step_seconds{{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}};
  Histogram step_tokens{{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048}};
  Histogram step_sequences{{1, 2, 4, 8, 16, 32, 64}};
};

// What one step ran (the app charts batch sizes over time).
struct StepRecord {
  std::chrono::steady_clock::time_point end;
  double seconds = 0;
  int sequences = 0, tokens = 0, prefill_tokens = 0;
};

struct ScheduledRequest {
  std::vector<int> prompt;  // not empty, shorter than the context
  int max_tokens = 128;
  SamplingConfig sampling;              // the request's own, seed included
  bool chat = false;                    // stop also at the chat format's user token
  int user_token = kBaichuanUserToken;  // that token (generation_config.json's user_token_id)
  // Set (by any thread) to cancel, also before the first token: checked every step.
  const std::atomic<bool>* cancel = nullptr;
};

class Scheduler {
 public:
  // Takes the session (its KV cache becomes the paged pool when the backend has one).
  Scheduler(std::unique_ptr<DecodeSession> session, Tokenizer tokenizer, SchedulerOptions options);
  // Cancels what runs or waits (an exclusive caller still waiting gets an error), joins the
  // thread, and returns once every caller has left generate and exclusive: another thread
  // may destroy the scheduler while callers wait in them.
  ~Scheduler();

  // Runs one request to its end: blocks the calling thread, calling on_token there as
  // tokens come (a token's text UTF-8-complete, as engine::generate gives them); on_token
  // returning false, or request.cancel set, cancels the request within a step, whether it
  // runs or waits. Returns once the request's blocks are given back: the outcome (finish
  // "cancelled" also when the scheduler stops), or an error that says why, never a throw:
  // the prompt cannot fit the context or the KV pool, the pass that ran it failed (the
  // device's message), memory ran out (what to do about it).
  Result<GenerationOutcome> generate(const ScheduledRequest& request,
                                     const std::function<bool(const GeneratedToken&)>& on_token);

  // Runs fn with the session on the calling thread once no sequence runs (those running
  // finish; waiting ones wait until fn returns), one caller at a time: speculative
  // decoding, which drives the session's own KV cache one sequence at a time. True when fn
  // ran; false, without running fn, when `cancel` is set while waiting; an error, without
  // running fn, when the scheduler stops meanwhile. Throws only what fn throws (fn is the
  // caller's: engine::generate inside it returns its failures as values).
  Result<bool> exclusive(const std::function<void(DecodeSession&)>& fn,
                         const std::atomic<bool>* cancel = nullptr);
  // The same, but the session keeps what the previous such caller left in it: fn gets the
  // tokens at the session's KV positions [0, held.size()) and must keep `held` true (as
  // engine::generate does with GenerateOptions::held), so that a speculative chat's next
  // turn prefills only its new tokens. Without paged KV the scheduler's own runs share the
  // session: `held` then says what they left.
  Result<bool> exclusiveKeeping(
      const std::function<void(DecodeSession&, std::vector<int>& held)>& fn,
      const std::atomic<bool>* cancel = nullptr);

  SchedulerMetrics metrics() const;
  // Called on the scheduler's thread after each step (keep it short).
  void onStep(std::function<void(const StepRecord&)> fn);
  int context() const { return context_; }  // positions per sequence
  bool paged() const { return paged_; }
  // Whether a prompt of `prompt` tokens can ever run: shorter than the context, and (paged)
  // its positions within the pool.
  bool fits(int prompt) const;
  // As given, with max_running, prefill_chunk, kv_blocks, tpot_target_ms and the separate
  // prefill's as they apply (unpaged: 1, 0, 0, 0, 0, 0; separate_prefill_threads the
  // worker's, 0 without one).
  const SchedulerOptions& options() const { return options_; }
  const Tokenizer& tokenizer() const { return tokenizer_; }

 private:
  struct Sequence;
  struct Inside;  // a caller in generate or exclusive, counted for the destructor
  struct Item {   // a sequence's share of a step: n of its tokens from `computed` on
    std::shared_ptr<Sequence> s;
    int n;
  };
  // A step, in its phases (the loop's thread).
  void step();
  void admit();                             // waiting -> running while there is room
  void dropCancelled();                     // running ones whose callers cancelled
  std::vector<Item> budget();               // each running sequence's tokens for this step
  void allocate(std::vector<Item>& items);  // KV blocks for them, preempting when out
  std::span<const float> forward(const std::vector<Item>& items, StepRecord& record);
  void publish(const std::vector<Item>& items, std::span<const float> logits,
               const StepRecord& record);  // tokens out, blocks to the prefix cache

  void loop();
  // The separate prefill (the loop's thread): whether the sequence goes to the worker (it
  // is idle and the sequence has more than the threshold to compute; `cached`: positions
  // the prefix cache holds, in `prefix`'s blocks), and the hand-off to it.
  bool separately(const Sequence& s, int& cached, std::vector<int>& prefix) const;
  void handOff(const std::shared_ptr<Sequence>& s, int cached, std::span<const int> prefix);
  // The worker's outcome: the sequence ends (cancelled, failed) or joins running_ once its
  // blocks are there (handBack); nothing while the worker computes.
  void collectSeparate();
  // False while the pool is too short for the sequence's blocks (it waits).
  bool handBack();
  // Places a waiting sequence's KV: its cached prefix shared, blocks for its prompt
  // available. The positions already computed, or nullopt when there is no room yet (its
  // table empty again). Throws std::bad_alloc (its table empty again) when memory ran out.
  std::optional<int> place(Sequence& s);
  // False, with table[from ..] given back, when memory for the new blocks ran out.
  bool allocated(std::vector<int>& table, size_t from);
  // The first time memory runs out: from then on the pool hands out blocks used before
  // (their memory is there) ahead of new ones, and true (try again before preempting).
  bool shortOfMemory();
  void finish(const std::shared_ptr<Sequence>& s, const std::string& reason);
  // Ends every running sequence with `message` (the pass that ran them failed).
  void failRunning(const std::string& message);
  // Lets a session that failed() go and opens another with options_.reopen (what the old
  // one held is forgotten); true when the session had failed.
  bool replaceFailedSession();
  std::shared_ptr<Sequence> preemptNewest();  // the sequence it sent back to wait
  // Ends a waiting sequence (mutex_ held): out of the queue, done, counted once.
  void dropWaiting(const std::shared_ptr<Sequence>& s, const std::string& reason);
  // Ends a waiting sequence with `error` unless its caller cancelled it (takes mutex_).
  void failWaiting(const std::shared_ptr<Sequence>& s, const std::string& error);
  // metrics' running / waiting counts and KV figures, from the queues and the pool
  // (mutex_ held; the loop's thread).
  void countQueues();
  // Samples the sequence's next token from `logits`: "" when it goes on, else how it ended
  // ("stop": end of sequence; "length": max_tokens or the context).
  // batch: sequences in the step (the token says so).
  std::string advance(Sequence& s, std::span<const float> logits, int batch);

  std::unique_ptr<DecodeSession> session_;
  const Tokenizer tokenizer_;
  SchedulerOptions options_;
  int context_;
  bool paged_;
  // The loop's thread alone:
  KvBlockManager blocks_;
  PromptPacer pacer_;
  std::vector<std::shared_ptr<Sequence>> running_;  // arrival order
  std::vector<int> held_;                  // unpaged: the tokens the session's one cache holds
  std::vector<int> exclusive_held_;        // paged: what exclusive callers left in the session's
                                           // own cache (the steps use the pool)
  bool short_of_memory_ = false;           // shortOfMemory
  std::unique_ptr<PrefillWorker> worker_;  // separate prefill; null without
  std::shared_ptr<Sequence> separate_;     // the sequence the worker computes or computed,
                                           // until it joins running_ or ends
  bool separate_computed_ = false;         // its KV is ready: it waits for blocks

  // What the loop shares with callers, under mutex_.
  struct Shared {
    std::deque<std::shared_ptr<Sequence>> waiting;  // arrival order (preempted ones first)
    uint64_t next_order = 0;
    SchedulerMetrics metrics;
    std::function<void(const StepRecord&)> on_step;
    bool stop = false;
    bool stepping = false;        // a step is running
    int exclusive_waiting = 0;    // exclusive() callers waiting: admission pauses
    bool exclusive_held = false;  // one of them has the session
    int callers = 0;              // in generate or exclusive (the destructor waits for 0)
    bool separate_ended = false;  // the prefill worker ended a job (wakes the loop)
  };
  mutable std::mutex mutex_;
  Shared shared_;
  std::condition_variable work_;      // the loop waits on it for requests
  std::condition_variable progress_;  // callers wait on it for tokens and the session
  std::thread thread_;
};

}  // namespace ts::engine
