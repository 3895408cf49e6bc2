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
    entries_.push_back({m.role, m.content, false, tokenizer.encode(m.content, false)});
  }
  std::vector<engine::EncodedMessage> encoded;
  encoded.reserve(entries_.size());
  for (const Entry& e : entries_) encoded.push_back({e.role, e.ids});
  answer_next_ = messages.empty() || messages.back().role != "assistant";
  return engine::baichuanChatPromptFromIds(encoded, max_input_tokens, roles);
}

void ConversationIds::answered(const std::vector<int>& ids, const std::string& shown_text) {
  if (entries_.empty() || !answer_next_) return;  // not a chat prompt's answer
  answer_next_ = false;
  entries_.push_back({"assistant", shown_text, true, ids});
}

}  // namespace ts
