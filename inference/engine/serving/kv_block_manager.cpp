#include "inference/engine/serving/kv_block_manager.h"

#include <algorithm>

#include "inference/engine/model/kv_cache.h"

namespace ts::engine {

KvBlockManager::KvBlockManager(int blocks)
    : refs_(blocks, 0),
      key_(blocks, 0),
      parent_(blocks, 0),
      tokens_(blocks),
      lru_at_(blocks),
      in_lru_(blocks, false),
      used_(blocks, false) {
  for (int b = blocks - 1; b >= 0; --b) free_.push_back(b);  // block 0 handed out first
}

uint64_t KvBlockManager::key(uint64_t parent, std::span<const int> tokens) {
  // FNV-1a over the parent key and the token ids, then a final mix; 0 is kept for
  // "no block" (the root's parent).
  uint64_t h = 1469598103934665603ull ^ parent;
  for (int t : tokens) {
    h ^= static_cast<uint32_t>(t);
    h *= 1099511628211ull;
  }
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 32;
  return h == 0 ? 1 : h;
}

void KvBlockManager::hold(int b) {
  if (in_lru_[b]) {
    lru_.erase(lru_at_[b]);
    in_lru_[b] = false;
  }
  ++refs_[b];
}

void KvBlockManager::unhold(int b) {
  if (--refs_[b] > 0) return;
  if (!tokens_[b].empty()) {
    lru_at_[b] = lru_.insert(lru_.end(), b);
    in_lru_[b] = true;
  } else {
    free_.push_back(b);
  }
}

int KvBlockManager::take() {
  int b = -1;
  // A free block; short of memory, one used before (its memory is there) ahead of cached
  // ones, and those ahead of blocks never used (their memory would be new).
  const bool free_first = !free_.empty() && (!prefer_used_ || used_[free_.back()] || lru_.empty());
  if (free_first) {
    b = free_.back();
    free_.pop_back();
  } else if (!lru_.empty()) {  // the least recently used cached block: forgotten
    b = lru_.front();
    lru_.pop_front();
    in_lru_[b] = false;
    unpublish(b);
  }
  if (b >= 0) {
    refs_[b] = 1;
    used_[b] = true;
  }
  return b;
}

int KvBlockManager::lookup(std::span<const int> tokens, int limit, std::vector<int>& blocks) const {
  blocks.clear();
  limit = std::min<int>(limit, static_cast<int>(tokens.size()));
  uint64_t parent = 0;
  int positions = 0;
  while (positions + kKvBlock <= limit) {  // whole blocks
    const auto block_tokens = tokens.subspan(positions, kKvBlock);
    const uint64_t k = key(parent, block_tokens);
    const auto it = by_key_.find(k);
    if (it == by_key_.end()) break;
    const int b = it->second;
    if (parent_[b] != parent ||
        !std::equal(block_tokens.begin(), block_tokens.end(), tokens_[b].begin(), tokens_[b].end()))
      break;  // a collision of keys: not the same prefix
    blocks.push_back(b);
    parent = k;
    positions += kKvBlock;
  }
  // Part of a block: the published child of the last shared block that holds most of the
  // tokens that follow.
  const auto children = children_.find(parent);
  if (children == children_.end() || positions >= limit) return positions;
  const auto rest = tokens.subspan(positions, std::min(kKvBlock, limit - positions));
  int best = -1, best_length = 0;
  for (int c : children->second) {
    const auto& held = tokens_[c];
    const int length = static_cast<int>(
        std::mismatch(rest.begin(), rest.end(), held.begin(), held.end()).first - rest.begin());
    if (length > best_length) best = c, best_length = length;
  }
  if (best < 0) return positions;
  blocks.push_back(best);
  return positions + best_length;
}

int KvBlockManager::share(std::span<const int> tokens, int limit, std::vector<int>& table,
                          int& copy_from, bool whole_only) {
  copy_from = -1;
  std::vector<int> found;
  const int positions = lookup(tokens, limit, found);
  const int whole = positions / kKvBlock;
  for (int i = 0; i < whole; ++i) {
    hold(found[i]);
    table.push_back(found[i]);
  }
  if (whole_only || static_cast<int>(found.size()) == whole) return whole * kKvBlock;
  const int best = found.back();
  hold(best);  // so that taking a block for the copy cannot evict it
  const int own = take();
  if (own < 0) {
    unhold(best);
    return whole * kKvBlock;
  }
  table.push_back(own);
  copy_from = best;
  return positions;
}

void KvBlockManager::unpublish(int b) {
  if (tokens_[b].empty()) return;
  if (key_[b] != 0) by_key_.erase(key_[b]);
  if (auto it = children_.find(parent_[b]); it != children_.end()) {
    std::erase(it->second, b);
    if (it->second.empty()) children_.erase(it);
  }
  key_[b] = parent_[b] = 0;
  tokens_[b].clear();
}

bool KvBlockManager::cover(std::vector<int>& table, int positions) {
  const int needed = (positions + kKvBlock - 1) / kKvBlock - static_cast<int>(table.size());
  if (needed <= 0) return true;
  if (needed > free() + cached()) return false;
  for (int i = 0; i < needed; ++i) table.push_back(take());
  return true;
}

void KvBlockManager::publish(std::span<const int> tokens, int computed,
                             std::span<const int> table) {
  uint64_t parent = 0;
  const int blocks =
      std::min<int>((computed + kKvBlock - 1) / kKvBlock, static_cast<int>(table.size()));
  for (int i = 0; i < blocks; ++i) {
    const int b = table[i];
    const int from = i * kKvBlock, n = std::min(kKvBlock, computed - from);
    const auto block_tokens = tokens.subspan(from, n);
    const bool full = n == kKvBlock;
    const uint64_t k = full ? (key_[b] != 0 ? key_[b] : key(parent, block_tokens)) : 0;
    if (static_cast<int>(tokens_[b].size()) != n || parent_[b] != parent) {
      const auto owner = by_key_.find(k);
      if (!full || owner == by_key_.end() || owner->second == b) {
        unpublish(b);  // a part-way record grown since, or none
        parent_[b] = parent;
        tokens_[b].assign(block_tokens.begin(), block_tokens.end());
        children_[parent].push_back(b);
        if (full) {
          key_[b] = k;
          by_key_.emplace(k, b);
        }
      }
    }
    if (!full) break;
    parent = k;
  }
}

void KvBlockManager::release(std::vector<int>& table) {
  // Last blocks first into the LRU list, so a prefix's first blocks (the ones more
  // sequences share) are evicted last.
  for (auto it = table.rbegin(); it != table.rend(); ++it) unhold(*it);
  table.clear();
}

void KvBlockManager::releaseFrom(std::vector<int>& table, size_t size) {
  while (table.size() > size) {
    unhold(table.back());
    table.pop_back();
  }
}

}  // namespace ts::engine
