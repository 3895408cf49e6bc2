// The attention KV cache in f32 (the reference), f16 (the default), or int8 with one scale
// per (layer, position, KV head) row of head_dim values. Attention reads it through
// dotKey / addValue, which dequantize on the fly. Memory is in blocks of kKvBlock
// positions (every layer's rows of them). A KvCache either owns its blocks, allocated as
// positions are written (a 4,096-position context for a 7B model costs nothing until
// used), or is a view of a sequence in a KvBlockPool: its positions are the blocks of a
// block table, in order (paged attention: the serving scheduler's sequences share one pool,
// and a prompt prefix's blocks are shared by every sequence that starts with it).
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "inference/engine/core/large_buffer.h"

#include "inference/engine/core/result.h"
#include "inference/engine/cpu/kernels/kernels.h"

namespace ts::engine {

enum class KvFormat { F32, F16, Int8 };
Result<KvFormat> parseKvFormat(const std::string& name);  // "f32" | "f16" | "int8"
std::string kvFormatName(KvFormat format);

constexpr int kKvBlock = 32;  // positions per block (a multiple of attention's key tile)

// kKvBlock positions of every layer: rows [layer][KV head][position in block], so that a
// head's keys (and values) of a block are one contiguous run that attention streams (with
// the heads innermost, each row was 8 KiB after the last for the 7B shape: attention over
// them waited on memory, 2.5 ms of a 25 ms verification of five on 2 threads).
struct KvBlock {
  ScratchBuffer<float> kf, vf;            // f32
  ScratchBuffer<uint16_t> kh, vh;         // f16
  ScratchBuffer<int8_t> kq, vq;           // int8
  ScratchBuffer<float> k_scale, v_scale;  // int8: one per row
  // Sized for `rows` rows (layers x KV heads x kKvBlock) of head_dim values, zeros.
  void allocate(KvFormat format, size_t rows, int head_dim);
  size_t bytes() const;
};

// A fixed number of blocks, numbered 0 .. size() - 1, each allocated on first use and kept
// (what sequences hold, and a prefix cache's blocks, is decided by KvBlockManager).
class KvBlockPool {
 public:
  KvBlockPool(int blocks, int layers, int kv_heads, int head_dim, KvFormat format);
  KvBlock& block(int id);       // allocated on first call; not thread-safe while allocating
  void copy(int from, int to);  // block `to` becomes a copy of block `from`
  // Allocates the blocks now (those not yet allocated): std::bad_alloc when memory runs
  // out, with the blocks before the failing one allocated and kept.
  void allocate(std::span<const int> ids);
  int size() const { return static_cast<int>(blocks_.size()); }
  KvFormat format() const { return format_; }
  int layers() const { return layers_; }
  int kvHeads() const { return kv_heads_; }
  int headDim() const { return head_dim_; }
  size_t bytes() const;       // allocated so far
  size_t blockBytes() const;  // one block
  int allocated() const { return allocated_; }

 private:
  KvFormat format_;
  int layers_, kv_heads_, head_dim_;
  std::vector<std::unique_ptr<KvBlock>> blocks_;
  int allocated_ = 0;
};

// Bytes of one pool block: kKvBlock positions of every layer's keys and values (int8 with
// their scales).
size_t kvBlockBytes(KvFormat format, int layers, int kv_heads, int head_dim);

namespace testing {
// Test hook: the next `count` block allocations in any KvBlockPool throw std::bad_alloc,
// as if memory had run out there (0 disarms).
void failKvBlockAllocations(int count);
}  // namespace testing

class KvCache {
 public:
  KvCache(int layers, int positions, int kv_heads, int head_dim, KvFormat format);
  // A view of the positions [0, table.size() * kKvBlock) held by pool blocks table[0], ...:
  // reads and writes go to those blocks (allocated here when new).
  KvCache(KvBlockPool& pool, std::span<const int> table);
  KvCache(const KvCache& other);  // a deep copy that owns its blocks (tests snapshot a cache)
  KvCache& operator=(const KvCache& other);
  KvCache(KvCache&&) = default;
  KvCache& operator=(KvCache&&) = default;

  // k, v: [kv_heads * head_dim] of position `pos` in `layer`.
  void store(int layer, int pos, const float* k, const float* v);
  // Allocates the blocks of positions [from, to) now, so that store may then run for those
  // positions on several threads at once (each position's rows are its own).
  void reserve(int from, int to);
  // q[head_dim] · K[layer, pos, head]
  float dotKey(int layer, int pos, int head, const float* q) const;
  // out[head_dim] += weight * V[layer, pos, head]
  void addValue(int layer, int pos, int head, float weight, float* out) const;
  // The rows of `head` in `layer` from position `from` on, as stored (K, or V with
  // values), up to the end of from's allocation block (kKvBlock positions): row t at
  // data + t * stride elements, int8 rows' scales at scale[t * scale_stride].
  struct Rows {
    Kernels::Rows type;
    const void* data;
    size_t stride;
    const float* scale;  // int8 only
    size_t scale_stride;
  };
  Rows rows(int layer, int from, int head, bool values) const;

  // Copies the rows of positions [from, to) of every layer and KV head from `source` as
  // stored (f32, f16 or int8 values with their scales: bit for bit), allocating this
  // cache's blocks where new; positions of `source` never written copy as zeros. Both
  // caches have one format and shape (std::invalid_argument otherwise) and hold the
  // positions (std::out_of_range otherwise). The serving scheduler's separate prefill: a
  // worker's own cache into a sequence's pool blocks (a view), a cached prefix the other
  // way.
  void copyRows(const KvCache& source, int from, int to);

  // Forgets positions [from, to) in every layer (zeros, as never written): speculative
  // decoding's rollback of rejected draft positions. Whole owned blocks are given back.
  void clear(int from, int to);
  // Same format, shape and stored values (tests: a rolled-back cache against one built by
  // plain decoding).
  bool operator==(const KvCache& other) const;

  KvFormat format() const { return format_; }
  int positions() const { return positions_; }
  size_t bytes() const;          // held now: the blocks written so far
  size_t capacityBytes() const;  // when every position is written

 private:
  using Block = KvBlock;
  size_t row(int layer, int pos, int head) const {  // within pos's block
    return (static_cast<size_t>(layer) * kv_heads_ + head) * kKvBlock + pos % kKvBlock;
  }
  const Block& block(int pos) const { return *table_[pos / kKvBlock]; }
  Block& allocate(int pos);  // pos's block, allocated (zeros) on first use

  KvFormat format_;
  int layers_, positions_, kv_heads_, head_dim_;
  // One slot per block of the capacity, null until written (own blocks) or a pool's blocks
  // (a view): sized once, so readers on other threads never see the vector move.
  std::vector<Block*> table_;
  std::vector<std::unique_ptr<Block>> owned_;  // own blocks: owned_[i] is table_[i]
};

}  // namespace ts::engine
