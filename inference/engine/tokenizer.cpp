#include "inference/engine/tokenizer.h"

#include "inference/engine/pieces.h"

namespace ts::engine {
namespace {

const std::string kSpaceMark = "\xE2\x96\x81";  // "▁"

size_t utf8Length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead >> 5) == 0x6) return 2;
  if ((lead >> 4) == 0xE) return 3;
  if ((lead >> 3) == 0x1E) return 4;
  return 1;  // a stray continuation byte: its own symbol
}

}  // namespace

Tokenizer::Tokenizer(Vocabulary vocab) : vocab_(std::move(vocab)) {
  for (int& b : byte_ids_) b = -1;
  for (size_t i = 0; i < vocab_.pieces.size(); ++i) {
    const std::string& p = vocab_.pieces[i];
    index_.emplace(p, static_cast<int>(i));
    if (p.compare(0, kSpaceMark.size(), kSpaceMark) == 0) space_mark_ = true;
    if (p.size() == 6 && p.compare(0, 3, "<0x") == 0 && p[5] == '>')
      byte_ids_[std::stoi(p.substr(3, 2), nullptr, 16)] = static_cast<int>(i);
  }
}

int Tokenizer::find(const std::string& piece) const {
  auto it = index_.find(piece);
  return it == index_.end() ? -1 : it->second;
}

std::vector<int> Tokenizer::encode(std::string_view text, bool add_bos) const {
  std::vector<int> out;
  if (add_bos) out.push_back(vocab_.bos);
  if (text.empty()) return out;
  const std::string space = space_mark_ ? kSpaceMark : " ";
  std::string normalized = space;  // sentencepiece's dummy prefix
  for (char c : text) normalized += c == ' ' ? space : std::string(1, c);

  // One symbol per character; characters the vocabulary lacks become byte pieces.
  std::vector<std::string> symbols;
  std::vector<int> ids;
  for (size_t i = 0; i < normalized.size();) {
    const size_t n =
        std::min(utf8Length(static_cast<unsigned char>(normalized[i])), normalized.size() - i);
    const std::string ch = normalized.substr(i, n);
    i += n;
    if (const int id = find(ch); id >= 0) {
      symbols.push_back(ch);
      ids.push_back(id);
      continue;
    }
    for (unsigned char b : ch) {
      symbols.emplace_back();  // byte pieces never merge
      ids.push_back(byte_ids_[b] >= 0 ? byte_ids_[b] : vocab_.unk);
    }
  }
  // Merge the adjacent pair whose merged piece scores best (leftmost on ties), repeatedly.
  for (;;) {
    float best = -1e30f;
    int best_id = -1;
    size_t best_at = 0;
    for (size_t i = 0; i + 1 < symbols.size(); ++i) {
      if (symbols[i].empty() || symbols[i + 1].empty()) continue;
      const int id = find(symbols[i] + symbols[i + 1]);
      if (id < 0) continue;
      const float score = id < static_cast<int>(vocab_.scores.size()) ? vocab_.scores[id] : 0.f;
      if (score > best) {
        best = score;
        best_id = id;
        best_at = i;
      }
    }
    if (best_id < 0) break;
    symbols[best_at] += symbols[best_at + 1];
    ids[best_at] = best_id;
    symbols.erase(symbols.begin() + static_cast<std::ptrdiff_t>(best_at) + 1);
    ids.erase(ids.begin() + static_cast<std::ptrdiff_t>(best_at) + 1);
  }
  out.insert(out.end(), ids.begin(), ids.end());
  return out;
}

std::string Tokenizer::piece(int id) const {
  return pieceBytes(vocab_, id);
}

std::string Utf8Stream::push(const std::string& bytes) {
  pending_ += bytes;
  size_t complete = 0;
  for (size_t i = 0; i < pending_.size();) {
    const size_t n = utf8Length(static_cast<unsigned char>(pending_[i]));
    if (i + n > pending_.size()) break;  // the rest of this character is still to come
    i += n;
    complete = i;
  }
  std::string out = pending_.substr(0, complete);
  pending_.erase(0, complete);
  return out;
}

std::string Utf8Stream::flush() {
  std::string out;
  out.swap(pending_);
  return out;
}

}  // namespace ts::engine
