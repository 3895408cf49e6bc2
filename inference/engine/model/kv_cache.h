// The attention KV cache in f32 (the reference), f16 (the default), or int8 with one scale
// per (layer, position, KV head) row of head_dim values. Attention reads it through
// dotKey / addValue, which dequantize on the fly. Memory grows in blocks of kKvBlock
// positions as they are written (a 4,096-position context for a 7B model costs nothing
// until used), up to `positions`.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "inference/engine/core/large_buffer.h"

#include "inference/engine/core/result.h"
#include "inference/engine/cpu/kernels/kernels.h"

namespace ts::engine {

enum class KvFormat { F32, F16, Int8 };
Result<KvFormat> parseKvFormat(const std::string& name);  // "f32" | "f16" | "int8"
std::string kvFormatName(KvFormat format);

constexpr int kKvBlock = 64;  // positions per allocation

class KvCache {
 public:
  KvCache(int layers, int positions, int kv_heads, int head_dim, KvFormat format);
  KvCache(const KvCache& other);  // a deep copy (tests snapshot a cache)
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

  // Forgets positions [from, to) in every layer (zeros, as never written): speculative
  // decoding's rollback of rejected draft positions.
  void clear(int from, int to);
  // Same format, shape and stored values (tests: a rolled-back cache against one built by
  // plain decoding).
  bool operator==(const KvCache& other) const;

  KvFormat format() const { return format_; }
  int positions() const { return positions_; }
  size_t bytes() const;          // held now: the blocks written so far
  size_t capacityBytes() const;  // when every position is written

 private:
  // kKvBlock positions of every layer: rows [layer][KV head][position in block], so that a
  // head's keys (and values) of a block are one contiguous run that attention streams (with
  // the heads innermost, each row was 8 KiB after the last for the 7B shape: attention over
  // them waited on memory, 2.5 ms of a 25 ms verification of five on 2 threads).
  struct Block {
    ScratchBuffer<float> kf, vf;            // f32
    ScratchBuffer<uint16_t> kh, vh;         // f16
    ScratchBuffer<int8_t> kq, vq;           // int8
    ScratchBuffer<float> k_scale, v_scale;  // int8: one per row
    size_t bytes() const;
  };
  size_t row(int layer, int pos, int head) const {  // within pos's block
    return (static_cast<size_t>(layer) * kv_heads_ + head) * kKvBlock + pos % kKvBlock;
  }
  const Block& block(int pos) const { return *blocks_[pos / kKvBlock]; }
  Block& allocate(int pos);  // pos's block, allocated (zeros) on first use

  KvFormat format_;
  int layers_, positions_, kv_heads_, head_dim_;
  // One slot per block of the capacity, null until written: sized once, so readers on
  // other threads never see the vector move.
  std::vector<std::unique_ptr<Block>> blocks_;
};

}  // namespace ts::engine
