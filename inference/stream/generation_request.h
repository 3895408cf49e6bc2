// What the user asked for: messages and sampling parameters, independent of the source.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace ts {

struct ChatMessage {
  std::string role;  // "system" | "user" | "assistant"
  std::string content;
};

struct SamplingParams {
  double temperature = 0.7;  // 0..2
  double top_p = 0.9;        // (0, 1]
  int max_tokens = 512;      // >= 1
  bool stream = true;
  std::optional<int64_t> seed;
  // Speculative sampling, local engine only: "" (off), "self-int4", "self-layers:N",
  // "lookup" or a draft model's path; K drafted tokens per step, or adaptive.
  std::string draft;
  int draft_k = 4;
  bool draft_auto = false;
  int top_k = 0;                    // 0: no limit; remote: the `top_k` extension when set
  double repetition_penalty = 1.0;  // 1: none; remote: the `repetition_penalty` extension
};

// What a local model's authors suggest (its generation_config.json), for the parameter
// panel's "Use the model's defaults"; unset: the file does not say.
struct SuggestedParams {
  std::optional<double> temperature, top_p, repetition_penalty;
  std::optional<int> top_k, max_tokens;
  bool empty() const {
    return !temperature && !top_p && !repetition_penalty && !top_k && !max_tokens;
  }
};

struct GenerationRequest {
  std::vector<ChatMessage> messages;
  SamplingParams params;
  std::string provider;  // provider name, for logs and per-provider memory
  std::string model;
};

}  // namespace ts
