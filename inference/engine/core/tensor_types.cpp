#include "inference/engine/core/tensor_types.h"

#include <cstring>

namespace ts::engine {
std::optional<TensorType> tensorTypeFromGgml(uint32_t t) {
  switch (t) {
    case 0:
    case 1:
    case 2:
    case 3:
    case 6:
    case 7:
    case 8:
    case 10:
    case 11:
    case 12:
    case 13:
    case 14:
    case 30:
      return static_cast<TensorType>(t);
    default:
      return std::nullopt;
  }
}

bool isKQuant(TensorType type) {
  return type == TensorType::Q2_K || type == TensorType::Q3_K || type == TensorType::Q4_K ||
         type == TensorType::Q5_K || type == TensorType::Q6_K;
}

TypeLayout layoutOf(TensorType type) {
  switch (type) {
    case TensorType::F32:
      return {1, 4};
    case TensorType::F16:
      return {1, 2};
    case TensorType::BF16:
      return {1, 2};
    case TensorType::Q8_0:
      return {32, 34};
    case TensorType::Q4_0:
      return {32, 18};
    case TensorType::Q4_1:
      return {32, 20};
    case TensorType::Q5_0:
      return {32, 22};
    case TensorType::Q5_1:
      return {32, 24};
    case TensorType::Q2_K:
      return {256, 84};
    case TensorType::Q3_K:
      return {256, 110};
    case TensorType::Q4_K:
      return {256, 144};
    case TensorType::Q5_K:
      return {256, 176};
    case TensorType::Q6_K:
      return {256, 210};
  }
  return {1, 4};
}

std::string typeName(TensorType type) {
  return ggmlTypeName(static_cast<uint32_t>(type));
}

std::string ggmlTypeName(uint32_t t) {
  static const char* const names[] = {
      "F32",     "F16",    "Q4_0",    "Q4_1",  "Q4_2",   "Q4_3",  "Q5_0",  "Q5_1",
      "Q8_0",    "Q8_1",   "Q2_K",    "Q3_K",  "Q4_K",   "Q5_K",  "Q6_K",  "Q8_K",
      "IQ2_XXS", "IQ2_XS", "IQ3_XXS", "IQ1_S", "IQ4_NL", "IQ3_S", "IQ2_S", "IQ4_XS",
      "I8",      "I16",    "I32",     "I64",   "F64",    "IQ1_M", "BF16"};
  if (t < sizeof(names) / sizeof(names[0])) return names[t];
  return "type " + std::to_string(t);
}

float f16ToF32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1F;
  uint32_t mant = h & 0x3FF;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: renormalise
      exp = 127 - 15 + 1;
      while ((mant & 0x400) == 0) {
        mant <<= 1;
        --exp;
      }
      mant &= 0x3FF;
      bits = sign | (exp << 23) | (mant << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7F800000 | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float bf16ToF32(uint16_t h) {
  const uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t f32ToF16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000;
  const int32_t exp = static_cast<int32_t>((x >> 23) & 0xFF) - 127 + 15;
  uint32_t mant = x & 0x7FFFFF;
  if (((x >> 23) & 0xFF) == 0xFF) return static_cast<uint16_t>(sign | 0x7C00 | (mant ? 0x200 : 0));
  if (exp >= 31) return static_cast<uint16_t>(sign | 0x7C00);
  if (exp <= 0) {
    if (exp < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000;
    const uint32_t shift = static_cast<uint32_t>(14 - exp);
    uint32_t half = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1);
    const uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  const uint32_t rem = mant & 0x1FFF;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1))) ++half;  // round to nearest even
  return static_cast<uint16_t>(half);
}

}  // namespace ts::engine
