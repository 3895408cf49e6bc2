// Spreads prompt chunks between decode-only steps so that the decoding sequences' time per
// output token (TPOT) stays near a target, at the cost of the prompts' time to first
// token: the TTFT/TPOT lever turned further than the chunk size alone can (on a CPU a
// 64-token chunk makes its step ~12x a decode step; paced, it comes once every ~17 steps).
//
// A credit in ms: each step with decoding sequences adds target - its duration (a decode
// step under the target saves, a step carrying a chunk spends); prompt chunks may join a
// step only while the credit is >= 0. So over a run of steps the decoders' average step
// time meets the target, give or take one chunk's overshoot spread over the run. When the
// decoders alone are slower than the target, prompts still get about a tenth of the time
// (they would never start otherwise). Without decoding sequences nothing is paced.
#pragma once
#include <algorithm>

namespace ts::engine {

class PromptPacer {
 public:
  // target_ms <= 0: no pacing (prompts may join every step).
  explicit PromptPacer(double target_ms) : target_ms_(target_ms) {}

  // May this step carry prompt tokens? decoding: some sequence in it adds one token.
  bool allowPrompts(bool decoding) const { return target_ms_ <= 0 || !decoding || credit_ms_ >= 0; }

  // After each step: whether it had decoding sequences, whether it carried prompt tokens,
  // and how long it took.
  void stepped(bool decoding, bool prompts, double step_ms) {
    if (target_ms_ <= 0) return;
    if (!decoding) {  // nobody's TPOT to protect: start afresh when decoders come
      credit_ms_ = 0;
      return;
    }
    const double saved = target_ms_ - step_ms;
    // A decode-only step spends nothing, and accrues at least a tenth of its time to the
    // prompts. Nothing is saved beyond the next chunk (credit <= 0): slack from stretches
    // without prompts would let chunks bunch up later.
    credit_ms_ = std::min(0.0, credit_ms_ + (prompts ? saved : std::max(saved, 0.1 * step_ms)));
  }

  double creditMs() const { return credit_ms_; }

 private:
  double target_ms_;
  double credit_ms_ = 0;
};

}  // namespace ts::engine
