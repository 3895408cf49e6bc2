// The CUDA plugin's decoding of GGUF rows as stored (ggml's block layouts), 32 elements at
// a time: the device kernels and their CPU twin compile this same code (nvcc for the
// device, the host compiler for engine-selftest), so the self-test checks the twin against
// the engine's own dequantizers on every machine and the device against the twin where a
// GPU exists. Plain C++17; no CUDA header.
//
// A row of `cols` elements is cols / 32 sub-blocks; sub-block j of a row decodes to its
// elements 32j .. 32j + 31:
//   F16 / BF16  2 bytes per element
//   Q8_0 / Q4_0 block j (34 / 18 bytes: an f16 scale, then 32 int8 / 16 bytes of nibbles)
//   Q4_K / Q5_K super-block j / 8 (144 / 176 bytes), its sub-block j % 8 (a 6-bit scale and
//               min of the super-block's 12 packed bytes; Q5_K a fifth bit from qh)
//   Q6_K        super-block j / 8 (210 bytes), its 32 elements j % 8 (two 8-bit scales)
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "inference/engine/backend/plugin_abi.h"

#if defined(__CUDACC__)
#define TS_HD __host__ __device__ __forceinline__
#else
#define TS_HD inline
#endif

namespace ts::cuda {

TS_HD uint16_t loadU16(const uint8_t* p) {  // little-endian, any alignment
  return static_cast<uint16_t>(p[0] | (p[1] << 8));
}

TS_HD float bitsToFloat(uint32_t bits) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(bits);
#else
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
#endif
}

// IEEE half to float, exactly (subnormals, infinities and NaN included).
TS_HD float halfBitsToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1Fu, mantissa = h & 0x3FFu;
  if (exponent == 0) {  // zero or subnormal: mantissa x 2^-24
    const float v = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    return sign ? -v : v;
  }
  if (exponent == 31) return bitsToFloat(sign | 0x7F800000u | (mantissa << 13));
  return bitsToFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

TS_HD float bf16BitsToFloat(uint16_t h) {
  return bitsToFloat(static_cast<uint32_t>(h) << 16);
}

// Elements per block and bytes per block of a stored format (0 for the engine's own).
TS_HD int storedBlockElems(int format) {
  switch (format) {
    case TS_CUDA_W_GGUF_Q4_K:
    case TS_CUDA_W_GGUF_Q5_K:
    case TS_CUDA_W_GGUF_Q6_K:
      return 256;
    case TS_CUDA_W_GGUF_Q4_0:
    case TS_CUDA_W_GGUF_Q8_0:
      return 32;
    case TS_CUDA_W_F16:  // also the engine's own f16: the same bytes
    case TS_CUDA_W_BF16:
      return 1;
  }
  return 0;
}
TS_HD int storedBlockBytes(int format) {
  switch (format) {
    case TS_CUDA_W_GGUF_Q4_0:
      return 18;
    case TS_CUDA_W_GGUF_Q8_0:
      return 34;
    case TS_CUDA_W_GGUF_Q4_K:
      return 144;
    case TS_CUDA_W_GGUF_Q5_K:
      return 176;
    case TS_CUDA_W_GGUF_Q6_K:
      return 210;
    case TS_CUDA_W_F16:
    case TS_CUDA_W_BF16:
      return 2;
  }
  return 0;
}
TS_HD bool isStoredFormat(int format) {
  return storedBlockElems(format) > 0;
}
// Bytes of one stored row (cols a whole number of blocks).
TS_HD size_t storedRowBytes(int format, int cols) {
  const int elems = storedBlockElems(format);
  return elems ? static_cast<size_t>(cols / elems) * storedBlockBytes(format) : 0;
}

// Q4_K / Q5_K: sub-block j's 6-bit scale and min from the 12 packed bytes (entries 0..3 in
// the low 6 bits of bytes 0..3 and 4..7; entries 4..7 take 4 low bits from bytes 8..11 and
// their top 2 bits from the spare high bits of bytes 0..7).
TS_HD void kScaleMin(int j, const uint8_t* q, int& scale, int& min) {
  if (j < 4) {
    scale = q[j] & 63;
    min = q[j + 4] & 63;
  } else {
    scale = (q[j + 4] & 0x0F) | ((q[j - 4] >> 6) << 4);
    min = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
  }
}

// Elements 32j .. 32j + 31 of a row stored in `format` (F16 = TS_CUDA_W_F16 rows too).
TS_HD void decodeSubBlock(int format, const uint8_t* row, int j, float* out) {
  switch (format) {
    case TS_CUDA_W_F16:
    case TS_CUDA_W_BF16: {
      const uint8_t* p = row + static_cast<size_t>(j) * 64;
      for (int i = 0; i < 32; ++i) {
        const uint16_t h = loadU16(p + 2 * i);
        out[i] = format == TS_CUDA_W_F16 ? halfBitsToFloat(h) : bf16BitsToFloat(h);
      }
      return;
    }
    case TS_CUDA_W_GGUF_Q8_0: {
      const uint8_t* b = row + static_cast<size_t>(j) * 34;
      const float d = halfBitsToFloat(loadU16(b));
      for (int i = 0; i < 32; ++i) out[i] = d * static_cast<float>(static_cast<int8_t>(b[2 + i]));
      return;
    }
    case TS_CUDA_W_GGUF_Q4_0: {
      const uint8_t* b = row + static_cast<size_t>(j) * 18;
      const float d = halfBitsToFloat(loadU16(b));
      for (int i = 0; i < 16; ++i) {
        out[i] = d * static_cast<float>((b[2 + i] & 0x0F) - 8);
        out[i + 16] = d * static_cast<float>((b[2 + i] >> 4) - 8);
      }
      return;
    }
    case TS_CUDA_W_GGUF_Q4_K:
    case TS_CUDA_W_GGUF_Q5_K: {
      const bool fifth = format == TS_CUDA_W_GGUF_Q5_K;
      const uint8_t* b = row + static_cast<size_t>(j / 8) * (fifth ? 176 : 144);
      const int sub = j % 8, chunk = sub / 2, half = sub % 2;
      const float d = halfBitsToFloat(loadU16(b)), dmin = halfBitsToFloat(loadU16(b + 2));
      int sc = 0, m = 0;
      kScaleMin(sub, b + 4, sc, m);
      const float scale = d * static_cast<float>(sc), offset = dmin * static_cast<float>(m);
      const uint8_t* qh = b + 16;  // Q5_K only
      const uint8_t* qs = b + (fifth ? 48 : 16) + chunk * 32;
      for (int l = 0; l < 32; ++l) {
        int value = half ? qs[l] >> 4 : qs[l] & 15;
        if (fifth) value |= ((qh[l] >> sub) & 1) << 4;
        out[l] = scale * static_cast<float>(value) - offset;
      }
      return;
    }
    case TS_CUDA_W_GGUF_Q6_K: {
      const uint8_t* b = row + static_cast<size_t>(j / 8) * 210;
      const int sub = j % 8, half = sub / 4, quarter = sub % 4;
      const uint8_t* ql = b + half * 64 + (quarter % 2) * 32;
      const uint8_t* qh = b + 128 + half * 32;
      const int8_t* sc = reinterpret_cast<const int8_t*>(b + 192) + half * 8 + 2 * quarter;
      const float d = halfBitsToFloat(loadU16(b + 208));
      for (int l = 0; l < 32; ++l) {
        const int low4 = quarter < 2 ? ql[l] & 0x0F : ql[l] >> 4;
        const int high2 = (qh[l] >> (2 * quarter)) & 3;
        out[l] =
            d * static_cast<float>(sc[l / 16]) * static_cast<float>((low4 | (high2 << 4)) - 32);
      }
      return;
    }
  }
}

}  // namespace ts::cuda
