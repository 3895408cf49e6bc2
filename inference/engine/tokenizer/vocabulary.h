// A model's vocabulary as its file carries it: pieces, scores and sentencepiece types, and
// the special ids. Every reader fills one (GGUF arrays, tokenizer.model, llama2.c's
// tokenizer .bin); the tokenizer and the Model hold one.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ts::engine {

// sentencepiece's piece type for user-defined symbols (matched whole, never split or merged).
constexpr int32_t kUserDefinedPiece = 4;

struct Vocabulary {
  std::vector<std::string> pieces;
  std::vector<float> scores;
  std::vector<int32_t> types;  // sentencepiece types (1 normal, 2 unknown, 3 control,
                               // 4 user-defined, 6 byte)
  int32_t bos = 1, eos = 2, unk = 0;
  bool add_dummy_prefix = true;  // sentencepiece: a space before the text
};

}  // namespace ts::engine
