#include "inference/engine/tokenizer/sentencepiece_model.h"

#include <cstring>
#include <optional>

namespace ts::engine {
namespace {

// ModelProto field numbers (sentencepiece_model.proto).
constexpr uint32_t kPieces = 1, kTrainerSpec = 2, kNormalizerSpec = 3;
constexpr uint32_t kName = 1, kAddDummyPrefix = 3, kRemoveExtraSpaces = 4, kEscapeSpaces = 5;
constexpr uint32_t kPiece = 1, kScore = 2, kType = 3;                    // SentencePiece
constexpr uint32_t kModelType = 3, kByteFallback = 35;                   // TrainerSpec
constexpr uint32_t kUnkId = 40, kBosId = 41, kEosId = 42;                // TrainerSpec
constexpr uint32_t kVarint = 0, kFixed64 = 1, kBytes = 2, kFixed32 = 5;  // wire types

class Reader {
 public:
  explicit Reader(std::span<const uint8_t> b) : b_(b) {}
  bool done() const { return i_ >= b_.size(); }
  size_t offset() const { return i_; }

  std::optional<uint64_t> varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (i_ >= b_.size()) return std::nullopt;
      const uint8_t byte = b_[i_++];
      v |= static_cast<uint64_t>(byte & 0x7F) << shift;
      if (!(byte & 0x80)) return v;
    }
    return std::nullopt;
  }
  std::optional<std::span<const uint8_t>> bytes() {
    const auto n = varint();
    if (!n || *n > b_.size() - i_) return std::nullopt;
    auto out = b_.subspan(i_, *n);
    i_ += *n;
    return out;
  }
  std::optional<uint32_t> fixed32() {
    if (b_.size() - i_ < 4) return std::nullopt;
    uint32_t v = 0;
    for (int k = 3; k >= 0; --k) v = v << 8 | b_[i_ + k];
    i_ += 4;
    return v;
  }
  bool skip(uint32_t wire) {
    switch (wire) {
      case kVarint:
        return varint().has_value();
      case kFixed64:
        if (b_.size() - i_ < 8) return false;
        i_ += 8;
        return true;
      case kBytes:
        return bytes().has_value();
      case kFixed32:
        return fixed32().has_value();
      default:
        return false;  // groups (3, 4) are not used by sentencepiece
    }
  }

 private:
  std::span<const uint8_t> b_;
  size_t i_ = 0;
};

std::string truncated(const char* what, size_t offset) {
  return std::string("tokenizer.model: expected ") + what + " at byte " + std::to_string(offset) +
         ", found the end of the data or a malformed field";
}

Result<bool> readPiece(std::span<const uint8_t> bytes, Vocabulary& v) {
  Reader r(bytes);
  std::string piece;
  float score = 0.f;
  int32_t type = 1;  // NORMAL
  while (!r.done()) {
    const auto key = r.varint();
    if (!key) return fail(truncated("a field key in a piece", r.offset()));
    const uint32_t field = *key >> 3, wire = *key & 7;
    if (field == kPiece && wire == kBytes) {
      const auto s = r.bytes();
      if (!s) return fail(truncated("the piece text", r.offset()));
      piece.assign(reinterpret_cast<const char*>(s->data()), s->size());
    } else if (field == kScore && wire == kFixed32) {
      const auto bits = r.fixed32();
      if (!bits) return fail(truncated("a score", r.offset()));
      std::memcpy(&score, &*bits, 4);
    } else if (field == kType && wire == kVarint) {
      const auto t = r.varint();
      if (!t || *t < 1 || *t > 6)
        return fail("tokenizer.model: expected a piece type 1..6, found " +
                    (t ? std::to_string(*t) : std::string("a malformed number")));
      type = static_cast<int32_t>(*t);
    } else if (!r.skip(wire)) {
      return fail(truncated("a field of a piece", r.offset()));
    }
  }
  v.pieces.push_back(std::move(piece));
  v.scores.push_back(score);
  v.types.push_back(type);
  return true;
}

// A spec message of which only varint fields matter: calls use(field, value) for each,
// skips the rest by wire type.
template <class Use>
Result<bool> readVarintFields(std::span<const uint8_t> bytes, const char* what, Use use) {
  Reader r(bytes);
  while (!r.done()) {
    const auto key = r.varint();
    if (!key) return fail(truncated(what, r.offset()));
    const uint32_t field = *key >> 3, wire = *key & 7;
    if (wire == kVarint) {
      const auto value = r.varint();
      if (!value) return fail(truncated(what, r.offset()));
      use(field, *value);
    } else if (!r.skip(wire)) {
      return fail(truncated(what, r.offset()));
    }
  }
  return true;
}

Result<bool> readTrainerSpec(std::span<const uint8_t> bytes, Vocabulary& v) {
  return readVarintFields(bytes, "a trainer-spec field", [&](uint32_t field, uint64_t value) {
    const auto id = static_cast<int32_t>(static_cast<uint32_t>(value));  // -1: none
    if (field == kUnkId) v.unk = id;
    if (field == kBosId) v.bos = id;
    if (field == kEosId) v.eos = id;
  });
}

Result<bool> readNormalizerSpec(std::span<const uint8_t> bytes, Vocabulary& v) {
  return readVarintFields(bytes, "a normalizer-spec field", [&](uint32_t field, uint64_t value) {
    if (field == kAddDummyPrefix) v.add_dummy_prefix = value != 0;
  });
}

void putVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>(v | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}
void putKey(std::string& out, uint32_t field, uint32_t wire) {
  putVarint(out, field << 3 | wire);
}
void putBytes(std::string& out, uint32_t field, const std::string& bytes) {
  putKey(out, field, kBytes);
  putVarint(out, bytes.size());
  out += bytes;
}

}  // namespace

Result<Vocabulary> parseSentencePieceModel(std::span<const uint8_t> bytes) {
  Vocabulary v;
  Reader r(bytes);
  while (!r.done()) {
    const auto key = r.varint();
    if (!key) return fail(truncated("a field key", r.offset()));
    const uint32_t field = *key >> 3, wire = *key & 7;
    if ((field == kPieces || field == kTrainerSpec || field == kNormalizerSpec) && wire == kBytes) {
      const auto body = r.bytes();
      if (!body) return fail(truncated("a piece or spec", r.offset()));
      auto ok = field == kPieces        ? readPiece(*body, v)
                : field == kTrainerSpec ? readTrainerSpec(*body, v)
                                        : readNormalizerSpec(*body, v);
      if (!ok) return fail(ok.error());
    } else if (!r.skip(wire)) {
      return fail(truncated("a field", r.offset()));
    }
  }
  if (v.pieces.empty()) return fail("tokenizer.model: expected pieces, found none");
  const auto n = static_cast<int32_t>(v.pieces.size());
  for (int32_t id : {v.unk, v.bos, v.eos})
    if (id >= n)
      return fail("tokenizer.model: special id " + std::to_string(id) + " is past the " +
                  std::to_string(n) + " pieces");
  return v;
}

std::string serializeSentencePieceModel(const Vocabulary& vocab) {
  // llama2.c vocabularies write spaces as ' ' and carry no types: sentencepiece writes
  // U+2581 and marks <unk>, the BOS / EOS pieces and <0xNN> byte pieces by type.
  static const std::string kSpaceMark = "\xE2\x96\x81";
  bool space_mark = false;
  for (const auto& p : vocab.pieces)
    space_mark = space_mark || p.find(kSpaceMark) != std::string::npos;
  const auto typeOf = [&](size_t i) -> int32_t {
    if (i < vocab.types.size()) return vocab.types[i];
    const std::string& p = vocab.pieces[i];
    if (static_cast<int32_t>(i) == vocab.unk) return 2;  // UNKNOWN
    if (static_cast<int32_t>(i) == vocab.bos || static_cast<int32_t>(i) == vocab.eos)
      return 3;                                                                 // CONTROL
    if (p.size() == 6 && p.compare(0, 3, "<0x") == 0 && p[5] == '>') return 6;  // BYTE
    return 1;                                                                   // NORMAL
  };
  std::string out;
  for (size_t i = 0; i < vocab.pieces.size(); ++i) {
    std::string text = vocab.pieces[i];
    if (!space_mark && typeOf(i) == 1)
      for (size_t at; (at = text.find(' ')) != std::string::npos;) text.replace(at, 1, kSpaceMark);
    std::string piece;
    putBytes(piece, kPiece, text);
    const float score = i < vocab.scores.size() ? vocab.scores[i] : 0.f;
    uint32_t bits;
    std::memcpy(&bits, &score, 4);
    putKey(piece, kScore, kFixed32);
    for (int k = 0; k < 4; ++k) piece += static_cast<char>(bits >> (8 * k));
    putKey(piece, kType, kVarint);
    putVarint(piece, typeOf(i));
    putBytes(out, kPieces, piece);
  }
  std::string spec;
  putKey(spec, kModelType, kVarint);
  putVarint(spec, 2);  // BPE: merges by piece score, as the Baichuan / LLaMA models use
  putKey(spec, kByteFallback, kVarint);
  putVarint(spec, 1);
  for (auto [field, id] :
       {std::pair{kUnkId, vocab.unk}, std::pair{kBosId, vocab.bos}, std::pair{kEosId, vocab.eos}}) {
    putKey(spec, field, kVarint);
    putVarint(spec, static_cast<uint64_t>(static_cast<int64_t>(id)));  // -1: ten bytes
    // The library finds special ids by their piece text (unk_piece 45, bos_piece 46,
    // eos_piece 47), whose defaults "<unk>", "<s>", "</s>" not every vocabulary uses.
    if (id >= 0 && id < static_cast<int32_t>(vocab.pieces.size()))
      putBytes(spec, field + 5, vocab.pieces[id]);
  }
  putBytes(out, kTrainerSpec, spec);
  // Text goes in as it is (no NFKC table, spaces kept), spaces become U+2581, and the
  // dummy prefix is as the vocabulary says: what the engine's own tokenizer does.
  std::string normalizer;
  putBytes(normalizer, kName, "identity");
  for (auto [field, flag] :
       {std::pair{kAddDummyPrefix, vocab.add_dummy_prefix}, std::pair{kRemoveExtraSpaces, false},
        std::pair{kEscapeSpaces, true}}) {
    putKey(normalizer, field, kVarint);
    putVarint(normalizer, flag ? 1 : 0);
  }
  putBytes(out, kNormalizerSpec, normalizer);
  return out;
}

}  // namespace ts::engine
