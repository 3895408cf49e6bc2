#include "inference/engine/tokenizer/chat_template.h"

namespace ts::engine {

bool isChatModel(const std::string& architecture, int vocab) {
  return architecture == "baichuan" && vocab > kBaichuanAssistantToken;
}

std::vector<int> baichuanChatPrompt(const Tokenizer& tokenizer,
                                    const std::vector<ChatMessage>& messages, int max_input_tokens,
                                    ChatRoles roles) {
  std::vector<EncodedMessage> encoded;
  encoded.reserve(messages.size());
  for (const ChatMessage& m : messages)
    encoded.push_back({m.role, tokenizer.encode(m.content, false)});
  return baichuanChatPromptFromIds(encoded, max_input_tokens, roles);
}

std::vector<int> baichuanChatPromptFromIds(const std::vector<EncodedMessage>& messages,
                                           int max_input_tokens, ChatRoles roles) {
  std::vector<int> system;
  std::vector<std::vector<int>> rounds;  // each starts at a user message
  for (const EncodedMessage& m : messages) {
    if (m.role == "system") {
      system.insert(system.end(), m.ids.begin(), m.ids.end());
      continue;
    }
    const bool user = m.role != "assistant";
    if (user || rounds.empty()) rounds.emplace_back();
    rounds.back().push_back(user ? roles.user : roles.assistant);
    rounds.back().insert(rounds.back().end(), m.ids.begin(), m.ids.end());
  }
  const bool answer_next = messages.empty() || messages.back().role != "assistant";
  // Newest rounds first, while they fit (the newest one always).
  size_t budget = max_input_tokens > 0 ? static_cast<size_t>(max_input_tokens) : SIZE_MAX;
  budget -= std::min(budget, system.size() + (answer_next ? 1 : 0));
  size_t first = rounds.size(), used = 0;
  while (first > 0 && (first == rounds.size() || used + rounds[first - 1].size() <= budget)) {
    used += rounds[first - 1].size();
    --first;
  }
  std::vector<int> prompt = system;
  for (size_t r = first; r < rounds.size(); ++r)
    prompt.insert(prompt.end(), rounds[r].begin(), rounds[r].end());
  if (answer_next) prompt.push_back(roles.assistant);
  return prompt;
}

std::vector<int> completionPrompt(const Tokenizer& tokenizer, const std::string& text) {
  return tokenizer.encode(text, true);
}

std::vector<int> conversationPrompt(const Tokenizer& tokenizer,
                                    const std::vector<ChatMessage>& messages, bool chat,
                                    int max_input_tokens, ChatRoles roles) {
  if (chat) return baichuanChatPrompt(tokenizer, messages, max_input_tokens, roles);
  std::string text;
  for (const ChatMessage& m : messages)
    if (m.role != "system") text += (text.empty() ? "" : "\n") + m.content;
  return completionPrompt(tokenizer, text);
}

}  // namespace ts::engine
