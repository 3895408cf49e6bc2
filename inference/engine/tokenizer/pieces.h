// Token id -> the bytes it stands for: sentencepiece's "▁" is a space and "<0xNN>" pieces
// are single raw bytes (byte fallback). Streaming detokenization builds on this.
#pragma once
#include <string>

#include "inference/engine/tokenizer/vocabulary.h"

namespace ts::engine {

std::string pieceBytes(const Vocabulary& vocab, int id);
// What a token shows as text (a chat's answer, a completion): its bytes, except for pieces
// that are markup rather than text, which show as nothing: unknown, control and unused
// pieces (sentencepiece types 2, 3, 5), BOS and EOS, and named tags whatever their type
// (Baichuan's <reserved_56> and <extra_3>, <unusedN>, <|...|>, <pad>, <mask>). Their ids
// are still what the model produced; only their text is left out.
std::string displayBytes(const Vocabulary& vocab, int id);
// Whether `piece` is such a named tag.
bool isMarkupPiece(const std::string& piece);

}  // namespace ts::engine
