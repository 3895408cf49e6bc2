// What a model's authors suggest for generating with it, from a Hugging Face folder's
// generation_config.json (formats/generation_config.h reads it): sampling settings and the
// chat format's role tokens. Unset fields: the file does not say (or there is no file).
#pragma once
#include <optional>

#include "inference/engine/tokenizer/chat_template.h"

namespace ts::engine {

struct GenerationDefaults {
  std::optional<double> temperature;  // 0: greedy (do_sample false)
  std::optional<double> top_p;
  std::optional<int> top_k;
  std::optional<double> repetition_penalty;
  std::optional<int> max_new_tokens;
  std::optional<int> user_token, assistant_token;  // the chat format's role ids

  bool suggestsSampling() const {
    return temperature || top_p || top_k || repetition_penalty || max_new_tokens;
  }
  ChatRoles roles() const {
    return {user_token.value_or(kBaichuanUserToken),
            assistant_token.value_or(kBaichuanAssistantToken)};
  }
};

}  // namespace ts::engine
