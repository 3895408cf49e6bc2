// GGUF Q8_0 / Q4_0 tensors taken into the runtime formats as they are (no second rounding):
// Q8_0 blocks become q8_0 rows, Q4_0 blocks int4 rows with one scale per 32 inputs.
#include <cstring>

#include "inference/engine/core/tensor_types.h"
#include "inference/engine/model/quant_matrix.h"

namespace ts::engine {

QuantMatrix QuantMatrix::fromQ8_0Blocks(std::span<const uint8_t> blocks, int rows, int cols) {
  QuantMatrix m = shaped(WeightFormat::Q8_0, rows, cols, kQuantBlock);
  const size_t padded = m.paddedCols(), per_row = cols / kQuantBlock;
  m.q8_.assign(rows * padded, 0);
  m.scales_.assign(rows * padded / kQuantBlock, 0.f);
  for (int r = 0; r < rows; ++r)
    for (size_t b = 0; b < per_row; ++b) {
      BlockQ8_0 block;
      std::memcpy(&block, blocks.data() + (r * per_row + b) * sizeof block, sizeof block);
      m.scales_[r * padded / kQuantBlock + b] = f16ToF32(block.d);
      std::memcpy(m.q8_.data() + r * padded + b * kQuantBlock, block.qs, kQuantBlock);
    }
  return m;
}

QuantMatrix QuantMatrix::fromQ4_0Blocks(std::span<const uint8_t> blocks, int rows, int cols) {
  QuantMatrix m = shaped(WeightFormat::Int4, rows, cols, kQuantBlock);
  const size_t padded = m.paddedCols(), per_row = cols / kQuantBlock;
  m.q4_.assign(rows * padded / 2, 0x88);  // padding: value 0
  const size_t groups = m.scaleGroups();  // padded: a last group of zeros may follow
  m.scales_.assign(rows * groups, 0.f);
  for (int r = 0; r < rows; ++r)
    for (size_t b = 0; b < per_row; ++b) {
      BlockQ4_0 block;
      std::memcpy(&block, blocks.data() + (r * per_row + b) * sizeof block, sizeof block);
      m.scales_[r * groups + b] = f16ToF32(block.d);
      // Q4_0: byte j = element j (low nibble), element j + 16 (high). Ours: pairs of blocks
      // share 32 bytes, block 2p in the low nibbles, 2p + 1 in the high (kernels.h).
      uint8_t* pair = m.q4_.data() + r * padded / 2 + b / 2 * kQuantBlock;
      const int shift = b % 2 ? 4 : 0;
      const uint8_t keep = b % 2 ? 0x0F : 0xF0;
      for (int j = 0; j < 16; ++j) {
        pair[j] = static_cast<uint8_t>((pair[j] & keep) | (block.qs[j] & 15) << shift);
        pair[j + 16] = static_cast<uint8_t>((pair[j + 16] & keep) | (block.qs[j] >> 4) << shift);
      }
    }
  return m;
}

}  // namespace ts::engine
