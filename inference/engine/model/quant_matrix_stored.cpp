// Stored matrices: rows as the file holds them, multiplied by the GGUF kernels with the
// activations in the form each type needs (gguf_kernels.h).
#include <cstring>

#include "inference/engine/cpu/kernels/gguf_kernels.h"
#include "inference/engine/model/quant_matrix.h"

namespace ts::engine {

bool QuantMatrix::storedTypeMultiplies(TensorType type) {
  switch (type) {
    case TensorType::F32:
    case TensorType::F16:
    case TensorType::BF16:
    case TensorType::Q4_0:
    case TensorType::Q8_0:
    case TensorType::Q4_K:
    case TensorType::Q5_K:
    case TensorType::Q6_K:
      return true;
    default:
      return false;
  }
}

bool QuantMatrix::needsGroupedInput() const {
  return format_ == WeightFormat::Stored && stored_type_ == TensorType::Q4_0 && !panelled_ &&
         activeGgufKernels().dot_q4_0_grouped;
}

int QuantMatrix::tiledFrom() const {
  const GgufKernels& g = activeGgufKernels();
  if (panelled_)  // Q4_0 / Q8_0 and the runtime formats' panels read the tiles (the others:
                  // f32, Q8_K)
    return format_ != WeightFormat::Stored || (g.panels_q4_0 && (stored_type_ == TensorType::Q4_0 ||
                                                                 stored_type_ == TensorType::Q8_0))
               ? 1
               : kNeverTiled;
  const bool rows16 = format_ == WeightFormat::Stored &&
                      (stored_type_ == TensorType::Q4_0 || stored_type_ == TensorType::Q8_0) &&
                      g.gemm16_q4_0;
  return rows16 ? kTiledPositions : kNeverTiled;
}

QuantMatrix QuantMatrix::stored(TensorType type, const uint8_t* data, int rows, int cols,
                                std::shared_ptr<const void> owner) {
  QuantMatrix m = shaped(WeightFormat::Stored, rows, cols, 32);
  m.stored_type_ = type;
  m.stored_ = data;
  m.owner_ = std::move(owner);
  return m;
}

void QuantMatrix::rowF32(int row, float* out) const {
  if (format_ == WeightFormat::Stored) {
    const size_t bytes = rowBytes(stored_type_, cols_);
    if (panelled_) {
      std::vector<uint8_t> stored(bytes);
      storedRow(row, stored.data());
      dequantize(stored_type_, stored, out, cols_);
      return;
    }
    dequantize(stored_type_, {stored_ + static_cast<size_t>(row) * bytes, bytes}, out, cols_);
  } else if (format_ == WeightFormat::F32) {
    std::memcpy(out, f32_.data() + static_cast<size_t>(row) * cols_, sizeof(float) * cols_);
  } else {
    for (int c = 0; c < cols_; ++c) out[c] = at(row, c);
  }
}

int QuantMatrix::multiplyStoredTiles(float* out, int out_stride, const Activations& x, int begin,
                                     int end) const {
  const GgufKernels& g = activeGgufKernels();
  const auto gemm = stored_type_ == TensorType::Q4_0   ? g.gemm8_q4_0
                    : stored_type_ == TensorType::Q8_0 ? g.gemm8_q8_0
                                                       : nullptr;
  if (!gemm) return begin;
  const size_t row_bytes = rowBytes(stored_type_, cols_);
  const size_t x_stride = static_cast<size_t>(x.blocks) * 32;
  const auto gemm16 = stored_type_ == TensorType::Q4_0 ? g.gemm16_q4_0 : g.gemm16_q8_0;
  // the same results with fewer operations per product where the tiles were made
  // (needsTiledInput: enough positions to amortize unpacking sixteen rows)
  if (const int rows = (end - begin) / 16 * 16; gemm16 && x.tiled && rows > 0) {
    gemm16(stored_ + begin * row_bytes, row_bytes, rows, x, cols_ / 32, out + begin, out_stride);
    begin += rows;
  }
  for (; begin + 8 <= end; begin += 8)
    gemm(stored_ + begin * row_bytes, row_bytes, x.q.data(), x_stride, x.scale16.data(),
         x.offset16.data(), x.blocks, cols_ / 32, x.count, out + begin, out_stride);
  return begin;
}

float QuantMatrix::dotStored(int r, const Activations& x, int t) const {
  float out;
  dotStoredRows(x, t, r, r + 1, &out);
  return out;
}

// The kernel, the activation rows and the row size resolved once, then one call per row:
// decode runs through here for every row of every matrix.
void QuantMatrix::dotStoredRows(const Activations& x, int t, int begin, int end, float* out) const {
  const size_t row_bytes = rowBytes(stored_type_, cols_);
  const uint8_t* row = stored_ + static_cast<size_t>(begin) * row_bytes;
  const auto each = [&](auto dot) {
    for (int r = begin; r < end; ++r, row += row_bytes) out[r - begin] = dot(row);
  };
  const GgufKernels& g = activeGgufKernels();
  const int n = cols_, blocks = cols_ / 32, superblocks = cols_ / 256;
  switch (stored_type_) {
    case TensorType::F32: {
      const auto dot = activeKernels().dot_f32;
      const float* in = x.f32Row(t);
      return each([&](const uint8_t* w) { return dot(reinterpret_cast<const float*>(w), in, n); });
    }
    case TensorType::F16: {
      const auto dot = activeKernels().dot_f16_f16;
      const uint16_t* in = x.halfBitsRow(t);
      return each(
          [&](const uint8_t* w) { return dot(reinterpret_cast<const uint16_t*>(w), in, n); });
    }
    case TensorType::BF16: {
      const float* in = x.f32Row(t);
      return each([&](const uint8_t* w) {
        return g.dot_bf16(reinterpret_cast<const uint16_t*>(w), in, n);
      });
    }
    case TensorType::Q4_0:
    case TensorType::Q8_0: {
      const bool grouped = stored_type_ == TensorType::Q4_0 && g.dot_q4_0_grouped &&
                           x.grouped;  // the same results, faster
      const auto dot = grouped                            ? g.dot_q4_0_grouped
                       : stored_type_ == TensorType::Q4_0 ? g.dot_q4_0
                                                          : g.dot_q8_0;
      const int8_t* q = grouped ? x.qGroupedRow(t) : x.qRow(t);
      const float *scale = x.scale16Row(t), *offset = x.offset16Row(t);
      return each([&](const uint8_t* w) { return dot(w, q, scale, offset, blocks); });
    }
    case TensorType::Q4_K:
    case TensorType::Q5_K:
    case TensorType::Q6_K: {
      const auto dot = stored_type_ == TensorType::Q4_K   ? g.dot_q4_k
                       : stored_type_ == TensorType::Q5_K ? g.dot_q5_k
                                                          : g.dot_q6_k;
      const int8_t* q = x.qkRow(t);
      const float* scale = x.kscaleRow(t);
      const int16_t* bsums = x.bsumsRow(t);
      return each([&](const uint8_t* w) { return dot(w, q, scale, bsums, superblocks); });
    }
    default:  // never: loaders only make stored matrices of storedTypeMultiplies types
      return each([](const uint8_t*) { return 0.f; });
  }
}

}  // namespace ts::engine
