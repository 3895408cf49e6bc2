// Our own quantizers into GGUF's stored layouts (core/tensor_types.h): for test and
// benchmark files (convert --random --type) and for loading types that have no fused
// product (Q4_1, Q5_0, Q5_1, Q2_K, Q3_K become Q8_0). Q8_0 and Q4_0 follow the published
// reference rounding; Q4_K and Q6_K use a plain min/max fit per sub-block (valid files,
// not the best error a search over scales would reach).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "inference/engine/core/result.h"
#include "inference/engine/core/tensor_types.h"
#include "inference/engine/model/quant_matrix.h"

namespace ts::engine {

// Types quantizeRows writes: F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q6_K.
bool canQuantizeTo(TensorType type);
// x: [rows, cols] f32 (cols a whole number of the type's blocks) -> rows * rowBytes bytes.
std::vector<uint8_t> quantizeRows(TensorType type, const float* x, size_t rows, size_t cols);
// m as a stored matrix of `type` in a buffer it owns (its row scales applied).
QuantMatrix storedCopy(const QuantMatrix& m, TensorType type);

}  // namespace ts::engine
