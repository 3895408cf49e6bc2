// The serving scheduler's separate prefill worker (SchedulerOptions::separate_prefill_tokens):
// a thread with a decoding session of its own (its own KV cache and CPU threads,
// DecodeSession::spawn) that computes one long prompt at a time, in chunks, while the
// scheduler's steps go on decoding the others. Disaggregated prefill as vLLM and DistServe
// do it, within one process.
//
//   scheduler's thread                          worker's thread
//   start(job) ─────────────────────────────▶   chunk, chunk, chunk ... (cancel / stop
//     (cached prefix copied into session()         looked at between chunks)
//      first)                                         │
//   take() ◀── finished() wakes the scheduler ◀───────┘
//     then the KV rows copied out of session() into the sequence's pool blocks
//
// Who touches the session when: between start() and the outcome's take() the worker alone;
// otherwise the scheduler's thread alone (it copies a cached prefix in before, and the
// computed KV out after). The worker never touches the scheduler's session or pool.
#pragma once
#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "inference/engine/backend/decode_session.h"

namespace ts::engine {

class PrefillWorker {
 public:
  struct Job {
    std::vector<int> tokens;          // the sequence's tokens: positions [from, tokens.size()) to
                                      // compute
    int from = 0;                     // positions [0, from) are in the session already
    std::function<bool()> cancelled;  // looked at before each chunk, on the worker's thread
  };
  struct Outcome {
    bool cancelled = false;  // cancelled or stopped before the end
    std::string error;       // the forward pass failed: why (a message for the caller)
    double seconds = 0;      // computing
  };

  // chunk: positions per forward pass (the longest a cancel or a stop waits for).
  // finished: called on the worker's thread after each job, outside the worker's lock (the
  // scheduler wakes its loop).
  PrefillWorker(std::unique_ptr<DecodeSession> session, int chunk, std::function<void()> finished);
  // Stops within the chunk being computed, and joins.
  ~PrefillWorker();
  PrefillWorker(const PrefillWorker&) = delete;
  PrefillWorker& operator=(const PrefillWorker&) = delete;

  // Asks the thread to stop at its next chunk boundary (the destructor waits for it).
  void requestStop();
  // While idle only (no job started, or its outcome taken).
  DecodeSession& session() { return *session_; }
  void start(Job job);                 // idle only
  bool busy() const { return busy_; }  // a job started and its outcome not yet taken
  // The job's outcome once it has ended (then idle again); nullopt while it runs.
  std::optional<Outcome> take();

 private:
  void loop();
  Outcome compute(const Job& job);

  std::unique_ptr<DecodeSession> session_;
  const int chunk_;
  const std::function<void()> finished_;
  bool busy_ = false;  // the scheduler's thread alone
  std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<Job> job_;          // given, not yet picked up
  std::optional<Outcome> outcome_;  // ended, not yet taken
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

namespace testing {
// Test hook: the next `count` jobs of any PrefillWorker fail in their first chunk as if
// memory had run out there (std::bad_alloc); 0 disarms.
void failSeparatePrefills(int count);
}  // namespace testing

}  // namespace ts::engine
