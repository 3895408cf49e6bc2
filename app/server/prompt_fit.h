// A chat request's prompt checked against what the model can hold, as OpenAI answers it:
// the prompt plus the max_tokens asked for must fit the context (else 400
// context_length_exceeded, nothing trimmed behind the client's back), and the prompt must
// fit the KV pool. With truncate_history (serve --truncate-history, for chat UIs that send
// the whole conversation) the oldest rounds are dropped instead, saying how many.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "app/server/chat_api.h"
#include "inference/engine/serving/scheduler.h"
#include "inference/engine/tokenizer/chat_template.h"

namespace ts::server {

struct PromptFit {
  std::vector<int> prompt;
  int max_tokens = 0;             // the answer's budget: as asked, or the default within the room
  std::string dropped;            // with truncate_history: "2 messages (118 tokens) ..."; else ""
  std::optional<ApiError> error;  // a 400 when it does not fit
};

// requested: the request's max_tokens, if any; default_max_tokens applies without one (cut
// to the room the context leaves). longest_piece: bytes of the vocabulary's longest piece
// (no token covers more text), for refusing far too long prompts before tokenizing them.
PromptFit fitPrompt(const engine::Scheduler& scheduler, std::vector<engine::ChatMessage> messages,
                    bool chat, const engine::ChatRoles& roles, std::optional<int> requested,
                    int default_max_tokens, bool truncate_history, size_t longest_piece);

}  // namespace ts::server
