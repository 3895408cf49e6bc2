// The engine's edge (inference/engine/README.md, "Errors"): what fails below engine::generate,
// speculative decoding and Scheduler::generate comes back as an error value, never a throw --
// the device failing mid-run (its message: "CUDA: ..."), memory running out (a message that
// says what to do) -- and the session serves the next generation as a fresh one would. A
// broken caller contract (std::out_of_range) still throws: it is a bug. A random
// llama-tiny-shape model, so no fixture is needed; the failures come from a session that
// fails its n-th pass as a device would.
#include <atomic>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "inference/engine/cpu/cpu_forward.h"
#include "inference/engine/decode/generator.h"
#include "inference/engine/model/random_model.h"
#include "inference/engine/serving/scheduler.h"
#include "tests/inference/engine/check.h"
#include "tests/inference/engine/expect_error.h"

using namespace ts::engine;
using ts::testing::check;
using ts::testing::errorOf;
using ts::testing::expectError;
using ts::testing::join;
using ts::testing::valueOf;

namespace {

constexpr int kContext = 256;
enum class Failure { None, Device, Memory, Contract };

// A CPU session whose pass number `fail_at` (1: the first) fails as `failure` says; the
// passes after it run again (a device reset, memory freed meanwhile).
class FailingSession : public DecodeSession {
 public:
  FailingSession(std::shared_ptr<const Model> model, int fail_at, Failure failure)
      : inner_(std::move(model), kContext, KvFormat::F32, 1),
        fail_at_(fail_at),
        failure_(failure) {}
  std::span<const float> forwardBatch(std::span<const int> tokens, int pos, bool all) override {
    pass();
    return inner_.forwardBatch(tokens, pos, all);
  }
  std::span<const float> forwardSequences(std::span<const SequencePass> passes) override {
    pass();
    return inner_.forwardSequences(passes);
  }
  void truncate(int length) override { inner_.truncate(length); }
  int vocab() const override { return inner_.vocab(); }
  int maxPositions() const override { return inner_.maxPositions(); }
  bool usePagedKv(int blocks) override { return inner_.usePagedKv(blocks); }
  void copyKvBlock(int from, int to) override { inner_.copyKvBlock(from, to); }
  void allocateKvBlocks(std::span<const int> blocks) override { inner_.allocateKvBlocks(blocks); }
  size_t kvCacheBytes() const override { return inner_.kvCacheBytes(); }
  size_t kvBlockBytes() const override { return inner_.kvBlockBytes(); }

 private:
  void pass() {
    if (++passes_ != fail_at_) return;
    switch (failure_) {
      case Failure::Device:
        throw std::runtime_error("CUDA: an illegal memory access was encountered");
      case Failure::Memory:
        throw std::bad_alloc();
      case Failure::Contract:
        throw std::out_of_range("position 300 is past the KV cache's 256");
      case Failure::None:
        break;
    }
  }
  CpuSession inner_;
  std::atomic<int> passes_{0};
  int fail_at_;
  Failure failure_;
};

GenerateOptions greedy(int max_tokens, std::vector<int>* held = nullptr) {
  GenerateOptions o;
  o.max_tokens = max_tokens;
  o.sampling.temperature = 0;
  o.held = held;
  return o;
}

// The ids a fresh session answers `prompt` with.
std::vector<int> fresh(const std::shared_ptr<const Model>& model, const Tokenizer& tokenizer,
                       const std::vector<int>& prompt, int max_tokens) {
  FailingSession session(model, 0, Failure::None);
  return valueOf(generate(session, tokenizer, prompt, greedy(max_tokens),
                          [](const GeneratedToken&) { return true; }),
                 "a fresh run")
      .ids;
}

// The device fails at the third pass (the second decode step): an error value with the
// device's message, the tokens before it were shown, `held` is emptied, and the same
// session then answers the next turn as a fresh one.
void deviceFailureMidRun(const std::shared_ptr<const Model>& model, const Tokenizer& tokenizer) {
  FailingSession session(model, 3, Failure::Device);
  const std::vector<int> prompt = {5, 17, 42, 99};
  std::vector<int> held = {7, 7, 7};
  int shown = 0;
  const auto failed = generate(session, tokenizer, prompt, greedy(8, &held),
                               [&](const GeneratedToken& t) { return t.id < 0 || ++shown > 0; });
  check(!failed && errorOf(failed) == "CUDA: an illegal memory access was encountered",
        "a device failing mid-run is an error value with its message: '" + errorOf(failed) + "'");
  check(shown == 2 && held.empty(), "the 2 tokens before it were shown (" + std::to_string(shown) +
                                        "), and nothing is said to be held (" +
                                        std::to_string(held.size()) + ")");
  const auto next = generate(session, tokenizer, prompt, greedy(8, &held),
                             [](const GeneratedToken&) { return true; });
  check(next.ok() && next->ids == fresh(model, tokenizer, prompt, 8) && next->cached_tokens == 0,
        "the session then answers as a fresh one: " + (next ? join(next->ids) : next.error()));
}

// Memory runs out in the prefill: the value says what to do about it.
void memoryOutInThePrefill(const std::shared_ptr<const Model>& model, const Tokenizer& tokenizer) {
  FailingSession session(model, 1, Failure::Memory);
  const auto failed = generate(session, tokenizer, {5, 17, 42, 99}, greedy(8),
                               [](const GeneratedToken&) { return true; });
  check(!failed, "memory running out is an error value");
  expectError(errorOf(failed),
              "not enough memory for the KV cache and activations of 4 prompt tokens and 8 "
              "more: run fewer sequences at once, a smaller context or a smaller KV cache "
              "format (f16, int8)",
              "and it says what to do");
}

// A position past the cache is the caller's bug: it still throws.
void brokenContractThrows(const std::shared_ptr<const Model>& model, const Tokenizer& tokenizer) {
  FailingSession session(model, 1, Failure::Contract);
  std::string thrown;
  try {
    (void)generate(session, tokenizer, {5, 17}, greedy(4),
                   [](const GeneratedToken&) { return true; });
  } catch (const std::out_of_range& e) {
    thrown = e.what();
  }
  check(thrown == "position 300 is past the KV cache's 256",
        "a broken caller contract still throws std::out_of_range: '" + thrown + "'");
}

// Speculative decoding: the target failing in a verify pass is the same error value.
void speculativeDeviceFailure(const std::shared_ptr<const Model>& model,
                              const Tokenizer& tokenizer) {
  FailingSession session(model, 2, Failure::Device);
  ModelDraft draft("self-layers:1", selfDraftModel(*model, 1), kContext, KvFormat::F32, 1);
  GenerateOptions o = greedy(12);
  o.draft = &draft;
  const auto failed =
      generate(session, tokenizer, {5, 17, 42, 99}, o, [](const GeneratedToken&) { return true; });
  check(!failed && errorOf(failed) == "CUDA: an illegal memory access was encountered",
        "speculative decoding: the target failing is an error value: '" + errorOf(failed) + "'");
}

// Scheduler::generate: a failing pass ends its requests with an error value (the device's
// message, or what to do when memory ran out); the scheduler serves the next request.
void schedulerPassFailures(const std::shared_ptr<const Model>& model, const Tokenizer& tokenizer) {
  ScheduledRequest r;
  r.prompt = {5, 17, 42, 99};
  r.max_tokens = 6;
  r.sampling.temperature = 0;
  const auto none = [](const GeneratedToken&) { return true; };
  for (const Failure failure : {Failure::Device, Failure::Memory}) {
    Scheduler scheduler(std::make_unique<FailingSession>(model, 2, failure), tokenizer,
                        SchedulerOptions{});
    const auto failed = scheduler.generate(r, none);
    const std::string want =
        failure == Failure::Device
            ? "CUDA: an illegal memory access was encountered"
            : "not enough memory for a pass of 1 sequence: run fewer sequences at once, a "
              "smaller context or a smaller KV cache format (f16, int8)";
    check(!failed && errorOf(failed) == want,
          "Scheduler::generate: a failed pass is an error value: '" + errorOf(failed) + "'");
    const auto next = scheduler.generate(r, none);
    check(next.ok() && next->ids == fresh(model, tokenizer, r.prompt, 6) &&
              scheduler.metrics().kv_blocks_used == 0,
          "and the next request answers as on a fresh session, every block given back");
  }
}

}  // namespace

int main() {
  auto config = shapeConfig("llama-tiny", 2);
  if (!config) return 1;
  const std::shared_ptr<const Model> model = randomModel(config.value(), WeightFormat::F32, 5);
  const Tokenizer tokenizer{Vocabulary{}};
  deviceFailureMidRun(model, tokenizer);
  memoryOutInThePrefill(model, tokenizer);
  brokenContractThrows(model, tokenizer);
  speculativeDeviceFailure(model, tokenizer);
  schedulerPassFailures(model, tokenizer);
  return ts::testing::finish();
}
