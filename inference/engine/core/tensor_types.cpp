#include "inference/engine/core/tensor_types.h"

#include <cstring>

namespace ts::engine {
namespace {

// Q4_K packs 8 six-bit scales and 8 six-bit mins into 12 bytes: entries 0..3 sit in the low
// 6 bits of bytes 0..3 (scales) and 4..7 (mins); entries 4..7 take 4 low bits from bytes
// 8..11 and their top 2 bits from the spare high bits of bytes 0..7.
void scaleMinK4(int j, const uint8_t* q, int& scale, int& min) {
  if (j < 4) {
    scale = q[j] & 63;
    min = q[j + 4] & 63;
  } else {
    scale = (q[j + 4] & 0x0F) | ((q[j - 4] >> 6) << 4);
    min = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
  }
}

}  // namespace

std::optional<TensorType> tensorTypeFromGgml(uint32_t t) {
  switch (t) {
    case 0:
      return TensorType::F32;
    case 1:
      return TensorType::F16;
    case 2:
      return TensorType::Q4_0;
    case 8:
      return TensorType::Q8_0;
    case 12:
      return TensorType::Q4_K;
    case 14:
      return TensorType::Q6_K;
    case 30:
      return TensorType::BF16;
    default:
      return std::nullopt;
  }
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
    case TensorType::Q4_K:
      return {256, 144};
    case TensorType::Q6_K:
      return {256, 210};
  }
  return {1, 4};
}

std::string typeName(TensorType type) {
  switch (type) {
    case TensorType::F32:
      return "F32";
    case TensorType::F16:
      return "F16";
    case TensorType::BF16:
      return "BF16";
    case TensorType::Q8_0:
      return "Q8_0";
    case TensorType::Q4_0:
      return "Q4_0";
    case TensorType::Q4_K:
      return "Q4_K";
    case TensorType::Q6_K:
      return "Q6_K";
  }
  return "?";
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

bool dequantize(TensorType type, std::span<const uint8_t> src, float* dst, size_t n) {
  switch (type) {
    case TensorType::F32:
      std::memcpy(dst, src.data(), n * 4);
      return true;
    case TensorType::F16:
    case TensorType::BF16:
      for (size_t i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, src.data() + 2 * i, 2);
        dst[i] = type == TensorType::F16 ? f16ToF32(h) : bf16ToF32(h);
      }
      return true;
    case TensorType::Q8_0:
      for (size_t b = 0; b < n / 32; ++b) {
        BlockQ8_0 blk;
        std::memcpy(&blk, src.data() + b * sizeof(blk), sizeof(blk));
        const float d = f16ToF32(blk.d);
        for (int i = 0; i < 32; ++i) dst[b * 32 + i] = d * blk.qs[i];
      }
      return true;
    case TensorType::Q4_0:
      for (size_t b = 0; b < n / 32; ++b) {
        BlockQ4_0 blk;
        std::memcpy(&blk, src.data() + b * sizeof(blk), sizeof(blk));
        const float d = f16ToF32(blk.d);
        for (int i = 0; i < 16; ++i) {
          dst[b * 32 + i] = d * (static_cast<int>(blk.qs[i] & 0x0F) - 8);
          dst[b * 32 + i + 16] = d * (static_cast<int>(blk.qs[i] >> 4) - 8);
        }
      }
      return true;
    case TensorType::Q4_K:
      for (size_t b = 0; b < n / 256; ++b) {
        BlockQ4K blk;
        std::memcpy(&blk, src.data() + b * sizeof(blk), sizeof(blk));
        const float d = f16ToF32(blk.d), dmin = f16ToF32(blk.dmin);
        float* y = dst + b * 256;
        for (int chunk = 0; chunk < 4; ++chunk) {  // 64 elements: sub-blocks 2c and 2c+1
          for (int half = 0; half < 2; ++half) {
            int sc = 0, m = 0;
            scaleMinK4(2 * chunk + half, blk.scales, sc, m);
            const float scale = d * sc, offset = dmin * m;
            for (int l = 0; l < 32; ++l) {
              const uint8_t q = blk.qs[chunk * 32 + l];
              y[chunk * 64 + half * 32 + l] = scale * (half ? q >> 4 : q & 0x0F) - offset;
            }
          }
        }
      }
      return true;
    case TensorType::Q6_K:
      for (size_t b = 0; b < n / 256; ++b) {
        BlockQ6K blk;
        std::memcpy(&blk, src.data() + b * sizeof(blk), sizeof(blk));
        const float d = f16ToF32(blk.d);
        for (int half = 0; half < 2; ++half) {  // 128 elements each
          const uint8_t* ql = blk.ql + half * 64;
          const uint8_t* qh = blk.qh + half * 32;
          const int8_t* sc = blk.scales + half * 8;
          float* y = dst + b * 256 + half * 128;
          for (int l = 0; l < 32; ++l) {
            const int group = l / 16;
            for (int quarter = 0; quarter < 4; ++quarter) {
              const uint8_t lo = ql[l + (quarter % 2) * 32];
              const int low4 = quarter < 2 ? lo & 0x0F : lo >> 4;
              const int high2 = (qh[l] >> (2 * quarter)) & 3;
              y[l + 32 * quarter] = d * sc[group + 2 * quarter] * ((low4 | (high2 << 4)) - 32);
            }
          }
        }
      }
      return true;
  }
  return false;
}

}  // namespace ts::engine
