// Dequantizers of every GGUF type this engine loads: the stored layouts of ggml's
// ggml-common.h, decoded to f32 (the reference for the fused kernels and conversions).
#include <cstring>

#include "inference/engine/core/tensor_types.h"

namespace ts::engine {

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

namespace {

// Calls fn(block, out) for each block of `n` elements (a whole number of blocks).
template <class Block, int kElems, class Fn>
void eachBlock(std::span<const uint8_t> src, float* dst, size_t n, Fn fn) {
  for (size_t b = 0; b < n / kElems; ++b) {
    Block blk;
    std::memcpy(&blk, src.data() + b * sizeof blk, sizeof blk);
    fn(blk, dst + b * kElems);
  }
}

// Q4_1 / Q5_0 / Q5_1: element j (low nibble) and j + 16 (high nibble) of byte j, with the
// fifth bits of qh (bit j, bit j + 16) for the 5-bit types; value = d * q + m.
void legacyBlock(float d, float m, const uint8_t* qs, const uint8_t* qh, int offset, float* y) {
  uint32_t high = 0;
  if (qh) std::memcpy(&high, qh, 4);
  for (int j = 0; j < 16; ++j) {
    const int lo = (qs[j] & 15) | (qh ? ((high >> j) & 1) << 4 : 0);
    const int hi = (qs[j] >> 4) | (qh ? ((high >> (j + 16)) & 1) << 4 : 0);
    y[j] = d * static_cast<float>(lo - offset) + m;
    y[j + 16] = d * static_cast<float>(hi - offset) + m;
  }
}

// Q4_K and Q5_K (a fifth bit from qh: bit 2c of byte l for element l of chunk c's low
// half, bit 2c + 1 for its high half).
template <class Block, bool kFifthBit>
void dequantizeQ45K(const Block& blk, float* y) {
  const float d = f16ToF32(blk.d), dmin = f16ToF32(blk.dmin);
  for (int chunk = 0; chunk < 4; ++chunk)  // 64 elements: sub-blocks 2c and 2c + 1
    for (int half = 0; half < 2; ++half) {
      int sc = 0, m = 0;
      scaleMinK4(2 * chunk + half, blk.scales, sc, m);
      const float scale = d * sc, offset = dmin * m;
      for (int l = 0; l < 32; ++l) {
        const uint8_t q = blk.qs[chunk * 32 + l];
        int value = half ? q >> 4 : q & 15;
        if constexpr (kFifthBit) value |= ((blk.qh[l] >> (2 * chunk + half)) & 1) << 4;
        y[chunk * 64 + half * 32 + l] = scale * value - offset;
      }
    }
}

// Q2_K: two 128-element halves; within each, 2-bit quants at shifts 0, 2, 4, 6 of 32
// bytes, each 16 elements with its own scale / min nibble pair.
void dequantizeQ2K(const BlockQ2K& blk, float* y) {
  const float d = f16ToF32(blk.d), dmin = f16ToF32(blk.dmin);
  int is = 0;
  for (int half = 0; half < 2; ++half) {
    const uint8_t* q = blk.qs + half * 32;
    for (int shift = 0; shift < 8; shift += 2)
      for (int part = 0; part < 2; ++part, ++is) {
        const float dl = d * (blk.scales[is] & 15), ml = dmin * (blk.scales[is] >> 4);
        for (int l = 0; l < 16; ++l) *y++ = dl * ((q[l + 16 * part] >> shift) & 3) - ml;
      }
  }
}

// Q3_K: 16 six-bit scales (low 4 bits in bytes 0..7, top 2 bits in bytes 8..11), values
// (2 low bits | high bit from hmask) - 4 with the high bit set meaning "no -4".
void dequantizeQ3K(const BlockQ3K& blk, float* y) {
  const float d = f16ToF32(blk.d);
  int scales[16];
  for (int j = 0; j < 16; ++j) {
    const int low = j < 8 ? blk.scales[j] & 15 : blk.scales[j - 8] >> 4;
    const int high = (blk.scales[8 + j % 4] >> (2 * (j / 4))) & 3;
    scales[j] = (low | high << 4) - 32;
  }
  int is = 0;
  uint8_t bit = 1;
  for (int half = 0; half < 2; ++half) {
    const uint8_t* q = blk.qs + half * 32;
    for (int shift = 0; shift < 8; shift += 2, bit <<= 1)
      for (int part = 0; part < 2; ++part, ++is) {
        const float dl = d * scales[is];
        for (int l = 0; l < 16; ++l) {
          const int at = l + 16 * part;
          *y++ = dl * (((q[at] >> shift) & 3) - (blk.hmask[at] & bit ? 0 : 4));
        }
      }
  }
}

}  // namespace

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
      eachBlock<BlockQ4K, 256>(src, dst, n, dequantizeQ45K<BlockQ4K, false>);
      return true;
    case TensorType::Q4_1:
      eachBlock<BlockQ4_1, 32>(src, dst, n, [](const BlockQ4_1& b, float* y) {
        legacyBlock(f16ToF32(b.d), f16ToF32(b.m), b.qs, nullptr, 0, y);
      });
      return true;
    case TensorType::Q5_0:
      eachBlock<BlockQ5_0, 32>(src, dst, n, [](const BlockQ5_0& b, float* y) {
        legacyBlock(f16ToF32(b.d), 0.f, b.qs, b.qh, 16, y);
      });
      return true;
    case TensorType::Q5_1:
      eachBlock<BlockQ5_1, 32>(src, dst, n, [](const BlockQ5_1& b, float* y) {
        legacyBlock(f16ToF32(b.d), f16ToF32(b.m), b.qs, b.qh, 0, y);
      });
      return true;
    case TensorType::Q2_K:
      eachBlock<BlockQ2K, 256>(src, dst, n, dequantizeQ2K);
      return true;
    case TensorType::Q3_K:
      eachBlock<BlockQ3K, 256>(src, dst, n, dequantizeQ3K);
      return true;
    case TensorType::Q5_K:
      eachBlock<BlockQ5K, 256>(src, dst, n, dequantizeQ45K<BlockQ5K, true>);
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
