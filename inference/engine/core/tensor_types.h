// Stored tensor element types (GGUF's ggml numbering) and their block layouts. Quant
// blocks are structs with static_assert'ed sizes (ggml-common.h's shape).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace ts::engine {

enum class TensorType : uint32_t {
  F32 = 0,
  F16 = 1,
  Q4_0 = 2,
  Q8_0 = 8,
  Q4_K = 12,
  Q6_K = 14,
  BF16 = 30,
};

struct TypeLayout {
  size_t block_elems;  // elements per block
  size_t block_bytes;  // bytes per block
};

// nullopt for a type number this engine does not know.
std::optional<TensorType> tensorTypeFromGgml(uint32_t ggml_type);
TypeLayout layoutOf(TensorType type);
std::string typeName(TensorType type);         // "F32", "Q4_0", ...
std::string ggmlTypeName(uint32_t ggml_type);  // also for unknown numbers: "type 7 (Q5_1)"

#pragma pack(push, 1)
struct BlockQ8_0 {
  uint16_t d;     // f16 scale
  int8_t qs[32];  // value = d * qs[i]
};
struct BlockQ4_0 {
  uint16_t d;      // f16 scale
  uint8_t qs[16];  // low nibbles: elements 0..15, high nibbles: 16..31; value = d * (q - 8)
};
// K-quants: super-blocks of 256 elements.
struct BlockQ4K {
  uint16_t d;          // f16 scale of the 8 sub-block scales
  uint16_t dmin;       // f16 scale of the 8 sub-block mins
  uint8_t scales[12];  // 8 scales and 8 mins, 6 bits each, packed
  uint8_t qs[128];     // 4-bit quants: 64-element chunks, low nibbles first then high
};
struct BlockQ6K {
  uint8_t ql[128];    // low 4 bits of the quants
  uint8_t qh[64];     // high 2 bits of the quants
  int8_t scales[16];  // one 8-bit scale per 16 elements
  uint16_t d;         // f16 super-block scale
};
#pragma pack(pop)
static_assert(sizeof(BlockQ8_0) == 34);
static_assert(sizeof(BlockQ4_0) == 18);
static_assert(sizeof(BlockQ4K) == 144);
static_assert(sizeof(BlockQ6K) == 210);

float f16ToF32(uint16_t h);
float bf16ToF32(uint16_t h);
uint16_t f32ToF16(float f);

// Dequantizes `n` elements (a whole number of blocks) from `src` into `dst`. Returns false
// for a type without a dequantizer yet.
bool dequantize(TensorType type, std::span<const uint8_t> src, float* dst, size_t n);

}  // namespace ts::engine
