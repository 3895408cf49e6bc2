// A weight matrix in one runtime format: f32 (the reference), f16, int8 per output channel
// (one scale per row) or int4 group-wise (one scale per `group` inputs of a row; the last
// group of a row may be shorter). Quantized once at load; matvec dequantizes on the fly.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "inference/engine/result.h"

namespace ts::engine {

enum class WeightFormat { F32, F16, Int8, Int4 };
Result<WeightFormat> parseWeightFormat(const std::string& name);  // "f32" | "f16" | "int8" | "int4"
std::string weightFormatName(WeightFormat format);

class QuantMatrix {
 public:
  QuantMatrix() = default;
  // w: [rows, cols] row-major f32, consumed.
  static QuantMatrix fromF32(std::vector<float> w, int rows, int cols);
  // A copy of this matrix in `format` (group: inputs per int4 scale: 32, 64 or 128).
  QuantMatrix converted(WeightFormat format, int group = 128) const;

  // out[rows] = W · x[cols]
  void matvec(float* out, const float* x) const { matvecRows(out, x, 0, rows_); }
  // Only rows [begin, end): out[r] for those rows (threads split a product this way).
  void matvecRows(float* out, const float* x, int begin, int end) const;
  // The f32 value of W[row, col] (for tests and conversions).
  float at(int row, int col) const;

  WeightFormat format() const { return format_; }
  int rows() const { return rows_; }
  int cols() const { return cols_; }
  size_t bytes() const;  // storage, scales included
  const float* f32Data() const { return f32_.data(); }

 private:
  WeightFormat format_ = WeightFormat::F32;
  int rows_ = 0, cols_ = 0, group_ = 128;
  std::vector<float> f32_;
  std::vector<uint16_t> f16_;
  std::vector<int8_t> q8_;     // [rows, cols]
  std::vector<uint8_t> q4_;    // [rows, ceil(cols/2)]: element 2i in the low nibble, 2i+1 high
  std::vector<float> scales_;  // int8: [rows]; int4: [rows, ceil(cols/group)]
};

}  // namespace ts::engine
