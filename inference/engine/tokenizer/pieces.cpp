#include "inference/engine/tokenizer/pieces.h"

#include <cctype>
#include <string_view>

namespace ts::engine {

std::string pieceBytes(const Vocabulary& vocab, int id) {
  if (id < 0 || id >= static_cast<int>(vocab.pieces.size())) return {};
  const std::string& p = vocab.pieces[id];
  if (p.size() == 6 && p.compare(0, 3, "<0x") == 0 && p[5] == '>') {
    const auto hex = [](char c) {
      return c >= '0' && c <= '9' ? c - '0' : (c >= 'A' && c <= 'F' ? c - 'A' + 10 : c - 'a' + 10);
    };
    return std::string(1, static_cast<char>(hex(p[3]) * 16 + hex(p[4])));
  }
  static const std::string kSpaceMark = "\xE2\x96\x81";  // U+2581
  std::string out;
  for (size_t i = 0; i < p.size();) {
    if (p.compare(i, 3, kSpaceMark) == 0) {
      out += ' ';
      i += 3;
    } else {
      out += p[i++];
    }
  }
  return out;
}

namespace {

bool startsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// "<" prefix digits ">" with at least one digit (optionally a space before them).
bool numberedTag(std::string_view piece, std::string_view prefix) {
  if (!startsWith(piece, prefix) || piece.size() < prefix.size() + 2 || piece.back() != '>')
    return false;
  std::string_view digits = piece.substr(prefix.size(), piece.size() - prefix.size() - 1);
  if (!digits.empty() && digits.front() == ' ') digits.remove_prefix(1);
  if (digits.empty()) return false;
  for (char c : digits)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

}  // namespace

bool isMarkupPiece(const std::string& piece) {
  const std::string_view p = piece;
  if (p == "<s>" || p == "</s>" || p == "<unk>" || p == "<pad>" || p == "<mask>") return true;
  if (p.size() >= 4 && startsWith(p, "<|") && p.substr(p.size() - 2) == "|>") return true;
  return numberedTag(p, "<reserved_") || numberedTag(p, "<extra_") || numberedTag(p, "<unused") ||
         numberedTag(p, "<pad_");
}

std::string displayBytes(const Vocabulary& vocab, int id) {
  if (id < 0 || id >= static_cast<int>(vocab.pieces.size())) return {};
  if (id == vocab.bos || id == vocab.eos) return {};
  const int32_t type = id < static_cast<int>(vocab.types.size()) ? vocab.types[id] : 1;
  if (type == 2 || type == 3 || type == 5) return {};
  if (type != 6 && isMarkupPiece(vocab.pieces[id])) return {};
  return pieceBytes(vocab, id);
}

}  // namespace ts::engine
