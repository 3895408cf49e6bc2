// One generation on a decoding session, as the app, the CLI and the OpenAI-compatible
// server run it: the prompt in one batched pass, then tokens sampled one at a time (or
// drafted and verified, with a draft source) until the end-of-sequence token, the chat
// format's user token, max_tokens, the end of the KV cache, or the caller says stop.
// Each token's text is released UTF-8-complete. One session serves many generations: the
// session is emptied first, or, given what its KV cache holds (GenerateOptions::held), cut
// back to the longest common prefix with the new prompt, so that the next turn of a
// conversation prefills only its new tokens.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "inference/engine/backend/decode_session.h"
#include "inference/engine/core/result.h"
#include "inference/engine/decode/sampler.h"
#include "inference/engine/decode/speculative.h"
#include "inference/engine/tokenizer/chat_template.h"
#include "inference/engine/tokenizer/tokenizer.h"

namespace ts::engine {

struct GenerateOptions {
  int max_tokens = 128;
  SamplingConfig sampling;
  bool chat = false;                    // stop also at the chat format's user token
  int user_token = kBaichuanUserToken;  // that token (generation_config.json's user_token_id)
  DraftSource* draft = nullptr;         // speculative sampling when set
  SpeculativeConfig speculative;
  // The tokens at the session's KV positions [0, size) (what earlier generations fed it),
  // kept up to date here; null: start from an empty session. Speculative runs too reuse
  // it (their rollbacks leave it true).
  std::vector<int>* held = nullptr;
};

struct GeneratedToken {
  int id = 0;            // -1 for the bytes still held at the end (an incomplete character)
  std::string text;      // the UTF-8-complete bytes this token releases (may be empty)
  bool drafted = false;  // speculative runs: a draft token the target accepted
  int batch = 0;         // scheduler runs: sequences in the pass that produced it
  // scheduler runs: steady_clock ns when the pass sampled it. The caller's thread may take
  // several tokens at once (it wakes later than the pass), so timing the callback would
  // squeeze their gaps to nothing; 0 elsewhere (the callback runs as the token is made).
  int64_t made_ns = 0;
};

struct GenerationOutcome {
  std::vector<int> ids;
  std::string text;
  std::string finish;  // "stop" (end of sequence), "length" (max_tokens or the cache), "cancelled"
  double prefill_ms = 0;
  int cached_tokens = 0;  // prompt tokens whose KV rows were reused, not prefilled
  std::optional<SpeculativeStats> speculative;
  int target_forwards = 0;  // passes of the target model (speculative runs)
};

// Whether sampling `id` ends a generation: the end-of-sequence token, or with the chat
// format its user token (the model starting the next turn).
bool endsGeneration(const Tokenizer& tokenizer, int id, bool chat,
                    int user_token = kBaichuanUserToken);

// on_token returns false to stop now (finish "cancelled"). What fails below it comes back as
// an error, never a throw: the device failing mid-run (its message), memory running out
// (what to do about it). options.held is then empty (what the cache holds is unknown). Only a
// broken caller contract throws (std::logic_error: a bug).
Result<GenerationOutcome> generate(DecodeSession& session, const Tokenizer& tokenizer,
                                   const std::vector<int>& prompt, const GenerateOptions& options,
                                   const std::function<bool(const GeneratedToken&)>& on_token);

}  // namespace ts::engine
