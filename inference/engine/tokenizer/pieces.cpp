#include "inference/engine/tokenizer/pieces.h"

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

}  // namespace ts::engine
