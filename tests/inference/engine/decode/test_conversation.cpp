// A conversation's next turn on the same session: generate() keeps what the KV cache
// holds and prefills only the tokens after the longest common prefix; the answer at
// temperature 0 equals a fresh session's on the whole prompt. An edited earlier turn cuts
// the reuse back to where the prompts part. Run on the ktiny Q4_0 file (weights as
// stored) with the default f16 KV cache.
#include <cstdlib>
#include <filesystem>

#include "tests/inference/engine/check.h"
#include "tests/inference/engine/expect_error.h"

#include "inference/engine/cpu/cpu_forward.h"
#include "inference/engine/decode/generator.h"
#include "inference/engine/formats/model_loader.h"

using namespace ts::engine;
using ts::testing::check;
using ts::testing::join;
namespace fs = std::filesystem;

namespace {

GenerationOutcome run(CpuSession& session, const Tokenizer& tokenizer,
                      const std::vector<int>& prompt, std::vector<int>* held, int max_tokens) {
  GenerateOptions o;
  o.max_tokens = max_tokens;
  o.sampling.temperature = 0;
  o.held = held;
  return ts::testing::valueOf(
      generate(session, tokenizer, prompt, o, [](const GeneratedToken&) { return true; }),
      "a turn");
}

}  // namespace

int main() {
  const char* shared = std::getenv("TOKENSCOPE_SHARED_DIR");
  const fs::path file = fs::path(shared ? shared : "../shared") / "models/ktiny/ktiny-Q4_0.gguf";
  if (!fs::exists(file)) {
    std::printf("SKIP %s not found: the ktiny fixtures are absent\n", file.string().c_str());
    return ts::testing::finish();
  }
  auto model = loadModel(file.string());
  check(model.ok(), "ktiny Q4_0 loads");
  if (!model) return ts::testing::finish();
  const Tokenizer tokenizer(model.value()->vocab);
  CpuSession session(model.value(), 256, KvFormat::F16, 2);
  std::vector<int> held;

  std::vector<int> prompt = {1, 100, 200, 300, 400, 500};
  std::vector<int> turns_prompt = prompt;
  for (int turn = 0; turn < 4; ++turn) {
    const GenerationOutcome out = run(session, tokenizer, turns_prompt, &held, 12);
    // Tokens fed so far: the prompt and every answer token but one not fed after the last
    // step (a length finish samples it without running it).
    const size_t expect_cached = turn == 0 ? 0 : prompt.size();
    check(out.cached_tokens == static_cast<int>(expect_cached),
          "turn " + std::to_string(turn + 1) + ": " + std::to_string(out.cached_tokens) +
              " prompt tokens reused of " + std::to_string(turns_prompt.size()) + " (expected " +
              std::to_string(expect_cached) + ")");
    CpuSession fresh(model.value(), 256, KvFormat::F16, 2);
    const GenerationOutcome alone = run(fresh, tokenizer, turns_prompt, nullptr, 12);
    check(out.ids == alone.ids, "turn " + std::to_string(turn + 1) + ": the answer " +
                                    join(out.ids) + " equals a fresh session's " + join(alone.ids));
    check(held.size() == turns_prompt.size() + out.ids.size() - 1,
          "the session holds the prompt and the answer's fed tokens (" +
              std::to_string(held.size()) + ")");
    // The next turn: this prompt, the answer, and a new user message.
    prompt = turns_prompt;
    prompt.insert(prompt.end(), out.ids.begin(), out.ids.end() - 1);
    turns_prompt = prompt;
    turns_prompt.push_back(out.ids.back());
    for (int i = 0; i < 5; ++i) turns_prompt.push_back(10 + 37 * turn + i);
  }
  // Editing an early message: reuse stops where the prompts part.
  std::vector<int> edited = turns_prompt;
  edited[3] = 777;
  const GenerationOutcome out = run(session, tokenizer, edited, &held, 4);
  check(out.cached_tokens == 3,
        "an edit at position 3 reuses 3 tokens, found " + std::to_string(out.cached_tokens));
  CpuSession fresh(model.value(), 256, KvFormat::F16, 2);
  check(out.ids == run(fresh, tokenizer, edited, nullptr, 4).ids,
        "after an edit the answer equals a fresh session's");
  return ts::testing::finish();
}
