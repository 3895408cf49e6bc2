// The runtime formats' panels: int8 (one scale per row), q8_0 (one per block of 32) and int4
// (one per group of 32, 64 or 128 inputs) rows, quantized at load, repacked into slabs of
// sixteen rows for GgufKernels::panels_int8 / panels_int4, which decode reads too (one
// kernel for every number of positions: decode and a speculative verification agree to the
// bit). The padded row (kernels.h) is cut into groups of per_group blocks (int8: the whole
// row; q8_0: one block; int4: group / 32 blocks, the last group shorter when the padded row
// is not a whole number of groups). Slab s (rows 16s .. 16s + 15) holds those rows' bytes
// (values and scales: the same count as the arrays held), for each group:
//   [the sixteen rows' f32 scales, row order]
//   [for each of its blocks, for each word k: row 0's bytes 4k .. 4k + 3, ..., row 15's]
// int8 / q8_0: eight words, each byte the value + 128 (vpdpbusd's unsigned side); int4:
// four words, byte j holding element j's nibble low and element j + 16's high (Q4_0's
// order), where the arrays pair two blocks per 32 bytes.
#include <cstring>

#include "inference/engine/cpu/kernels/gguf_kernels.h"
#include "inference/engine/model/quant_matrix.h"

namespace ts::engine {

namespace {

struct RuntimeShape {
  int blocks;          // per padded row
  int per_group;       // blocks per scale
  int groups;          // scales per row
  size_t block_bytes;  // one row's bytes of one block (32 or 16)
  size_t words_bytes;  // one block of sixteen rows: 16 x block_bytes
  size_t group_bytes;  // a whole group of sixteen rows: 64 + per_group x words_bytes
  size_t row_bytes;    // a row's share of a slab
};

RuntimeShape runtimeShape(WeightFormat format, int padded_cols, int group) {
  RuntimeShape s;
  s.blocks = padded_cols / kQuantBlock;
  s.per_group = format == WeightFormat::Int8   ? s.blocks
                : format == WeightFormat::Q8_0 ? 1
                                               : group / kQuantBlock;
  s.groups = (s.blocks + s.per_group - 1) / s.per_group;
  s.block_bytes = format == WeightFormat::Int4 ? kQuantBlock / 2 : kQuantBlock;
  s.words_bytes = 16 * s.block_bytes;
  s.group_bytes = 64 + s.per_group * s.words_bytes;
  s.row_bytes = s.blocks * s.block_bytes + 4 * static_cast<size_t>(s.groups);
  return s;
}

// Where block b's words of a slab start, and where its group's scales do.
size_t wordsAt(const RuntimeShape& s, int b) {
  return (b / s.per_group) * s.group_bytes + 64 + (b % s.per_group) * s.words_bytes;
}
size_t scalesAt(const RuntimeShape& s, int b) {
  return (b / s.per_group) * s.group_bytes;
}

}  // namespace

bool QuantMatrix::runtimePanelsFit() const {
  const GgufKernels& g = activeGgufKernels();
  return (format_ == WeightFormat::Int8 || format_ == WeightFormat::Q8_0 ||
          format_ == WeightFormat::Int4) &&
         !panelled_ && rows_ % kPanelRows == 0 && g.panels_int8 && g.panels_int4;
}

QuantMatrix QuantMatrix::runtimeInPanels() const {
  const RuntimeShape s = runtimeShape(format_, static_cast<int>(paddedCols()), group_);
  auto panels = std::make_shared<WeightBuffer<uint8_t>>(static_cast<size_t>(rows_) * s.row_bytes);
  const bool q4 = format_ == WeightFormat::Int4;
  const size_t padded = paddedCols();
  for (int r = 0; r < rows_; ++r) {
    uint8_t* slab = panels->data() + static_cast<size_t>(r / kPanelRows) * kPanelRows * s.row_bytes;
    const int lane = r % kPanelRows;
    for (int g = 0; g < s.groups; ++g) {
      const float scale = format_ == WeightFormat::Int8 ? scales_[r] : scales_[r * s.groups + g];
      std::memcpy(slab + g * s.group_bytes + 4 * lane, &scale, 4);
    }
    for (int b = 0; b < s.blocks; ++b) {
      uint8_t bytes[kQuantBlock];  // the row's block in the panel's order
      if (q4) {
        const uint8_t* pair = q4_.data() + r * padded / 2 + b / 2 * kQuantBlock;
        const auto nibble = [&](int e) { return b % 2 ? pair[e] >> 4 : pair[e] & 15; };
        for (int j = 0; j < 16; ++j)
          bytes[j] = static_cast<uint8_t>(nibble(j) | nibble(j + 16) << 4);
      } else {
        const int8_t* values = q8_.data() + r * padded + b * kQuantBlock;
        for (int j = 0; j < kQuantBlock; ++j) bytes[j] = static_cast<uint8_t>(values[j] ^ 0x80);
      }
      uint8_t* words = slab + wordsAt(s, b);
      for (size_t k = 0; k < s.block_bytes / 4; ++k)
        std::memcpy(words + 64 * k + 4 * lane, bytes + 4 * k, 4);
    }
  }
  QuantMatrix m = shaped(format_, rows_, cols_, group_);
  m.row_scales_ = row_scales_;
  m.stored_ = panels->data();
  m.owner_ = std::move(panels);
  m.panelled_ = true;
  return m;
}

QuantMatrix QuantMatrix::withoutPanels() const {
  if (!panelled_ || format_ == WeightFormat::Stored) return *this;
  const RuntimeShape s = runtimeShape(format_, static_cast<int>(paddedCols()), group_);
  QuantMatrix m = shaped(format_, rows_, cols_, group_);
  m.row_scales_ = row_scales_;
  const bool q4 = format_ == WeightFormat::Int4;
  const size_t padded = paddedCols();
  m.scales_.assign(static_cast<size_t>(rows_) * s.groups, 0.f);
  if (q4)
    m.q4_.assign(rows_ * padded / 2, 0);
  else
    m.q8_.assign(rows_ * padded, 0);
  for (int r = 0; r < rows_; ++r) {
    const uint8_t* slab = stored_ + static_cast<size_t>(r / kPanelRows) * kPanelRows * s.row_bytes;
    const int lane = r % kPanelRows;
    for (int g = 0; g < s.groups; ++g)
      std::memcpy(&m.scales_[r * s.groups + g], slab + g * s.group_bytes + 4 * lane, 4);
    for (int b = 0; b < s.blocks; ++b) {
      uint8_t bytes[kQuantBlock];
      const uint8_t* words = slab + wordsAt(s, b);
      for (size_t k = 0; k < s.block_bytes / 4; ++k)
        std::memcpy(bytes + 4 * k, words + 64 * k + 4 * lane, 4);
      if (q4) {
        uint8_t* pair = m.q4_.data() + r * padded / 2 + b / 2 * kQuantBlock;
        const int shift = b % 2 ? 4 : 0;
        for (int j = 0; j < 16; ++j) {
          pair[j] |= static_cast<uint8_t>((bytes[j] & 15) << shift);
          pair[j + 16] |= static_cast<uint8_t>((bytes[j] >> 4) << shift);
        }
      } else {
        int8_t* values = m.q8_.data() + r * padded + b * kQuantBlock;
        for (int j = 0; j < kQuantBlock; ++j) values[j] = static_cast<int8_t>(bytes[j] ^ 0x80);
      }
    }
  }
  return m;
}

float QuantMatrix::runtimePanelAt(int r, int c) const {
  const RuntimeShape s = runtimeShape(format_, static_cast<int>(paddedCols()), group_);
  const uint8_t* slab = stored_ + static_cast<size_t>(r / kPanelRows) * kPanelRows * s.row_bytes;
  const int lane = r % kPanelRows, b = c / kQuantBlock, e = c % kQuantBlock;
  float scale;
  std::memcpy(&scale, slab + scalesAt(s, b) + 4 * lane, 4);
  const int j = format_ == WeightFormat::Int4 ? e % 16 : e;  // the byte holding element e
  const uint8_t byte = slab[wordsAt(s, b) + 64 * (j / 4) + 4 * lane + j % 4];
  if (format_ != WeightFormat::Int4) return scale * static_cast<float>(byte - 128);
  return scale * static_cast<float>((e < 16 ? byte & 15 : byte >> 4) - 8);
}

size_t QuantMatrix::runtimePanelBytes() const {
  return static_cast<size_t>(rows_) *
         runtimeShape(format_, static_cast<int>(paddedCols()), group_).row_bytes;
}

void QuantMatrix::multiplyRuntimePanels(float* out, int out_stride, const Activations& x, int begin,
                                        int end) const {
  const GgufKernels& g = activeGgufKernels();
  const RuntimeShape s = runtimeShape(format_, static_cast<int>(paddedCols()), group_);
  const auto kernel = format_ == WeightFormat::Int4 ? g.panels_int4 : g.panels_int8;
  const Activations* tiled = &x;
  if (!x.tiled) {  // a caller that quantized without tiling (activationsFor tiles): a copy
    thread_local Activations copy;
    copy = x;
    copy.tileForPasses();
    tiled = &copy;
  }
  kernel(stored_ + static_cast<size_t>(begin) * s.row_bytes, s.row_bytes, end - begin, *tiled,
         s.blocks, s.per_group, out + begin, out_stride);
}

}  // namespace ts::engine
