// generation_config.json of a Hugging Face folder -> GenerationDefaults: temperature (0 when
// do_sample is false), top_p, top_k, repetition_penalty, max_new_tokens and Baichuan2's
// user_token_id / assistant_token_id. No file: no suggestions. A value of the wrong kind or
// out of range is an error naming the key, what was expected and what was found.
#pragma once
#include <string>

#include "inference/engine/core/result.h"
#include "inference/engine/model/generation_defaults.h"

namespace ts::engine {

// `path`: a model path (a folder, or a file in one); anything else has no suggestions.
Result<GenerationDefaults> readGenerationConfig(const std::string& path);

}  // namespace ts::engine
