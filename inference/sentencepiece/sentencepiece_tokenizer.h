// The sentencepiece library's own tokenizer, for a tokenizer.model file or for one rebuilt
// from a GGUF / llama2.c vocabulary (serializeSentencePieceModel). Optional: built only
// where libsentencepiece is installed (not in the engine-only configuration); the engine's
// own tokenizer (inference/engine/tokenizer/tokenizer.h) is checked against it.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "inference/engine/core/result.h"
#include "inference/engine/tokenizer/vocabulary.h"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace ts {

class SentencePieceTokenizer {
 public:
  static engine::Result<std::shared_ptr<SentencePieceTokenizer>> fromFile(const std::string& path);
  static engine::Result<std::shared_ptr<SentencePieceTokenizer>> fromVocabulary(
      const engine::Vocabulary& vocab);
  ~SentencePieceTokenizer();

  std::vector<int> encode(std::string_view text, bool add_bos) const;
  std::string decode(const std::vector<int>& ids) const;
  int bos() const;
  static std::string version();  // the library's version, for the About box and notes

 private:
  SentencePieceTokenizer();
  std::unique_ptr<sentencepiece::SentencePieceProcessor> processor_;
};

}  // namespace ts
