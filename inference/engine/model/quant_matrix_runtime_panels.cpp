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
#include <vector>

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

// Row r's group scales (s.groups) and its blocks in the panel's byte order (s.blocks x
// s.block_bytes) into its slab of `panels`, or (to_panel false) back: one walk both ways,
// so packing and unpacking cannot disagree.
void moveRow(const RuntimeShape& s, uint8_t* panels, int r, float* scales, uint8_t* blocks,
             bool to_panel) {
  const auto move = [&](uint8_t* panel, void* row, size_t n) {
    to_panel ? std::memcpy(panel, row, n) : std::memcpy(row, panel, n);
  };
  constexpr int kRows = QuantMatrix::kPanelRows;
  uint8_t* slab = panels + static_cast<size_t>(r / kRows) * kRows * s.row_bytes;
  const int lane = r % kRows;
  for (int g = 0; g < s.groups; ++g) move(slab + g * s.group_bytes + 4 * lane, scales + g, 4);
  for (int b = 0; b < s.blocks; ++b)
    for (size_t k = 0; k < s.block_bytes / 4; ++k)
      move(slab + wordsAt(s, b) + 64 * k + 4 * lane, blocks + b * s.block_bytes + 4 * k, 4);
}

// Block b of a row as the arrays hold it (`row`: the row's int8 values, or its int4 bytes,
// blocks 2p and 2p + 1 in the low and high nibbles of 32 bytes) <-> its bytes in the panel's
// order (int8 / q8_0: the values + 128; int4: byte j holding nibbles j and j + 16): into
// `order`, or (to_order false) back into the row (int4 bytes zeroed beforehand: nibbles are
// ORed in).
void blockOrder(bool q4, uint8_t* row, int b, uint8_t* order, bool to_order) {
  if (q4) {
    uint8_t* pair = row + b / 2 * kQuantBlock;
    const int shift = b % 2 ? 4 : 0;
    for (int j = 0; j < 16; ++j) {
      if (to_order) {
        order[j] =
            static_cast<uint8_t>((pair[j] >> shift & 15) | (pair[j + 16] >> shift & 15) << 4);
      } else {
        pair[j] |= static_cast<uint8_t>((order[j] & 15) << shift);
        pair[j + 16] |= static_cast<uint8_t>((order[j] >> 4) << shift);
      }
    }
    return;
  }
  uint8_t* values = row + b * kQuantBlock;
  for (int j = 0; j < kQuantBlock; ++j)  // + 128 on bytes: a flip of bit 7, its own inverse
    (to_order ? order[j] : values[j]) = (to_order ? values[j] : order[j]) ^ 0x80;
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
  std::vector<uint8_t> blocks(s.blocks * s.block_bytes);
  for (int r = 0; r < rows_; ++r) {  // the arrays only read (const_cast: one walk both ways)
    auto* row =
        const_cast<uint8_t*>(q4 ? q4_.data() + r * paddedCols() / 2
                                : reinterpret_cast<const uint8_t*>(q8_.data()) + r * paddedCols());
    for (int b = 0; b < s.blocks; ++b)
      blockOrder(q4, row, b, blocks.data() + b * s.block_bytes, true);
    moveRow(s, panels->data(), r,
            const_cast<float*>(scales_.data()) + static_cast<size_t>(r) * s.groups, blocks.data(),
            true);
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
  m.scales_.assign(static_cast<size_t>(rows_) * s.groups, 0.f);
  if (q4)
    m.q4_.assign(rows_ * paddedCols() / 2, 0);
  else
    m.q8_.assign(rows_ * paddedCols(), 0);
  std::vector<uint8_t> blocks(s.blocks * s.block_bytes);
  for (int r = 0; r < rows_; ++r) {  // the panels only read
    moveRow(s, const_cast<uint8_t*>(stored_), r,
            m.scales_.data() + static_cast<size_t>(r) * s.groups, blocks.data(), false);
    uint8_t* row = q4 ? m.q4_.data() + r * paddedCols() / 2
                      : reinterpret_cast<uint8_t*>(m.q8_.data()) + r * paddedCols();
    for (int b = 0; b < s.blocks; ++b)
      blockOrder(q4, row, b, blocks.data() + b * s.block_bytes, false);
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
