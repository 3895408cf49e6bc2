// Builds GGUF bytes in memory for tests: metadata and tensors, valid or deliberately broken.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace ts::testing {

class GgufWriter {
 public:
  void u32(uint32_t v) { raw(&v, 4); }
  void u64(uint64_t v) { raw(&v, 8); }
  void str(const std::string& s) {
    u64(s.size());
    raw(s.data(), s.size());
  }
  void raw(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    bytes.insert(bytes.end(), b, b + n);
  }
  void kvString(const std::string& key, const std::string& value) {
    str(key);
    u32(8);
    str(value);
  }
  void kvU32(const std::string& key, uint32_t value) {
    str(key);
    u32(4);
    u32(value);
  }
  void kvF32(const std::string& key, float value) {
    str(key);
    u32(6);
    raw(&value, 4);
  }
  // A tensor directory entry; `offset` relative to the aligned data start.
  void tensorInfo(const std::string& name, std::vector<uint64_t> dims, uint32_t type,
                  uint64_t offset) {
    str(name);
    u32(static_cast<uint32_t>(dims.size()));
    for (uint64_t d : dims) u64(d);
    u32(type);
    u64(offset);
  }
  void alignTo(size_t a) {
    while (bytes.size() % a) bytes.push_back(0);
  }
  std::vector<uint8_t> bytes;
};

// A complete small llama GGUF with random-ish f32 weights; `skip` leaves one tensor out and
// `bad_shape` gives one tensor a wrong shape.
inline std::vector<uint8_t> tinyLlamaGguf(const std::string& skip = {},
                                          const std::string& bad_shape = {}) {
  const uint64_t D = 8, F = 16, V = 32, L = 1, KV = 4;  // 2 heads of 4, 1 KV head
  struct T {
    std::string name;
    std::vector<uint64_t> dims;
  };
  std::vector<T> tensors = {{"token_embd.weight", {D, V}}, {"output_norm.weight", {D}}};
  for (uint64_t l = 0; l < L; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    for (auto [n, d] : {std::pair{"attn_norm.weight", std::vector<uint64_t>{D}},
                        std::pair{"attn_q.weight", std::vector<uint64_t>{D, D}},
                        std::pair{"attn_k.weight", std::vector<uint64_t>{D, KV}},
                        std::pair{"attn_v.weight", std::vector<uint64_t>{D, KV}},
                        std::pair{"attn_output.weight", std::vector<uint64_t>{D, D}},
                        std::pair{"ffn_norm.weight", std::vector<uint64_t>{D}},
                        std::pair{"ffn_gate.weight", std::vector<uint64_t>{D, F}},
                        std::pair{"ffn_up.weight", std::vector<uint64_t>{D, F}},
                        std::pair{"ffn_down.weight", std::vector<uint64_t>{F, D}}})
      tensors.push_back({p + n, d});
  }
  std::erase_if(tensors, [&](const T& t) { return t.name == skip; });
  for (auto& t : tensors)
    if (t.name == bad_shape) t.dims[0] += 1;
  GgufWriter w;
  w.u32(0x46554747);
  w.u32(3);
  w.u64(tensors.size());
  w.u64(8);
  w.kvString("general.architecture", "llama");
  w.kvU32("llama.block_count", L);
  w.kvU32("llama.embedding_length", D);
  w.kvU32("llama.feed_forward_length", F);
  w.kvU32("llama.attention.head_count", 2);
  w.kvU32("llama.attention.head_count_kv", 1);
  w.kvU32("llama.context_length", 64);
  w.kvF32("llama.attention.layer_norm_rms_epsilon", 1e-5f);
  uint64_t offset = 0;
  std::vector<uint64_t> offsets;
  for (const auto& t : tensors) {
    uint64_t n = 1;
    for (auto d : t.dims) n *= d;
    offsets.push_back(offset);
    w.tensorInfo(t.name, t.dims, 0, offset);
    offset += (n * 4 + 31) / 32 * 32;
  }
  w.alignTo(32);
  uint32_t seed = 12345;
  for (size_t i = 0; i < tensors.size(); ++i) {
    uint64_t n = 1;
    for (auto d : tensors[i].dims) n *= d;
    for (uint64_t k = 0; k < n; ++k) {
      seed = seed * 1664525u + 1013904223u;
      const float v = static_cast<float>((seed >> 8) & 0xFFFF) / 65536.f - 0.5f;
      w.raw(&v, 4);
    }
    w.alignTo(32);
  }
  return w.bytes;
}

}  // namespace ts::testing
