#include "app/server/prompt_fit.h"

#include <algorithm>

#include "inference/engine/model/kv_cache.h"

namespace ts::server {
namespace {

// Drops the oldest round (a user message and the replies after it, or replies before any
// user message) after the system messages; false when only the current round is left.
bool dropOldestRound(std::vector<engine::ChatMessage>& messages, int& dropped) {
  const auto first = std::find_if(messages.begin(), messages.end(),
                                  [](const auto& m) { return m.role != "system"; });
  if (first == messages.end()) return false;
  const auto next =
      std::find_if(first + 1, messages.end(), [](const auto& m) { return m.role == "user"; });
  if (next == messages.end()) return false;
  dropped += static_cast<int>(next - first);
  messages.erase(first, next);
  return true;
}

// at_least: the prompt's count is a lower bound (measured in bytes, not tokenized).
ApiError tooLong(int context, long long prompt, int answer, bool at_least = false) {
  const std::string qualifier = at_least ? "at least " : "";
  return {400,
          "This model's maximum context length is " + std::to_string(context) +
              " tokens. However, you requested " + qualifier + std::to_string(prompt + answer) +
              " tokens (" + qualifier + std::to_string(prompt) + " in the messages, " +
              std::to_string(answer) +
              " in the completion). Please reduce the length of the messages or completion.",
          "invalid_request_error", "messages", "context_length_exceeded"};
}

}  // namespace

PromptFit fitPrompt(const engine::Scheduler& scheduler, std::vector<engine::ChatMessage> messages,
                    bool chat, const engine::ChatRoles& roles, std::optional<int> requested,
                    int default_max_tokens, bool truncate_history, size_t longest_piece) {
  PromptFit fit;
  const int context = scheduler.context();
  const int answer = requested.value_or(1);  // at least one token of answer
  if (!truncate_history) {                   // far too long: said before tokenizing megabytes
    size_t bytes = 0;
    for (const auto& m : messages) bytes += m.content.size();
    // each token covers at most longest_piece bytes
    const auto at_least = static_cast<long long>(bytes / std::max<size_t>(longest_piece, 1));
    if (at_least >= context) {
      fit.error = tooLong(context, at_least, answer, true);
      return fit;
    }
  }
  const auto render = [&] {
    return engine::conversationPrompt(scheduler.tokenizer(), messages, chat, 0, roles);
  };
  fit.prompt = render();
  const int full = static_cast<int>(fit.prompt.size());
  int dropped = 0;
  while (truncate_history && static_cast<int>(fit.prompt.size()) + answer > context &&
         dropOldestRound(messages, dropped))
    fit.prompt = render();
  const int prompt = static_cast<int>(fit.prompt.size());
  if (dropped > 0)
    fit.dropped = std::to_string(dropped) + " earliest messages (" + std::to_string(full - prompt) +
                  " tokens) dropped to fit the " + std::to_string(context) + "-token context";
  if (prompt == 0) {
    fit.error =
        ApiError{400, "the messages give an empty prompt", "invalid_request_error", "messages", ""};
  } else if (prompt + answer > context) {
    fit.error = tooLong(context, prompt, answer);
  } else if (!scheduler.fits(prompt)) {
    const int blocks = scheduler.options().kv_blocks;
    fit.error = ApiError{400,
                         "the prompt's " + std::to_string(prompt) + " tokens need more than the " +
                             std::to_string(blocks * engine::kKvBlock) +
                             " positions of this server's KV cache (serve --kv-memory-mb)",
                         "invalid_request_error", "messages", "context_length_exceeded"};
  }
  fit.max_tokens = requested ? *requested : std::min(default_max_tokens, context - prompt);
  return fit;
}

}  // namespace ts::server
