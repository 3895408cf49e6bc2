#include "inference/sentencepiece/sentencepiece_tokenizer.h"

#include <sentencepiece_processor.h>

#include "inference/engine/tokenizer/sentencepiece_model.h"

namespace ts {

SentencePieceTokenizer::SentencePieceTokenizer()
    : processor_(std::make_unique<sentencepiece::SentencePieceProcessor>()) {}
SentencePieceTokenizer::~SentencePieceTokenizer() = default;

engine::Result<std::shared_ptr<SentencePieceTokenizer>> SentencePieceTokenizer::fromFile(
    const std::string& path) {
  std::shared_ptr<SentencePieceTokenizer> t(new SentencePieceTokenizer());
  const auto status = t->processor_->Load(path);
  if (!status.ok()) return engine::fail(path + ": sentencepiece: " + status.ToString());
  return t;
}

engine::Result<std::shared_ptr<SentencePieceTokenizer>> SentencePieceTokenizer::fromVocabulary(
    const engine::Vocabulary& vocab) {
  std::shared_ptr<SentencePieceTokenizer> t(new SentencePieceTokenizer());
  const auto status =
      t->processor_->LoadFromSerializedProto(engine::serializeSentencePieceModel(vocab));
  if (!status.ok()) return engine::fail("sentencepiece: " + status.ToString());
  return t;
}

std::vector<int> SentencePieceTokenizer::encode(std::string_view text, bool add_bos) const {
  std::vector<int> ids;
  processor_->Encode(text, &ids);  // fails only on an unloaded model, excluded by the factories
  if (add_bos) ids.insert(ids.begin(), processor_->bos_id());
  return ids;
}

std::string SentencePieceTokenizer::decode(const std::vector<int>& ids) const {
  return processor_->DecodeIds(ids);
}

int SentencePieceTokenizer::bos() const {
  return processor_->bos_id();
}

std::string SentencePieceTokenizer::version() {
  return TOKENSCOPE_SENTENCEPIECE_VERSION;
}

}  // namespace ts
