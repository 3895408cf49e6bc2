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
  Q4_1 = 3,
  Q5_0 = 6,
  Q5_1 = 7,
  Q8_0 = 8,
  Q2_K = 10,
  Q3_K = 11,
  Q4_K = 12,
  Q5_K = 13,
  Q6_K = 14,
  BF16 = 30,
};

struct TypeLayout {
  size_t block_elems;  // elements per block
  size_t block_bytes;  // bytes per block
};

// A matrix as a file's header gives it: its element type and [rows, cols], rows outermost.
struct StoredMatrix {
  TensorType type = TensorType::F32;
  int rows = 0, cols = 0;
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
struct BlockQ4_1 {
  uint16_t d, m;   // f16 scale and minimum
  uint8_t qs[16];  // as Q4_0; value = d * q + m
};
struct BlockQ5_0 {
  uint16_t d;      // f16 scale
  uint8_t qh[4];   // bit j: the fifth bit of element j
  uint8_t qs[16];  // as Q4_0; value = d * (q - 16)
};
struct BlockQ5_1 {
  uint16_t d, m;   // f16 scale and minimum
  uint8_t qh[4];   // as Q5_0
  uint8_t qs[16];  // value = d * q + m
};
// K-quants: super-blocks of 256 elements.
struct BlockQ2K {
  uint8_t scales[16];  // per 16 elements: 4-bit scale (low), 4-bit min (high)
  uint8_t qs[64];      // 2-bit quants
  uint16_t d, dmin;    // f16 scales of the scales and mins
};
struct BlockQ3K {
  uint8_t hmask[32];   // high bit of the quants
  uint8_t qs[64];      // low 2 bits
  uint8_t scales[12];  // 16 six-bit scales, packed
  uint16_t d;          // f16 super-block scale
};
struct BlockQ4K {
  uint16_t d;          // f16 scale of the 8 sub-block scales
  uint16_t dmin;       // f16 scale of the 8 sub-block mins
  uint8_t scales[12];  // 8 scales and 8 mins, 6 bits each, packed
  uint8_t qs[128];     // 4-bit quants: 64-element chunks, low nibbles first then high
};
struct BlockQ5K {
  uint16_t d, dmin;    // as Q4_K
  uint8_t scales[12];  // as Q4_K
  uint8_t qh[32];      // fifth bits: bit 2c of byte l for element l of chunk c's low half,
                       // bit 2c + 1 for its high half
  uint8_t qs[128];     // low 4 bits, as Q4_K
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
static_assert(sizeof(BlockQ5K) == 176);
static_assert(sizeof(BlockQ4_1) == 20);
static_assert(sizeof(BlockQ5_0) == 22);
static_assert(sizeof(BlockQ5_1) == 24);
static_assert(sizeof(BlockQ2K) == 84);
static_assert(sizeof(BlockQ3K) == 110);

// Q4_K / Q5_K: sub-block j's 6-bit scale and min from the 12 packed bytes.
void scaleMinK4(int j, const uint8_t* packed, int& scale, int& min);

// Row bytes of `cols` elements of `type` (cols a whole number of blocks).
inline size_t rowBytes(TensorType type, size_t cols) {
  const TypeLayout l = layoutOf(type);
  return cols / l.block_elems * l.block_bytes;
}
bool isKQuant(TensorType type);  // Q2_K .. Q6_K: super-blocks of 256

float f16ToF32(uint16_t h);
float bf16ToF32(uint16_t h);
uint16_t f32ToF16(float f);

// Dequantizes `n` elements (a whole number of blocks) from `src` into `dst`. Returns false
// for a type without a dequantizer yet.
bool dequantize(TensorType type, std::span<const uint8_t> src, float* dst, size_t n);

}  // namespace ts::engine
