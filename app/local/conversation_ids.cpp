#include "app/local/conversation_ids.h"

#include <algorithm>
#include <cstdint>

namespace ts {
namespace {

// An answer's text as a chat keeps it: decoded as UTF-8 (invalid bytes become U+FFFD, where
// a per-chunk and a whole-text decoding may differ), without those marks and the white
// space around it.
QString shownForm(const std::string& text) {
  return QString::fromStdString(text).remove(QChar::ReplacementCharacter).trimmed();
}

}  // namespace

bool ConversationIds::matches(const Entry& entry, const ChatMessage& message) {
  if (entry.role != message.role) return false;
  if (!entry.generated) return entry.content == message.content;
  return shownForm(entry.content) == shownForm(message.content);
}

std::vector<int> ConversationIds::prompt(const engine::Tokenizer& tokenizer,
                                         const std::vector<ChatMessage>& messages, bool chat,
                                         int max_input_tokens, engine::ChatRoles roles) {
  if (!chat) {  // plain completion: one text, nothing to remember per message
    entries_.clear();
    answer_next_ = false;
    std::vector<engine::ChatMessage> plain;
    for (const ChatMessage& m : messages) plain.push_back({m.role, m.content});
    return engine::conversationPrompt(tokenizer, plain, false, max_input_tokens, roles);
  }
  size_t same = 0;
  while (same < messages.size() && same < entries_.size() &&
         matches(entries_[same], messages[same]))
    ++same;
  entries_.resize(same);
  for (size_t i = same; i < messages.size(); ++i) {
    const ChatMessage& m = messages[i];
    Entry e{m.role, m.content, false, {}};
    if (m.role != "system") e.ids.push_back(m.role == "assistant" ? roles.assistant : roles.user);
    const std::vector<int> text = tokenizer.encode(m.content, false);
    e.ids.insert(e.ids.end(), text.begin(), text.end());
    entries_.push_back(std::move(e));
  }
  // The chat format (chat_template.h baichuanChatPrompt) over the messages' ids: system
  // text first, then rounds from each user message on, the newest rounds while they fit.
  std::vector<int> system;
  std::vector<std::vector<int>> rounds;
  for (const Entry& e : entries_) {
    if (e.role == "system") {
      system.insert(system.end(), e.ids.begin(), e.ids.end());
      continue;
    }
    if (e.role != "assistant" || rounds.empty()) rounds.emplace_back();
    rounds.back().insert(rounds.back().end(), e.ids.begin(), e.ids.end());
  }
  const bool answer_next = messages.empty() || messages.back().role != "assistant";
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
  answer_next_ = answer_next;
  return prompt;
}

void ConversationIds::answered(const std::vector<int>& ids, const std::string& shown_text,
                               engine::ChatRoles roles) {
  if (entries_.empty() || !answer_next_) return;  // not a chat prompt's answer
  answer_next_ = false;
  Entry e{"assistant", shown_text, true, {roles.assistant}};
  e.ids.insert(e.ids.end(), ids.begin(), ids.end());
  entries_.push_back(std::move(e));
}

}  // namespace ts
