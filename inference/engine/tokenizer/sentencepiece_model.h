// sentencepiece's tokenizer.model (a serialized ModelProto): the pieces with their scores
// and types, and the special ids from its trainer spec. A pure protobuf reader for the
// fields the tokenizer needs (everything else is skipped by wire type), and the writer
// that rebuilds such a model from a GGUF or llama2.c vocabulary.
#pragma once
#include <cstdint>
#include <span>
#include <string>

#include "inference/engine/core/result.h"
#include "inference/engine/tokenizer/vocabulary.h"

namespace ts::engine {

Result<Vocabulary> parseSentencePieceModel(std::span<const uint8_t> bytes);
// A ModelProto holding the pieces, scores, types and special ids (BPE model type, byte
// fallback on); what parseSentencePieceModel reads back.
std::string serializeSentencePieceModel(const Vocabulary& vocab);

}  // namespace ts::engine
