// Text <-> token ids for sentencepiece-style (BPE by piece score) vocabularies, as stored
// in GGUF files and llama2.c tokenizer files: the text gets a leading space, spaces become
// "▁" when the vocabulary uses that mark, characters are merged pairwise by the best score
// of the merged piece, and characters the vocabulary lacks fall back to <0xNN> byte pieces.
// User-defined pieces (sentencepiece type 4: Baichuan2's <reserved_N>, <extra_N>, digits,
// "\n") are matched whole where they occur, longest first, and never merge, as
// sentencepiece's prefix matcher does.
#pragma once
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "inference/engine/tokenizer/vocabulary.h"

namespace ts::engine {

class Tokenizer {
 public:
  explicit Tokenizer(Vocabulary vocab);
  std::vector<int> encode(std::string_view text, bool add_bos) const;
  std::string piece(int id) const;  // the bytes of one token ("▁" as a space, bytes raw)
  // What one token shows as text: piece(id), or nothing for control and markup pieces
  // (pieces.h displayBytes). Generated text is built from this.
  std::string displayPiece(int id) const;
  const Vocabulary& vocabulary() const { return vocab_; }
  int bos() const { return vocab_.bos; }
  int eos() const { return vocab_.eos; }

 private:
  int find(const std::string& piece) const;
  // The longest user-defined piece at text[at...] (its id and bytes), or {-1, 0}.
  std::pair<int, size_t> userDefinedAt(const std::string& text, size_t at) const;

  // encode's steps. A symbol: a run of `normalized`'s bytes and its piece, linked to its
  // neighbours (indices into the symbol list, -1 at the ends).
  struct Symbol {
    size_t begin, length;  // bytes of `normalized`; length 0: a byte piece (never merges)
    int id, prev, next;
    bool frozen = false;  // a user-defined piece (never merges)
  };
  // Spaces as the vocabulary writes them, with sentencepiece's dummy prefix when it asks.
  std::string normalize(std::string_view text) const;
  // One symbol per character or user-defined piece; characters the vocabulary lacks become
  // byte pieces.
  std::vector<Symbol> symbolsOf(const std::string& normalized) const;
  // Merges the adjacent pair whose merged piece scores best (leftmost on ties), repeatedly.
  void mergePairs(const std::string& normalized, std::vector<Symbol>& symbols) const;

  Vocabulary vocab_;
  std::unordered_map<std::string, int> index_;
  bool space_mark_ = false;  // the vocabulary writes spaces as U+2581
  int byte_ids_[256];
  std::vector<size_t> user_lengths_;  // distinct byte lengths of user-defined pieces, longest first
  bool user_first_[256] = {};         // bytes a user-defined piece starts with
};

// Streaming detokenization: feeds token bytes, returns only complete UTF-8 characters and
// keeps an incomplete tail for the next token (never emits half a character).
class Utf8Stream {
 public:
  std::string push(const std::string& bytes);
  std::string flush();  // the held tail, as is, at the end of the stream

 private:
  std::string pending_;
};

}  // namespace ts::engine
