// A chat's prompt from the exact token ids of its turns, not from their text: the local
// engine remembers, for the conversation it last ran, each message's ids as they went in
// (the encoded text; the template adds the role tokens) and each answer's ids as they were
// generated. The next request reuses those ids for its leading messages that are unchanged
// and encodes only the rest, so the prompt begins with exactly the tokens the engine's
// cache holds, whatever the model emitted (text that does not re-tokenize to the same ids:
// invalid UTF-8, hidden control pieces, a random model's noise). A changed message (an
// edit, another system prompt) ends the reuse there: it and everything after are encoded.
//
//   messages   [system "Be brief"] [user "Hi"] [assistant "¿…"]   [user "More"]
//   ids        [s s s]             [195 h]     [196 + generated]   [195 m m] + [196]
//              └── remembered, reused as they are ──────────────┘   └ encoded now ┘
//
// The prompt is the Baichuan chat format (chat_template.h), with its oldest rounds dropped
// when the conversation does not fit. Models without the chat format get the plain
// completion prompt and nothing is remembered.
#pragma once
#include <QString>
#include <string>
#include <vector>

#include "inference/engine/tokenizer/chat_template.h"
#include "inference/engine/tokenizer/tokenizer.h"
#include "inference/stream/generation_request.h"

namespace ts {

class ConversationIds {
 public:
  // The prompt for `messages` (remembered as the conversation from now on).
  std::vector<int> prompt(const engine::Tokenizer& tokenizer,
                          const std::vector<ChatMessage>& messages, bool chat, int max_input_tokens,
                          engine::ChatRoles roles);
  // The answer to the last prompt: its ids as generated and the text shown for them (what
  // the next request's assistant message will carry).
  void answered(const std::vector<int>& ids, const std::string& shown_text);
  void clear() { entries_.clear(); }

 private:
  struct Entry {
    std::string role;
    std::string content;     // as the request had it, or the answer's shown text
    bool generated = false;  // an answer: matched by its text as a chat shows it
    std::vector<int> ids;    // the content's ids (the template adds the role token)
  };
  static bool matches(const Entry& entry, const ChatMessage& message);

  std::vector<Entry> entries_;
  bool answer_next_ = false;  // the last prompt ended with the assistant token
};

}  // namespace ts
