// The OpenAI chat-completions API as the local server speaks it: a request body checked
// field by field (every mistake a 400 naming the field, what was expected and what was
// found), the OpenAI-style error body, and the chunk / completion / model-list bodies.
#pragma once
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "inference/engine/decode/sampler.h"
#include "inference/engine/model/generation_defaults.h"
#include "inference/engine/tokenizer/chat_template.h"

namespace ts::server {

struct ChatCompletionRequest {
  std::string model;  // empty: the served model
  std::vector<engine::ChatMessage> messages;
  bool stream = false;
  bool include_usage = false;     // stream_options.include_usage
  std::optional<int> max_tokens;  // max_tokens or max_completion_tokens
  // temperature, top_p, top_k (extension), repetition_penalty (extension), seed; a field the
  // request leaves out takes the model's suggestion (requestDefaults)
  engine::SamplingConfig sampling;
  bool seed_given = false;  // whether sampling.seed is the client's
};

// The sampling a request starts from: the model's generation_config.json suggestions where
// it has them, else OpenAI's defaults (temperature 1, top_p 1) and no top-k or penalty.
engine::SamplingConfig requestDefaults(const engine::GenerationDefaults& suggested);
// "temperature 0.3, top_k 5, top_p 0.85, repetition_penalty 1.05, max_tokens 2048": the
// suggestions a model makes (max_tokens as given), for the serve banner.
std::string describeSuggestions(const engine::GenerationDefaults& suggested, int max_tokens);

struct ApiError {
  int status = 400;
  std::string message;
  std::string type = "invalid_request_error";
  std::string param;         // the field at fault, may be empty
  std::string code;          // e.g. "model_not_found"
  std::string body() const;  // {"error": {"message", "type", "param", "code"}}
};

std::variant<ChatCompletionRequest, ApiError> parseChatCompletionRequest(
    const std::string& body, const engine::SamplingConfig& defaults = requestDefaults({}));

struct CompletionIds {
  std::string id;     // "chatcmpl-…"
  long long created;  // Unix seconds
  std::string model;
};
struct Usage {
  int prompt_tokens = 0, completion_tokens = 0;
  int cached_tokens = 0;  // usage.prompt_tokens_details.cached_tokens (OpenAI's field)
};

// One `chat.completion.chunk`: the first carries the role, the last the finish reason.
std::string chunkJson(const CompletionIds& ids, const std::string& content, bool first,
                      const std::string& finish_reason);
// The usage chunk of stream_options.include_usage: no choices, the token counts.
std::string usageChunkJson(const CompletionIds& ids, const Usage& usage);
std::string completionJson(const CompletionIds& ids, const std::string& content,
                           const std::string& finish_reason, const Usage& usage);
std::string modelListJson(const std::string& model, long long created);

}  // namespace ts::server
