#include "inference/engine/core/thread_pool.h"

#include <algorithm>
#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TS_CPU_RELAX() _mm_pause()
#else
#define TS_CPU_RELAX() std::this_thread::yield()
#endif

namespace ts::engine {
namespace {

// Chunk `index` of `parts` over [0, n): contiguous, sizes differ by at most one.
std::pair<int, int> chunk(int n, int parts, int index) {
  const int base = n / parts, extra = n % parts;
  const int begin = index * base + std::min(index, extra);
  return {begin, begin + base + (index < extra ? 1 : 0)};
}

// How long an idle thread polls before it sleeps: longer than the gap between two jobs
// of one decode step (norms, activation quantization: a few microseconds), far shorter
// than anything a person would notice as a busy core.
constexpr auto kSpin = std::chrono::microseconds(200);

// Polls `ready` until it returns true or kSpin has passed; returns its last answer.
template <class Ready>
bool spinUntil(Ready ready) {
  const auto deadline = std::chrono::steady_clock::now() + kSpin;
  for (int i = 0;; ++i) {
    if (ready()) return true;
    TS_CPU_RELAX();
    if (i % 64 == 63 && std::chrono::steady_clock::now() > deadline) return ready();
  }
}

}  // namespace

ThreadPool::ThreadPool(int threads) {
  for (int i = 1; i < std::max(1, threads); ++i) workers_.emplace_back([this, i] { work(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stop_.store(true, std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_release);
  }
  start_.notify_all();
  for (auto& t : workers_) t.join();
}

int ThreadPool::defaultThreads() {
  return std::max(1u, std::thread::hardware_concurrency());
}

void ThreadPool::parallelFor(int n, const std::function<void(int, int)>& fn) {
  if (threads() == 1) return fn(0, n);
  run(n, 0, false, fn);
}

void ThreadPool::parallelChunks(int n, int grain, const std::function<void(int, int)>& fn) {
  if (threads() == 1 || n <= grain) return fn(0, n);
  run(n, std::max(1, grain), false, fn);
}

void ThreadPool::parallelGuided(int n, int min_grain, const std::function<void(int, int)>& fn) {
  if (threads() == 1 || n <= min_grain) return fn(0, n);
  run(n, std::max(1, min_grain), true, fn);
}

void ThreadPool::run(int n, int grain, bool guided, const std::function<void(int, int)>& fn) {
  fn_ = &fn;
  n_ = n;
  grain_ = grain;
  guided_ = guided;
  next_.store(0, std::memory_order_relaxed);
  pending_.store(threads() - 1, std::memory_order_relaxed);
  {
    // Under the mutex, so a worker between its last check and its wait cannot miss it.
    std::lock_guard lock(mutex_);
    generation_.fetch_add(1, std::memory_order_release);
  }
  start_.notify_all();
  doChunks(0);
  if (!spinUntil([this] { return pending_.load(std::memory_order_acquire) == 0; })) {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [this] { return pending_.load(std::memory_order_acquire) == 0; });
  }
  fn_ = nullptr;
}

void ThreadPool::doChunks(int index) {
  const std::function<void(int, int)>& fn = *fn_;
  if (grain_ == 0) {
    const auto [begin, end] = chunk(n_, threads(), index);
    fn(begin, end);
    return;
  }
  if (!guided_) {
    for (int begin; (begin = next_.fetch_add(grain_, std::memory_order_relaxed)) < n_;)
      fn(begin, std::min(n_, begin + grain_));
    return;
  }
  const int share = 2 * threads();
  int begin = next_.load(std::memory_order_relaxed);
  while (begin < n_) {
    const int end = std::min(n_, begin + std::max(grain_, (n_ - begin) / share));
    // a failed exchange reloads `begin` with what another thread left
    if (!next_.compare_exchange_weak(begin, end, std::memory_order_relaxed)) continue;
    fn(begin, end);
    begin = next_.load(std::memory_order_relaxed);
  }
}

void ThreadPool::work(int index) {
  long seen = 0;
  for (;;) {
    auto fresh = [&] { return generation_.load(std::memory_order_acquire) != seen; };
    if (!spinUntil(fresh)) {
      std::unique_lock lock(mutex_);
      start_.wait(lock, fresh);
    }
    seen = generation_.load(std::memory_order_acquire);
    if (stop_.load(std::memory_order_relaxed)) return;
    doChunks(index);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard lock(mutex_);  // pairs with the caller's check before it waits
      done_.notify_one();
    }
  }
}

}  // namespace ts::engine
