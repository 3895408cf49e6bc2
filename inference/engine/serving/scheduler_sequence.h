// The scheduler's own parts shared by its .cpp files (scheduler.cpp: the steps;
// scheduler_separate.cpp: the separate prefill): one request's state and block arithmetic.
// Not for other code: include scheduler.h.
#pragma once
#include <atomic>
#include <chrono>
#include <deque>
#include <string>
#include <vector>

#include "inference/engine/decode/sampler.h"
#include "inference/engine/model/kv_cache.h"
#include "inference/engine/serving/scheduler.h"
#include "inference/engine/tokenizer/tokenizer.h"

namespace ts::engine {

using Clock = std::chrono::steady_clock;

// Pool blocks that hold `positions` positions.
inline int blocksFor(int positions) {
  return (positions + kKvBlock - 1) / kKvBlock;
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
  std::vector<int> table;  // paged: its KV blocks (none while it waits)
  int computed = 0;        // positions whose KV rows are in its blocks
  int generated = 0;
  bool admitted_before = false;
  Clock::time_point submitted;
  const std::atomic<bool>* cancel = nullptr;  // the caller's flag (any thread sets it)
  bool chat = false;
  int user_token = kBaichuanUserToken;
  std::atomic<bool> stopped_reading{false};  // on_token returned false

  // Under the mutex:
  bool queued = false;             // in shared_.waiting
  bool parked = false;             // waiting for the busy prefill worker (admit passed it)
  std::deque<GeneratedToken> out;  // not yet handed to the caller
  GenerationOutcome outcome;       // ids, text, finish, cached_tokens, prefill_ms
  std::string error;
  bool done = false;

  explicit Sequence(const SamplingConfig& sampling) : sampler(sampling) {}
  bool cancelled() const { return stopped_reading.load() || (cancel && cancel->load()); }
};

}  // namespace ts::engine
