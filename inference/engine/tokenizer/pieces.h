// Token id -> the bytes it stands for: sentencepiece's "▁" is a space and "<0xNN>" pieces
// are single raw bytes (byte fallback). Streaming detokenization builds on this.
#pragma once
#include <string>

#include "inference/engine/tokenizer/vocabulary.h"

namespace ts::engine {

std::string pieceBytes(const Vocabulary& vocab, int id);

}  // namespace ts::engine
