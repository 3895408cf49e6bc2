// The attention KV cache in f32 (the reference), f16, or int8 with one scale per
// (layer, position, KV head) row of head_dim values. Attention reads it through dotKey /
// addValue, which dequantize on the fly.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "inference/engine/core/result.h"

namespace ts::engine {

enum class KvFormat { F32, F16, Int8 };
Result<KvFormat> parseKvFormat(const std::string& name);  // "f32" | "f16" | "int8"
std::string kvFormatName(KvFormat format);

class KvCache {
 public:
  KvCache(int layers, int positions, int kv_heads, int head_dim, KvFormat format);

  // k, v: [kv_heads * head_dim] of position `pos` in `layer`.
  void store(int layer, int pos, const float* k, const float* v);
  // q[head_dim] · K[layer, pos, head]
  float dotKey(int layer, int pos, int head, const float* q) const;
  // out[head_dim] += weight * V[layer, pos, head]
  void addValue(int layer, int pos, int head, float weight, float* out) const;

  // Forgets positions [from, to) in every layer (zeros, as never written): speculative
  // decoding's rollback of rejected draft positions.
  void clear(int from, int to);
  // Same format, shape and stored values (tests: a rolled-back cache against one built by
  // plain decoding).
  bool operator==(const KvCache& other) const;

  KvFormat format() const { return format_; }
  int positions() const { return positions_; }
  size_t bytes() const;

 private:
  size_t row(int layer, int pos, int head) const {
    return (static_cast<size_t>(layer) * positions_ + pos) * kv_heads_ + head;
  }

  KvFormat format_;
  int layers_, positions_, kv_heads_, head_dim_;
  std::vector<float> kf_, vf_;            // f32
  std::vector<uint16_t> kh_, vh_;         // f16
  std::vector<int8_t> kq_, vq_;           // int8
  std::vector<float> k_scale_, v_scale_;  // int8: one per row
};

}  // namespace ts::engine
