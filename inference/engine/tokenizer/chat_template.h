// Prompts for chat models and for plain completion.
//
// Baichuan chat format (Baichuan-13B-Chat and Baichuan2-*-Chat, generation_utils.py
// build_chat_input): the system text, then each message as the user role token or the
// assistant role token followed by its text, ending with the assistant token so the
// assistant answers. The role tokens come from the model's generation_config.json
// (user_token_id, assistant_token_id; 195 and 196 in every Baichuan release, the default).
// No BOS: those tokenizers add none. When the conversation does not fit, the oldest rounds
// (a user message and the replies after it) are dropped first; the current round is always
// kept whole (unlike generation_utils.py, which then cuts the prompt's left end). Generation
// stops at EOS or at the user token (the model starting a user turn).
#pragma once
#include <string>
#include <vector>

#include "inference/engine/tokenizer/tokenizer.h"

namespace ts::engine {

constexpr int kBaichuanUserToken = 195;       // <reserved_102> / Baichuan2 <reserved_106>
constexpr int kBaichuanAssistantToken = 196;  // <reserved_103> / Baichuan2 <reserved_107>

// The chat format's role tokens.
struct ChatRoles {
  int user = kBaichuanUserToken;
  int assistant = kBaichuanAssistantToken;
};

struct ChatMessage {
  std::string role;  // "system" | "user" | "assistant"
  std::string content;
};

// Whether a model speaks the Baichuan chat format: architecture "baichuan" (ModelConfig::
// architecture) with the role tokens inside its `vocab` ids. The server, the app's chat and
// the benchmarks wrap prompts in the template for such models, else complete plain text.
bool isChatModel(const std::string& architecture, int vocab);

// max_input_tokens: room for the prompt (context minus the tokens to generate); <= 0: no limit.
std::vector<int> baichuanChatPrompt(const Tokenizer& tokenizer,
                                    const std::vector<ChatMessage>& messages,
                                    int max_input_tokens = 0, ChatRoles roles = {});
// Plain completion: BOS, then the text.
// The same format over messages already encoded (each message's text ids, no role token):
// for a chat that keeps the exact ids of its turns instead of re-encoding their text.
struct EncodedMessage {
  std::string role;  // "system" | "user" | "assistant"
  std::vector<int> ids;
};
std::vector<int> baichuanChatPromptFromIds(const std::vector<EncodedMessage>& messages,
                                           int max_input_tokens, ChatRoles roles = {});
std::vector<int> completionPrompt(const Tokenizer& tokenizer, const std::string& text);
// A conversation's prompt: the chat format for chat models, else the plain completion of
// the user and assistant messages' text joined by newlines (system text is left out).
std::vector<int> conversationPrompt(const Tokenizer& tokenizer,
                                    const std::vector<ChatMessage>& messages, bool chat,
                                    int max_input_tokens = 0, ChatRoles roles = {});

}  // namespace ts::engine
