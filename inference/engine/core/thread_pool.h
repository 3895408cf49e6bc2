// A fixed pool of worker threads for splitting one matrix-vector product (or any loop over
// independent rows) across cores. The calling thread works too.
//
// Decode runs a few dozen short jobs per token (one per weight matrix, ~0.1-1 ms each),
// so the pool is built for latency: a worker that finished a job spins briefly for the
// next one before it sleeps (a futex wake-up costs tens of microseconds on a VM), and row
// jobs hand out small chunks to whichever thread is free, so a worker that wakes late (or
// a core a noisy neighbour slows) does less instead of everyone waiting for it.
#pragma once
#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ts::engine {

class ThreadPool {
 public:
  explicit ThreadPool(int threads);  // threads >= 1; threads - 1 workers are started
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Calls fn(begin, end) on contiguous chunks covering [0, n), exactly one per thread (a
  // thread may get an empty one when n < threads), and returns when every chunk is done.
  void parallelFor(int n, const std::function<void(int, int)>& fn);
  // Calls fn(begin, end) on chunks of at most `grain` items covering [0, n), each taken by
  // whichever thread is free (calls on one thread run in increasing order); returns when
  // all are done. For work whose items are independent (rows of a product).
  void parallelChunks(int n, int grain, const std::function<void(int, int)>& fn);
  // Like parallelChunks, with chunks that shrink as the work runs out: each takes half of
  // what is left divided by the thread count, and never fewer than `min_grain` items. The
  // first chunks are long (long weight streams), the last ones short, so threads finish
  // within about a min_grain chunk of each other even when one of them was slowed.
  void parallelGuided(int n, int min_grain, const std::function<void(int, int)>& fn);
  int threads() const { return static_cast<int>(workers_.size()) + 1; }

  static int defaultThreads();  // one per core

 private:
  void run(int n, int grain, bool guided, const std::function<void(int, int)>& fn);
  void work(int index);
  void doChunks(int index);  // this thread's part of the current job

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  // The current job, published by incrementing generation_ (release).
  const std::function<void(int, int)>* fn_ = nullptr;
  int n_ = 0, grain_ = 0;  // grain_ 0: one fixed chunk per thread
  bool guided_ = false;    // grain_ is the smallest chunk of shrinking ones
  std::atomic<int> next_{0};
  std::atomic<long> generation_{0};
  std::atomic<int> pending_{0};  // workers still busy with the current job
  std::atomic<bool> stop_{false};
};

}  // namespace ts::engine
