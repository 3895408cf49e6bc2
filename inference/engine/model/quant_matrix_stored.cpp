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
    dequantize(stored_type_, {stored_ + static_cast<size_t>(row) * bytes, bytes}, out, cols_);
  } else if (format_ == WeightFormat::F32) {
    std::memcpy(out, f32_.data() + static_cast<size_t>(row) * cols_, sizeof(float) * cols_);
  } else {
    for (int c = 0; c < cols_; ++c) out[c] = at(row, c);
  }
}

float QuantMatrix::dotStored(int r, const Activations& x, int t) const {
  const uint8_t* row = stored_ + static_cast<size_t>(r) * rowBytes(stored_type_, cols_);
  const GgufKernels& g = activeGgufKernels();
  switch (stored_type_) {
    case TensorType::F32:
      return activeKernels().dot_f32(reinterpret_cast<const float*>(row), x.f32Row(t), cols_);
    case TensorType::F16:
      return activeKernels().dot_f16(reinterpret_cast<const uint16_t*>(row), x.halfRow(t), cols_);
    case TensorType::BF16:
      return g.dot_bf16(reinterpret_cast<const uint16_t*>(row), x.f32Row(t), cols_);
    case TensorType::Q4_0:
      return g.dot_q4_0(row, x.qRow(t), x.scale16Row(t), x.offset16Row(t), cols_ / 32);
    case TensorType::Q8_0:
      return g.dot_q8_0(row, x.qRow(t), x.scale16Row(t), x.offset16Row(t), cols_ / 32);
    case TensorType::Q4_K:
      return g.dot_q4_k(row, x.qkRow(t), x.kscaleRow(t), x.bsumsRow(t), cols_ / 256);
    case TensorType::Q5_K:
      return g.dot_q5_k(row, x.qkRow(t), x.kscaleRow(t), x.bsumsRow(t), cols_ / 256);
    case TensorType::Q6_K:
      return g.dot_q6_k(row, x.qkRow(t), x.kscaleRow(t), x.bsumsRow(t), cols_ / 256);
    default:
      return 0.f;  // never: loaders only make stored matrices of storedTypeMultiplies types
  }
}

}  // namespace ts::engine
