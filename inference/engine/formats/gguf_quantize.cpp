#include "inference/engine/formats/gguf_quantize.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ts::engine {
namespace {

template <class Block>
void put(std::vector<uint8_t>& out, size_t index, const Block& b) {
  std::memcpy(out.data() + index * sizeof b, &b, sizeof b);
}

BlockQ8_0 q8_0(const float* x) {
  float amax = 0.f;
  for (int i = 0; i < 32; ++i) amax = std::max(amax, std::abs(x[i]));
  const float d = amax / 127.f, id = d != 0.f ? 1.f / d : 0.f;
  BlockQ8_0 b;
  b.d = f32ToF16(d);
  for (int i = 0; i < 32; ++i) b.qs[i] = static_cast<int8_t>(std::round(x[i] * id));
  return b;
}

BlockQ4_0 q4_0(const float* x) {
  float amax = 0.f, max = 0.f;  // the value of largest magnitude, with its sign
  for (int i = 0; i < 32; ++i)
    if (std::abs(x[i]) > amax) {
      amax = std::abs(x[i]);
      max = x[i];
    }
  const float d = max / -8.f, id = d != 0.f ? 1.f / d : 0.f;
  BlockQ4_0 b;
  b.d = f32ToF16(d);
  for (int j = 0; j < 16; ++j) {
    const auto q = [&](float v) {
      return static_cast<uint8_t>(std::min(15, static_cast<int>(v * id + 8.5f)));
    };
    b.qs[j] = static_cast<uint8_t>(q(x[j]) | q(x[j + 16]) << 4);
  }
  return b;
}

int nearest(float v, int lo, int hi) {
  return std::clamp(static_cast<int>(std::lround(v)), lo, hi);
}

// Each 32-value sub-block as scale * q - min with q in 0..15, min >= 0; scales and mins to
// 6 bits of the super-block's d and dmin.
BlockQ4K q4K(const float* x) {
  float scale[8], min[8], max_scale = 0.f, max_min = 0.f;
  for (int j = 0; j < 8; ++j) {
    const float* s = x + 32 * j;
    const float lo = std::min(0.f, *std::min_element(s, s + 32)), hi = *std::max_element(s, s + 32);
    scale[j] = (hi - lo) / 15.f;
    min[j] = -lo;
    max_scale = std::max(max_scale, scale[j]);
    max_min = std::max(max_min, min[j]);
  }
  BlockQ4K b{};
  const float d = max_scale / 63.f, dmin = max_min / 63.f;
  b.d = f32ToF16(d);
  b.dmin = f32ToF16(dmin);
  const float dh = f16ToF32(b.d), dminh = f16ToF32(b.dmin);
  int sc[8], m[8];
  for (int j = 0; j < 8; ++j) {
    sc[j] = dh > 0 ? nearest(scale[j] / dh, 0, 63) : 0;
    m[j] = dminh > 0 ? nearest(min[j] / dminh, 0, 63) : 0;
  }
  for (int j = 0; j < 4; ++j) {  // scaleMinK4's packing, inverted
    b.scales[j] = static_cast<uint8_t>(sc[j] | (sc[j + 4] >> 4) << 6);
    b.scales[j + 4] = static_cast<uint8_t>(m[j] | (m[j + 4] >> 4) << 6);
    b.scales[j + 8] = static_cast<uint8_t>((sc[j + 4] & 15) | (m[j + 4] & 15) << 4);
  }
  for (int j = 0; j < 8; ++j) {
    const float step = dh * sc[j], offset = dminh * m[j];
    for (int l = 0; l < 32; ++l) {
      const int q = step > 0 ? nearest((x[32 * j + l] + offset) / step, 0, 15) : 0;
      b.qs[32 * (j / 2) + l] |= static_cast<uint8_t>(j % 2 ? q << 4 : q);
    }
  }
  return b;
}

// Each 16-value group as d * scale * (q - 32), q in 0..63, scale an int8 of d.
BlockQ6K q6K(const float* x) {
  float scale[16], max_scale = 0.f;
  for (int g = 0; g < 16; ++g) {
    float amax = 0.f;
    for (int i = 0; i < 16; ++i) amax = std::max(amax, std::abs(x[16 * g + i]));
    scale[g] = amax / 31.f;
    max_scale = std::max(max_scale, scale[g]);
  }
  BlockQ6K b{};
  const float d = max_scale / 127.f;
  b.d = f32ToF16(d);
  const float dh = f16ToF32(b.d);
  for (int g = 0; g < 16; ++g)
    b.scales[g] = static_cast<int8_t>(dh > 0 ? nearest(scale[g] / dh, 0, 127) : 0);
  for (int e = 0; e < 256; ++e) {
    const int half = e / 128, quarter = e % 128 / 32, l = e % 32;
    const float step = dh * b.scales[8 * half + 2 * quarter + l / 16];
    const int q = (step > 0 ? nearest(x[e] / step, -32, 31) : 0) + 32;
    uint8_t& low = b.ql[64 * half + l + 32 * (quarter % 2)];
    low |= static_cast<uint8_t>(quarter < 2 ? q & 15 : (q & 15) << 4);
    b.qh[32 * half + l] |= static_cast<uint8_t>((q >> 4) << (2 * quarter));
  }
  return b;
}

}  // namespace

bool canQuantizeTo(TensorType type) {
  switch (type) {
    case TensorType::F32:
    case TensorType::F16:
    case TensorType::BF16:
    case TensorType::Q8_0:
    case TensorType::Q4_0:
    case TensorType::Q4_K:
    case TensorType::Q6_K:
      return true;
    default:
      return false;
  }
}

std::vector<uint8_t> quantizeRows(TensorType type, const float* x, size_t rows, size_t cols) {
  const size_t n = rows * cols, block = layoutOf(type).block_elems;
  std::vector<uint8_t> out(rows * rowBytes(type, cols));
  for (size_t b = 0; b < n / block; ++b) {
    const float* v = x + b * block;
    switch (type) {
      case TensorType::F32:
        std::memcpy(out.data() + 4 * b, v, 4);
        break;
      case TensorType::F16:
      case TensorType::BF16: {
        uint32_t bits;
        std::memcpy(&bits, v, 4);
        const uint16_t h = type == TensorType::F16
                               ? f32ToF16(*v)
                               : static_cast<uint16_t>((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16);
        std::memcpy(out.data() + 2 * b, &h, 2);
        break;
      }
      case TensorType::Q8_0:
        put(out, b, q8_0(v));
        break;
      case TensorType::Q4_0:
        put(out, b, q4_0(v));
        break;
      case TensorType::Q4_K:
        put(out, b, q4K(v));
        break;
      case TensorType::Q6_K:
        put(out, b, q6K(v));
        break;
      default:
        break;  // callers check canQuantizeTo
    }
  }
  return out;
}

QuantMatrix storedCopy(const QuantMatrix& m, TensorType type) {
  const QuantMatrix values = m.converted(WeightFormat::F32);  // row scales applied
  auto bytes = std::make_shared<std::vector<uint8_t>>(
      quantizeRows(type, values.f32Data(), m.rows(), m.cols()));
  return QuantMatrix::stored(type, bytes->data(), m.rows(), m.cols(), bytes);
}

}  // namespace ts::engine
