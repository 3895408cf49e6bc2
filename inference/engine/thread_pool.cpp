#include "inference/engine/thread_pool.h"

#include <algorithm>

namespace ts::engine {
namespace {
// Chunk `index` of `parts` over [0, n): contiguous, sizes differ by at most one.
std::pair<int, int> chunk(int n, int parts, int index) {
  const int base = n / parts, extra = n % parts;
  const int begin = index * base + std::min(index, extra);
  return {begin, begin + base + (index < extra ? 1 : 0)};
}
}  // namespace

ThreadPool::ThreadPool(int threads) {
  for (int i = 1; i < std::max(1, threads); ++i) workers_.emplace_back([this, i] { work(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  start_.notify_all();
  for (auto& t : workers_) t.join();
}

int ThreadPool::defaultThreads() {
  return std::max(1u, std::thread::hardware_concurrency());
}

void ThreadPool::parallelFor(int n, const std::function<void(int, int)>& fn) {
  const int parts = threads();
  if (parts == 1 || n < parts) {
    fn(0, n);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    fn_ = &fn;
    n_ = n;
    pending_ = parts - 1;
    ++generation_;
  }
  start_.notify_all();
  const auto [begin, end] = chunk(n, parts, 0);
  fn(begin, end);
  std::unique_lock lock(mutex_);
  done_.wait(lock, [this] { return pending_ == 0; });
  fn_ = nullptr;
}

void ThreadPool::work(int index) {
  long seen = 0;
  for (;;) {
    const std::function<void(int, int)>* fn;
    int n;
    {
      std::unique_lock lock(mutex_);
      start_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      fn = fn_;
      n = n_;
    }
    const auto [begin, end] = chunk(n, threads(), index);
    (*fn)(begin, end);
    {
      std::lock_guard lock(mutex_);
      if (--pending_ == 0) done_.notify_one();
    }
  }
}

}  // namespace ts::engine
