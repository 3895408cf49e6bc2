// A speculative chat's turns on the scheduler's session (Scheduler::exclusiveKeeping): the
// second turn prefills only its new tokens (cached_tokens: the first turn's prompt and
// answer) and answers exactly what a fresh session answers on the whole conversation;
// paged (CPU) and unpaged (one cache shared with the scheduler's own runs) alike. An
// exclusive() caller, which may change the cache in any way, leaves nothing to reuse.
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "inference/engine/cpu/cpu_forward.h"
#include "inference/engine/decode/generator.h"
#include "inference/engine/decode/speculative.h"
#include "inference/engine/model/random_model.h"
#include "inference/engine/serving/scheduler.h"
#include "tests/inference/engine/check.h"
#include "tests/inference/engine/expect_error.h"

using namespace ts::engine;
using ts::testing::check;
using ts::testing::join;
using ts::testing::valueOf;

namespace {

constexpr int kContext = 256;

std::vector<int> promptOf(int n, unsigned seed, int vocab) {
  std::mt19937 rng(seed);
  std::vector<int> p(n);
  for (int& t : p) t = 3 + static_cast<int>(rng() % (vocab - 3));  // no BOS / EOS
  return p;
}

// The CPU session without its paged pool: the scheduler then shares its one cache.
class UnpagedSession : public DecodeSession {
 public:
  explicit UnpagedSession(std::unique_ptr<CpuSession> inner) : inner_(std::move(inner)) {}
  std::span<const float> forwardBatch(std::span<const int> tokens, int pos, bool all) override {
    return inner_->forwardBatch(tokens, pos, all);
  }
  void truncate(int length) override { inner_->truncate(length); }
  int vocab() const override { return inner_->vocab(); }
  int maxPositions() const override { return inner_->maxPositions(); }

 private:
  std::unique_ptr<CpuSession> inner_;
};

GenerateOptions speculative(DraftSource& draft) {
  GenerateOptions o;
  o.max_tokens = 12;
  o.sampling.temperature = 0;
  o.draft = &draft;
  o.speculative.k = 3;
  return o;
}

// One speculative turn on the scheduler's session, keeping what it holds.
GenerationOutcome turn(Scheduler& scheduler, const std::vector<int>& prompt, DraftSource& draft) {
  Result<GenerationOutcome> out = GenerationOutcome{};
  const auto ran = scheduler.exclusiveKeeping([&](DecodeSession& session, std::vector<int>& held) {
    GenerateOptions o = speculative(draft);
    o.held = &held;
    out = generate(session, scheduler.tokenizer(), prompt, o,
                   [](const GeneratedToken&) { return true; });
  });
  if (!ran || !ran.value()) check(false, "the turn ran: " + ts::testing::errorOf(ran));
  return valueOf(std::move(out), "a speculative turn");
}

}  // namespace

int main() {
  auto config = shapeConfig("llama-tiny", 2);
  if (!config) return 1;
  const std::shared_ptr<const Model> model = randomModel(config.value(), WeightFormat::F32, 11);
  const int vocab = config.value().vocab;
  const Tokenizer tokenizer{Vocabulary{}};

  for (const bool paged : {true, false}) {
    const std::string kind = paged ? "paged: " : "unpaged: ";
    auto cpu = std::make_unique<CpuSession>(model, kContext, KvFormat::F32, 2);
    std::unique_ptr<DecodeSession> session = paged
                                                 ? std::unique_ptr<DecodeSession>(std::move(cpu))
                                                 : std::make_unique<UnpagedSession>(std::move(cpu));
    Scheduler scheduler(std::move(session), tokenizer, SchedulerOptions{});
    ModelDraft draft("self-layers:1", selfDraftModel(*model, 1), kContext, KvFormat::F32, 1);

    const std::vector<int> first = promptOf(30, 1, vocab);
    const GenerationOutcome one = turn(scheduler, first, draft);
    check(one.cached_tokens == 0 && !one.ids.empty(), kind + "turn 1 prefills its whole prompt");

    std::vector<int> second = first;  // the conversation: turn 1's prompt, answer, more
    second.insert(second.end(), one.ids.begin(), one.ids.end());
    const std::vector<int> more = promptOf(9, 2, vocab);
    second.insert(second.end(), more.begin(), more.end());
    const GenerationOutcome two = turn(scheduler, second, draft);
    // All of turn 1 but its last token, which was sampled and never run.
    const int held = static_cast<int>(first.size() + one.ids.size()) - 1;
    check(two.cached_tokens >= held && two.cached_tokens < static_cast<int>(second.size()),
          kind + "turn 2 reuses turn 1's rows: cached " + std::to_string(two.cached_tokens) +
              " of " + std::to_string(second.size()) + " (turn 1 held " + std::to_string(held) +
              ")");

    CpuSession fresh(model, kContext, KvFormat::F32, 2);
    ModelDraft fresh_draft("self-layers:1", selfDraftModel(*model, 1), kContext, KvFormat::F32, 1);
    const GenerationOutcome alone =
        valueOf(generate(fresh, tokenizer, second, speculative(fresh_draft),
                         [](const GeneratedToken&) { return true; }),
                "a fresh session's turn");
    check(alone.cached_tokens == 0 && two.ids == alone.ids,
          kind + "turn 2 answers what a fresh session answers: " + join(two.ids) + " vs " +
              join(alone.ids));

    // A plain exclusive caller: nothing is known of the cache after it.
    (void)scheduler.exclusive([](DecodeSession& s) {
      s.forwardBatch(std::vector<int>{5, 6, 7}, 0, false);
    });
    std::vector<int> third = second;
    third.insert(third.end(), two.ids.begin(), two.ids.end());
    third.push_back(9);
    const GenerationOutcome three = turn(scheduler, third, draft);
    check(three.cached_tokens == 0,
          kind + "after an exclusive() caller the next turn reuses nothing (cached " +
              std::to_string(three.cached_tokens) + ")");
  }
  return ts::testing::finish();
}
