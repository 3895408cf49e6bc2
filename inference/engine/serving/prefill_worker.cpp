#include "inference/engine/serving/prefill_worker.h"

#include <algorithm>
#include <chrono>
#include <new>
#include <span>
#include <stdexcept>

#include "inference/engine/core/edge.h"

namespace ts::engine {

namespace {
std::atomic<int> failing_prefills{0};

bool injectedFailure() {
  int n = failing_prefills.load();
  while (n > 0)
    if (failing_prefills.compare_exchange_weak(n, n - 1)) return true;
  return false;
}
}  // namespace

void testing::failSeparatePrefills(int count) {
  failing_prefills = std::max(count, 0);
}

PrefillWorker::PrefillWorker(std::unique_ptr<DecodeSession> session, int chunk,
                             std::function<void()> finished)
    : session_(std::move(session)), chunk_(std::max(1, chunk)), finished_(std::move(finished)) {
  thread_ = std::thread([this] { loop(); });
}

PrefillWorker::~PrefillWorker() {
  requestStop();
  thread_.join();
}

void PrefillWorker::requestStop() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
}

void PrefillWorker::start(Job job) {
  if (busy_) throw std::logic_error("PrefillWorker::start: a job is under way");
  busy_ = true;
  {
    std::lock_guard lock(mutex_);
    job_ = std::move(job);
  }
  wake_.notify_all();
}

std::optional<PrefillWorker::Outcome> PrefillWorker::take() {
  std::lock_guard lock(mutex_);
  if (!outcome_) return std::nullopt;
  std::optional<Outcome> out = std::move(outcome_);
  outcome_.reset();
  busy_ = false;
  return out;
}

void PrefillWorker::loop() {
  while (true) {
    Job job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || job_; });
      if (stop_) return;
      job = std::move(*job_);
      job_.reset();
    }
    Outcome out = compute(job);
    job = Job{};  // what it holds (the request, through `cancelled`) let go before the end
    {
      std::lock_guard lock(mutex_);
      outcome_ = std::move(out);
    }
    if (finished_) finished_();
  }
}

PrefillWorker::Outcome PrefillWorker::compute(const Job& job) {
  Outcome out;
  const auto t0 = std::chrono::steady_clock::now();
  const int end = static_cast<int>(job.tokens.size());
  try {
    bool fail = injectedFailure();
    for (int pos = job.from; pos < end; pos += chunk_) {
      if (stop_ || (job.cancelled && job.cancelled())) {
        out.cancelled = true;
        break;
      }
      if (fail) throw std::bad_alloc();
      const int n = std::min(chunk_, end - pos);
      session_->forwardBatch(std::span<const int>(job.tokens).subspan(pos, n), pos, false);
    }
  } catch (const std::bad_alloc&) {
    out.error =
        outOfMemory("for the separate prefill of a " + std::to_string(end) + "-token prompt")
            .message;
  } catch (const std::exception& e) {  // the device's message, or the session's
    out.error = std::string("the separate prefill failed: ") + e.what();
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace ts::engine
