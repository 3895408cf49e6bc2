// A fixed pool of worker threads for splitting one matrix-vector product (or any loop over
// independent rows) across cores. The calling thread takes the first chunk itself.
#pragma once
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

  // Calls fn(begin, end) on contiguous chunks covering [0, n), one per thread, and returns
  // when every chunk is done.
  void parallelFor(int n, const std::function<void(int, int)>& fn);
  int threads() const { return static_cast<int>(workers_.size()) + 1; }

  static int defaultThreads();  // one per core

 private:
  void work(int index);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  const std::function<void(int, int)>* fn_ = nullptr;
  int n_ = 0;
  long generation_ = 0;
  int pending_ = 0;
  bool stop_ = false;
};

}  // namespace ts::engine
