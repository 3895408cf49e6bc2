#include "tests/bench/engine/conversation_bench.h"

#include "inference/engine/cpu/cpu_forward.h"
#include "inference/engine/decode/generator.h"
#include "inference/engine/decode/open_session.h"
#include "tests/bench/engine/bench_clock.h"

namespace ts::bench {

engine::Result<std::vector<ConversationTurn>> runConversation(
    std::shared_ptr<const engine::Model> model, int turns, int turn_tokens, int gen_tokens,
    engine::KvFormat kv, int threads) {
  using namespace engine;
  Vocabulary vocab = model->vocab;
  if (vocab.pieces.empty())  // random files carry none: name the ids
    for (int i = 0; i < model->config.vocab; ++i)
      vocab.pieces.push_back("<" + std::to_string(i) + ">");
  const Tokenizer tokenizer(vocab);
  CpuSession session(model, defaultPositions(model->config), kv, threads);
  std::vector<int> held, prompt;
  std::vector<ConversationTurn> out;
  for (int t = 0; t < turns; ++t) {
    for (int i = 0; i < turn_tokens; ++i)
      prompt.push_back(3 + (t * 7919 + i * 104729) % (model->config.vocab - 3));
    GenerateOptions o;
    o.max_tokens = gen_tokens;
    o.sampling.temperature = 0;
    o.held = &held;
    const double start = now();
    double first = 0;
    const auto generated = generate(session, tokenizer, prompt, o, [&](const GeneratedToken&) {
      if (first == 0) first = now();
      return true;
    });
    if (!generated) return fail("turn " + std::to_string(t + 1) + ": " + generated.error());
    const GenerationOutcome& g = generated.value();
    out.push_back({((first > 0 ? first : now()) - start) * 1e3, static_cast<int>(prompt.size()),
                   g.cached_tokens});
    prompt.insert(prompt.end(), g.ids.begin(), g.ids.end());
  }
  return out;
}

}  // namespace ts::bench
