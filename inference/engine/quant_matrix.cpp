#include "inference/engine/quant_matrix.h"

#include <algorithm>
#include <cmath>

#include "inference/engine/tensor_types.h"

namespace ts::engine {

Result<WeightFormat> parseWeightFormat(const std::string& name) {
  if (name == "f32") return WeightFormat::F32;
  if (name == "f16") return WeightFormat::F16;
  if (name == "int8") return WeightFormat::Int8;
  if (name == "int4") return WeightFormat::Int4;
  return fail("unknown weight format: expected f32, f16, int8 or int4, found '" + name + "'");
}

std::string weightFormatName(WeightFormat format) {
  switch (format) {
    case WeightFormat::F32:
      return "f32";
    case WeightFormat::F16:
      return "f16";
    case WeightFormat::Int8:
      return "int8";
    case WeightFormat::Int4:
      return "int4";
  }
  return "f32";
}

QuantMatrix QuantMatrix::fromF32(std::vector<float> w, int rows, int cols) {
  QuantMatrix m;
  m.rows_ = rows;
  m.cols_ = cols;
  m.f32_ = std::move(w);
  return m;
}

float QuantMatrix::at(int r, int c) const {
  const size_t i = static_cast<size_t>(r) * cols_ + c;
  switch (format_) {
    case WeightFormat::F32:
      return f32_[i];
    case WeightFormat::F16:
      return f16ToF32(f16_[i]);
    case WeightFormat::Int8:
      return scales_[r] * q8_[i];
    case WeightFormat::Int4: {
      const size_t row_bytes = (cols_ + 1) / 2;
      const uint8_t b = q4_[r * row_bytes + c / 2];
      const int q = (c % 2 ? b >> 4 : b & 15) - 8;
      const size_t groups = (cols_ + group_ - 1) / group_;
      return scales_[r * groups + c / group_] * q;
    }
  }
  return 0.f;
}

QuantMatrix QuantMatrix::converted(WeightFormat format, int group) const {
  QuantMatrix m;
  m.format_ = format;
  m.rows_ = rows_;
  m.cols_ = cols_;
  m.group_ = group;
  const size_t n = static_cast<size_t>(rows_) * cols_;
  // The usual source is f32 (the loaders' output): copy it instead of decoding per element.
  std::vector<float> src;
  if (format_ == WeightFormat::F32) {
    src = f32_;
  } else {
    src.resize(n);
    for (int r = 0; r < rows_; ++r)
      for (int c = 0; c < cols_; ++c) src[static_cast<size_t>(r) * cols_ + c] = at(r, c);
  }
  switch (format) {
    case WeightFormat::F32:
      m.f32_ = std::move(src);
      break;
    case WeightFormat::F16:
      m.f16_.resize(n);
      for (size_t i = 0; i < n; ++i) m.f16_[i] = f32ToF16(src[i]);
      break;
    case WeightFormat::Int8:
      m.q8_.resize(n);
      m.scales_.resize(rows_);
      for (int r = 0; r < rows_; ++r) {
        const float* row = src.data() + static_cast<size_t>(r) * cols_;
        float amax = 0.f;
        for (int c = 0; c < cols_; ++c) amax = std::max(amax, std::abs(row[c]));
        const float scale = amax > 0 ? amax / 127.f : 1.f;
        m.scales_[r] = scale;
        for (int c = 0; c < cols_; ++c)
          m.q8_[static_cast<size_t>(r) * cols_ + c] =
              static_cast<int8_t>(std::clamp(std::lround(row[c] / scale), -127L, 127L));
      }
      break;
    case WeightFormat::Int4: {
      const size_t row_bytes = (cols_ + 1) / 2, groups = (cols_ + group - 1) / group;
      m.q4_.assign(rows_ * row_bytes, 0x88);
      m.scales_.resize(rows_ * groups);
      for (int r = 0; r < rows_; ++r) {
        const float* row = src.data() + static_cast<size_t>(r) * cols_;
        for (size_t g = 0; g < groups; ++g) {
          const int begin = static_cast<int>(g) * group, end = std::min(cols_, begin + group);
          float amax = 0.f;
          for (int c = begin; c < end; ++c) amax = std::max(amax, std::abs(row[c]));
          const float scale = amax > 0 ? amax / 7.f : 1.f;
          m.scales_[r * groups + g] = scale;
          for (int c = begin; c < end; ++c) {
            const int q = static_cast<int>(std::clamp(std::lround(row[c] / scale), -8L, 7L)) + 8;
            uint8_t& b = m.q4_[r * row_bytes + c / 2];
            b = c % 2 ? static_cast<uint8_t>((b & 0x0F) | (q << 4))
                      : static_cast<uint8_t>((b & 0xF0) | q);
          }
        }
      }
      break;
    }
  }
  return m;
}

void QuantMatrix::matvecRows(float* out, const float* x, int begin, int end) const {
  const size_t cols = cols_;
  switch (format_) {
    case WeightFormat::F32:
      for (int r = begin; r < end; ++r) {
        const float* w = f32_.data() + r * cols;
        float sum = 0.f;
        for (size_t c = 0; c < cols; ++c) sum += w[c] * x[c];
        out[r] = sum;
      }
      return;
    case WeightFormat::F16:
      for (int r = begin; r < end; ++r) {
        const uint16_t* w = f16_.data() + r * cols;
        float sum = 0.f;
        for (size_t c = 0; c < cols; ++c) sum += f16ToF32(w[c]) * x[c];
        out[r] = sum;
      }
      return;
    case WeightFormat::Int8:
      for (int r = begin; r < end; ++r) {
        const int8_t* w = q8_.data() + r * cols;
        float sum = 0.f;
        for (size_t c = 0; c < cols; ++c) sum += static_cast<float>(w[c]) * x[c];
        out[r] = sum * scales_[r];  // dequantize once per row
      }
      return;
    case WeightFormat::Int4: {
      const size_t row_bytes = (cols + 1) / 2, groups = (cols + group_ - 1) / group_;
      for (int r = begin; r < end; ++r) {
        const uint8_t* w = q4_.data() + r * row_bytes;
        float total = 0.f;
        for (size_t g = 0; g < groups; ++g) {
          const size_t begin = g * group_, end = std::min(cols, begin + group_);
          float sum = 0.f;
          for (size_t c = begin; c < end; ++c) {
            const uint8_t b = w[c / 2];
            sum += static_cast<float>((c % 2 ? b >> 4 : b & 15) - 8) * x[c];
          }
          total += sum * scales_[r * groups + g];  // dequantize once per group
        }
        out[r] = total;
      }
      return;
    }
  }
}

size_t QuantMatrix::bytes() const {
  return f32_.size() * 4 + f16_.size() * 2 + q8_.size() + q4_.size() + scales_.size() * 4;
}

}  // namespace ts::engine
