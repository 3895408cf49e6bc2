// What the server tells its observer about each chat completion it admitted, once the
// answer has been sent (or the request ended otherwise), on the request's own thread: the
// client's parameters, the prompt and answer, token counts and times. The app's server
// panel and run store are fed from it; the server knows nothing of either.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "inference/engine/decode/sampler.h"
#include "inference/engine/tokenizer/chat_template.h"

namespace ts::server {

struct ServedToken {
  int64_t t_ns = 0;  // steady_clock ns when the scheduler produced it
  std::string text;  // the UTF-8-complete bytes it released (may be empty mid-character)
  int batch = 0;     // sequences in the step that produced it
};

struct ServedRequest {
  std::string id;     // "chatcmpl-7", as the client got it
  std::string model;  // the id the client named ("" when it named none)
  std::vector<engine::ChatMessage> messages;
  bool stream = false;
  std::optional<int> max_tokens;    // as the client asked; nullopt: it left it out
  int max_tokens_used = 0;          // what ran (the server's default or the context's room)
  engine::SamplingConfig sampling;  // what ran: the client's values, the model's suggestions
                                    // for the fields it left out
  bool seed_given = false;          // whether sampling.seed is the client's
  int64_t start_ns = 0;             // steady_clock ns when it was admitted
  int64_t end_ns = 0;               // ... when the answer ended
  std::vector<ServedToken> tokens;  // every generated token, in order
  std::string text;                 // the answer (partial when cancelled or failed)
  int prompt_tokens = 0, completion_tokens = 0, cached_tokens = 0;
  std::string finish;  // "stop" | "length" | "cancelled" (the client left, or Stop) | "error"
  std::string error;   // finish "error": what failed
  int status = 200;    // the HTTP status the client got (200, 500, 503)

  // Milliseconds from admission to the first token with text; -1 without one.
  double ttftMs() const;
  // Mean milliseconds between tokens after the first (TPOT); -1 with fewer than two.
  double tpotMs() const;
};

// Called once per admitted chat completion, on the server's thread: it must not block.
using RequestObserver = std::function<void(const ServedRequest&)>;

}  // namespace ts::server
