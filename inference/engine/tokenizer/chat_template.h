// Prompts for chat models and for plain completion.
//
// Baichuan chat format (Baichuan-13B-Chat and Baichuan2-*-Chat, generation_utils.py): the
// system text, then each message as the user token 195 or the assistant token 196 followed
// by its text, ending with 196 so the assistant answers. No BOS: those tokenizers add
// none. When the conversation does not fit, the oldest rounds (a user message and the
// replies after it) are dropped first; the last round is always kept. Generation stops at
// EOS or at 195 (the model starting a user turn).
#pragma once
#include <string>
#include <vector>

#include "inference/engine/tokenizer/tokenizer.h"

namespace ts::engine {

constexpr int kBaichuanUserToken = 195;       // <reserved_102> / Baichuan2 <reserved_106>
constexpr int kBaichuanAssistantToken = 196;  // <reserved_103> / Baichuan2 <reserved_107>

struct ChatMessage {
  std::string role;  // "system" | "user" | "assistant"
  std::string content;
};

// max_input_tokens: room for the prompt (context minus the tokens to generate); <= 0: no limit.
std::vector<int> baichuanChatPrompt(const Tokenizer& tokenizer,
                                    const std::vector<ChatMessage>& messages,
                                    int max_input_tokens = 0);
// Plain completion: BOS, then the text.
std::vector<int> completionPrompt(const Tokenizer& tokenizer, const std::string& text);
// A conversation's prompt: the chat format for chat models, else the plain completion of
// the user and assistant messages' text joined by newlines (system text is left out).
std::vector<int> conversationPrompt(const Tokenizer& tokenizer,
                                    const std::vector<ChatMessage>& messages, bool chat,
                                    int max_input_tokens = 0);

}  // namespace ts::engine
