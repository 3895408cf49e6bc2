#include "inference/engine/decode/generator.h"

#include <chrono>

#include "inference/engine/core/edge.h"
#include "inference/engine/tokenizer/chat_template.h"

namespace ts::engine {
namespace {

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

bool endsGeneration(const Tokenizer& tokenizer, int id, bool chat, int user_token) {
  return id == tokenizer.eos() || (chat && id == user_token);
}

namespace {

// generate, below the edge: throws what the session throws.
Result<GenerationOutcome> run(DecodeSession& session, const Tokenizer& tokenizer,
                              const std::vector<int>& prompt, const GenerateOptions& options,
                              const std::function<bool(const GeneratedToken&)>& on_token) {
  GenerationOutcome out;
  out.finish = "length";
  if (prompt.empty() || options.max_tokens <= 0) return out;
  // Reuse the common prefix, but always run the last prompt token: its logits are needed.
  size_t reuse = 0;
  if (options.held)
    while (reuse + 1 < prompt.size() && reuse < options.held->size() &&
           (*options.held)[reuse] == prompt[reuse])
      ++reuse;
  session.truncate(static_cast<int>(reuse));
  if (options.held) options.held->resize(reuse);  // grows below as positions are fed
  out.cached_tokens = static_cast<int>(reuse);
  Sampler sampler(options.sampling);
  Utf8Stream utf8;
  std::vector<int> history = prompt;
  // Each token as it is produced: false when generation ends here.
  const auto take = [&](int id, bool drafted) {
    if (endsGeneration(tokenizer, id, options.chat, options.user_token)) {
      out.finish = "stop";
      return false;
    }
    out.ids.push_back(id);
    history.push_back(id);
    GeneratedToken token{id, utf8.push(tokenizer.displayPiece(id)), drafted};
    out.text += token.text;
    if (!on_token(token)) {
      out.finish = "cancelled";
      return false;
    }
    return true;
  };
  const auto t0 = std::chrono::steady_clock::now();
  if (options.draft) {
    SpeculativeDecoder decoder(session, *options.draft, sampler, options.speculative);
    if (options.held) options.held->clear();  // (if it fails, the rows are unknown)
    if (auto done = decoder.generate(prompt, options.max_tokens, take, reuse); !done)
      return fail(done.error());
    if (options.held) {  // after the decoder's rollbacks: the context but its last token
      const std::span<const int> held = decoder.held();
      options.held->assign(held.begin(), held.end());
    }
    out.prefill_ms = decoder.prefillMs();
    out.speculative = decoder.stats();
    out.target_forwards = decoder.targetForwards();
  } else {
    const std::span<const int> fresh(prompt.data() + reuse, prompt.size() - reuse);
    std::span<const float> logits = session.forwardBatch(fresh, static_cast<int>(reuse), false);
    if (options.held) options.held->insert(options.held->end(), fresh.begin(), fresh.end());
    out.prefill_ms = msSince(t0);
    int pos = static_cast<int>(prompt.size());
    for (int step = 0; step < options.max_tokens; ++step) {
      if (!take(sampler.sample(logits, history), false)) break;
      if (step + 1 == options.max_tokens || pos >= session.maxPositions()) break;
      logits = session.forwardBatch({&out.ids.back(), 1}, pos++, false);
      if (options.held) options.held->push_back(out.ids.back());
    }
  }
  if (const std::string tail = utf8.flush(); !tail.empty()) {
    out.text += tail;
    if (out.finish != "cancelled") on_token({-1, tail});  // the held bytes, at the end
  }
  return out;
}

}  // namespace

Result<GenerationOutcome> generate(DecodeSession& session, const Tokenizer& tokenizer,
                                   const std::vector<int>& prompt, const GenerateOptions& options,
                                   const std::function<bool(const GeneratedToken&)>& on_token) {
  Result<GenerationOutcome> out = caughtAtEdge<GenerationOutcome>(
      [&] { return run(session, tokenizer, prompt, options, on_token); },
      "for the KV cache and activations of " + std::to_string(prompt.size()) +
          " prompt tokens and " + std::to_string(options.max_tokens) + " more");
  if (!out && options.held) options.held->clear();  // what the cache holds is unknown now
  return out;
}

}  // namespace ts::engine
