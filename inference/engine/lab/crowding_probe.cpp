#include "inference/engine/lab/crowding_probe.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <span>
#include <thread>
#include <vector>

#include "inference/engine/lab/bootstrap.h"

namespace ts::engine::lab {
namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::vector<int> probeTokens(int n, int vocab) {
  std::vector<int> out(n);
  for (int i = 0; i < n; ++i) out[i] = 3 + (i * 104729) % std::max(1, vocab - 3);
  return out;
}

// The steps' decoding sequence: a short prompt, then one position after another (wrapping
// back to the prompt's end before the cache fills).
class Stepper {
 public:
  explicit Stepper(DecodeSession& s) : s_(s), prompt_(probeTokens(16, s.vocab())) {
    s_.truncate(0);
    s_.forwardBatch(prompt_, 0, false);
    pos_ = static_cast<int>(prompt_.size());
  }
  ~Stepper() { s_.truncate(0); }
  double step() {
    if (pos_ + 1 >= std::min(s_.maxPositions(), 16 + 256)) pos_ = static_cast<int>(prompt_.size());
    s_.truncate(pos_);
    const double t0 = now();
    const int token = prompt_[pos_ % prompt_.size()];
    s_.forwardBatch(std::span(&token, 1), pos_, false);
    ++pos_;
    return now() - t0;
  }

 private:
  DecodeSession& s_;
  std::vector<int> prompt_;
  int pos_ = 0;
};

}  // namespace

std::optional<Crowding> measureCrowding(DecodeSession& steps, int worker_threads, int chunk,
                                        int chunks) {
  std::unique_ptr<DecodeSession> worker = steps.spawn(chunk, std::max(1, worker_threads));
  if (!worker) return std::nullopt;
  const std::vector<int> prompt = probeTokens(chunk, steps.vocab());
  Stepper stepper(steps);
  Crowding out;
  std::vector<double> alone;
  for (int i = 0; i < 9; ++i) alone.push_back(stepper.step());
  out.step_alone_s = medianOf(alone);

  std::atomic<bool> started{false}, finished{false};
  double worker_s = 0;
  std::thread beside([&] {
    started = true;
    const double t0 = now();
    for (int c = 0; c < chunks; ++c) {
      worker->truncate(0);
      worker->forwardBatch(prompt, 0, false);
    }
    worker_s = now() - t0;
    finished = true;
  });
  while (!started) std::this_thread::yield();
  std::vector<double> crowded;
  do {  // at least one step beside it, however the threads are scheduled on a busy machine
    crowded.push_back(stepper.step());
  } while (!finished);
  beside.join();
  // The last step may have ended after the worker: it ran partly alone; drop it when
  // there are others.
  if (crowded.size() > 1) crowded.pop_back();
  out.step_beside_s = medianOf(crowded);
  out.worker_token_s = worker_s / (static_cast<double>(chunk) * chunks);
  return out;
}

}  // namespace ts::engine::lab
