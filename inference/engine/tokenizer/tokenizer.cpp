#include "inference/engine/tokenizer/tokenizer.h"

#include <algorithm>
#include <queue>

#include "inference/engine/tokenizer/pieces.h"

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
    if (i < vocab_.types.size() && vocab_.types[i] == kUserDefinedPiece && !p.empty()) {
      user_first_[static_cast<unsigned char>(p[0])] = true;
      if (std::find(user_lengths_.begin(), user_lengths_.end(), p.size()) == user_lengths_.end())
        user_lengths_.push_back(p.size());
    }
  }
  std::sort(user_lengths_.rbegin(), user_lengths_.rend());
}

std::pair<int, size_t> Tokenizer::userDefinedAt(const std::string& text, size_t at) const {
  if (user_lengths_.empty() || !user_first_[static_cast<unsigned char>(text[at])]) return {-1, 0};
  for (size_t n : user_lengths_) {
    if (n > text.size() - at) continue;
    const int id = find(text.substr(at, n));
    if (id >= 0 && static_cast<size_t>(id) < vocab_.types.size() &&
        vocab_.types[id] == kUserDefinedPiece)
      return {id, n};
  }
  return {-1, 0};
}

int Tokenizer::find(const std::string& piece) const {
  auto it = index_.find(piece);
  return it == index_.end() ? -1 : it->second;
}

std::string Tokenizer::normalize(std::string_view text) const {
  const std::string space = space_mark_ ? kSpaceMark : " ";
  std::string normalized = vocab_.add_dummy_prefix ? space : "";  // sentencepiece's prefix
  for (char c : text) normalized += c == ' ' ? space : std::string(1, c);
  return normalized;
}

std::vector<Tokenizer::Symbol> Tokenizer::symbolsOf(const std::string& normalized) const {
  // Byte and user-defined pieces never merge. Symbols form a linked list over `normalized`.
  std::vector<Symbol> symbols;
  for (size_t i = 0; i < normalized.size();) {
    const int at = static_cast<int>(symbols.size());
    if (const auto [user, bytes] = userDefinedAt(normalized, i); user >= 0) {
      symbols.push_back({i, bytes, user, at - 1, at + 1, true});
      i += bytes;
      continue;
    }
    const size_t n =
        std::min(utf8Length(static_cast<unsigned char>(normalized[i])), normalized.size() - i);
    if (const int id = find(normalized.substr(i, n)); id >= 0) {
      symbols.push_back({i, n, id, at - 1, at + 1});
    } else {
      for (size_t b = 0; b < n; ++b) {
        const auto byte = static_cast<unsigned char>(normalized[i + b]);
        const int k = static_cast<int>(symbols.size());
        symbols.push_back(
            {i + b, 0, byte_ids_[byte] >= 0 ? byte_ids_[byte] : vocab_.unk, k - 1, k + 1});
      }
    }
    i += n;
  }
  if (!symbols.empty()) symbols.back().next = -1;
  return symbols;
}

void Tokenizer::mergePairs(const std::string& normalized, std::vector<Symbol>& symbols) const {
  // Candidate pairs wait in a heap; a candidate whose symbols changed since is skipped.
  struct Candidate {
    float score;
    int left, right;
    size_t length;  // of the merged piece when pushed: a stale entry no longer matches
    int id;
    bool operator<(const Candidate& o) const {
      return score != o.score ? score < o.score : left > o.left;
    }
  };
  std::priority_queue<Candidate> agenda;
  const auto consider = [&](int left, int right) {
    if (left < 0 || right < 0) return;
    const Symbol &a = symbols[left], &b = symbols[right];
    if (a.length == 0 || b.length == 0 || a.frozen || b.frozen) return;
    const int id = find(normalized.substr(a.begin, a.length + b.length));
    if (id < 0) return;
    const float score = id < static_cast<int>(vocab_.scores.size()) ? vocab_.scores[id] : 0.f;
    agenda.push({score, left, right, a.length + b.length, id});
  };
  for (int i = 0; i + 1 < static_cast<int>(symbols.size()); ++i) consider(i, i + 1);
  while (!agenda.empty()) {
    const Candidate c = agenda.top();
    agenda.pop();
    Symbol &a = symbols[c.left], &b = symbols[c.right];
    if (a.length == 0 || b.length == 0 || a.next != c.right || a.length + b.length != c.length)
      continue;  // stale: one side was merged into something else meanwhile
    a.length += b.length;
    a.id = c.id;
    a.next = b.next;
    if (b.next >= 0) symbols[b.next].prev = c.left;
    b.length = 0;
    b.id = -1;  // removed
    consider(a.prev, c.left);
    consider(c.left, a.next);
  }
}

std::vector<int> Tokenizer::encode(std::string_view text, bool add_bos) const {
  std::vector<int> out;
  if (add_bos) out.push_back(vocab_.bos);
  if (text.empty()) return out;
  const std::string normalized = normalize(text);
  std::vector<Symbol> symbols = symbolsOf(normalized);
  mergePairs(normalized, symbols);
  for (int i = symbols.empty() ? -1 : 0; i >= 0; i = symbols[i].next) out.push_back(symbols[i].id);
  return out;
}

std::string Tokenizer::piece(int id) const {
  return pieceBytes(vocab_, id);
}

std::string Tokenizer::displayPiece(int id) const {
  return displayBytes(vocab_, id);
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
