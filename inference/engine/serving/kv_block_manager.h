// Which blocks of a paged KV pool (KvBlockPool) each sequence holds, and the prefix cache
// over them. A sequence's block table lists its blocks in position order, kKvBlock
// positions each. Blocks whose KV rows are computed are published with the tokens they
// hold and the key of the block before them (the chain of keys hashes every token up to
// a block's end), so that a later sequence whose tokens begin the same way reuses them
// instead of computing them again: two chats with one system prompt, the next turn of a
// conversation, the same prompt sent again. Whole blocks are shared as they are (no one
// writes to a full block); a block the new tokens leave part-way (a partly filled last
// block, or a full one they diverge from) is copied into a block of the sequence's own for
// the positions they have in common (copy on write: KvBlockPool::copy). Blocks no sequence
// holds stay cached until the pool has no free block left; then the least recently used
// of them are taken (and forgotten). Not thread-safe: the scheduler's thread alone uses it.
#pragma once
#include <cstdint>
#include <list>
#include <span>
#include <unordered_map>
#include <vector>

namespace ts::engine {

class KvBlockManager {
 public:
  explicit KvBlockManager(int blocks);

  // What of `tokens` the cache holds, up to `limit` positions: its whole blocks are
  // appended to `table` (empty), each held once more; when a published block holds some of
  // the tokens after them, a fresh block is appended too and `copy_from` names the block
  // to copy its rows from (held until unhold(copy_from)), else copy_from is -1. Returns the
  // positions the table then holds computed.
  // whole_only: whole blocks only (no copy; copy_from is -1).
  int share(std::span<const int> tokens, int limit, std::vector<int>& table, int& copy_from,
            bool whole_only = false);
  // What share would find, holding nothing: the positions of `tokens` (up to `limit`) the
  // cache holds, and in `blocks` the blocks holding them in order (the last one part-way
  // when the positions end inside a block). Valid until the pool changes.
  int lookup(std::span<const int> tokens, int limit, std::vector<int>& blocks) const;
  void unhold(int block);  // after copying from it
  // Grows `table` to cover `positions` positions: free blocks first, then the least
  // recently used cached ones. False, and `table` unchanged, when the pool has too few.
  bool cover(std::vector<int>& table, int positions);
  // Publishes the blocks of `table` among the first `computed` positions, which hold
  // tokens[0, computed): full ones for sharing whole, the last one part-way for copying.
  // A full block whose prefix another block already holds stays unpublished.
  void publish(std::span<const int> tokens, int computed, std::span<const int> table);
  // Drops the table's holds and empties it: blocks held by no one become free, or stay
  // cached when published.
  void release(std::vector<int>& table);
  // Drops the holds of table[size ..] and shrinks the table to `size` blocks (a cover()
  // whose blocks could not be allocated, undone).
  void releaseFrom(std::vector<int>& table, size_t size);

  // Once memory has run out: blocks used before (free, or cached and then forgotten) are
  // handed out ahead of blocks never used, whose memory would have to be found anew.
  void preferUsedBlocks() { prefer_used_ = true; }
  // These blocks' memory could not be allocated: they count as never used again.
  void noteUnallocated(std::span<const int> blocks) {
    for (int b : blocks) used_[b] = false;
  }

  int total() const { return static_cast<int>(refs_.size()); }
  int held() const { return total() - free() - cached(); }      // by some sequence
  int cached() const { return static_cast<int>(lru_.size()); }  // published, held by none
  int free() const { return static_cast<int>(free_.size()); }

 private:
  // The key of a full block after the block keyed `parent`, holding `tokens`.
  static uint64_t key(uint64_t parent, std::span<const int> tokens);
  void hold(int block);  // one more holder (out of the LRU list if it was there)
  int take();            // a free block, or the least recently used cached one; -1: none
  void unpublish(int block);

  std::vector<int> refs_;                     // sequences holding each block
  std::vector<uint64_t> key_;                 // full published blocks' keys, else 0
  std::vector<uint64_t> parent_;              // published blocks: the key before
  std::vector<std::vector<int>> tokens_;      // published blocks' tokens (empty: unpublished)
  std::unordered_map<uint64_t, int> by_key_;  // full published blocks
  std::unordered_map<uint64_t, std::vector<int>> children_;  // published, by parent key
  std::vector<int> free_;                                    // a stack
  std::list<int> lru_;  // published, held by none; least recently used first
  std::vector<std::list<int>::iterator> lru_at_;  // valid while in lru_
  std::vector<bool> in_lru_;
  std::vector<bool> used_;    // handed out at least once (its memory allocated)
  bool prefer_used_ = false;  // preferUsedBlocks
};

}  // namespace ts::engine
