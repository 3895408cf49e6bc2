// Stored Q4_0 / Q8_0 rows repacked into panels of sixteen (QuantMatrix::inPanels), so that
// the 16-row kernels (GgufKernels::panels_q4_0) load a block of sixteen rows as it lies
// instead of gathering it from sixteen rows on every pass. Slab s (rows 16s .. 16s + 15)
// occupies the same bytes as those rows did; within it, block b (16 x the block size):
//   [16 f16 scales, row order][for k: row 0's bytes 4k .. 4k + 3, row 1's, ..., row 15's]
// k < 4 for Q4_0 (each byte two nibbles: elements j and j + 16), k < 8 for Q8_0, whose
// signed bytes are kept + 128 (the kernels' unsigned side).
// Stored Q4_K / Q5_K / Q6_K rows go into slabs of sixteen too; within a slab, super-block b
// (16 x the block size B): word w (bytes 4w .. 4w + 3 of the block) of row 0, of row 1, ...,
// of row 15, for every word of Q4_K / Q5_K and Q6_K's first 48 (ql, qh); then Q6_K's 16
// signed scales as eight pairs of sixteen rows (pair i: row 0's scales 2i and 2i + 1, row
// 1's, ...), then its d in row order (GgufKernels::panels_q4_k).
// Stored F16 and BF16 rows go into super-panels of kF16PanelRows (64) rows instead, the last one
// narrower when the rows are not a multiple of 64: for each column k, the super-panel's
// rows' halves in row order (rows in the lanes of GgufKernels::panels_f16's registers).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "inference/engine/cpu/kernels/gguf_kernels.h"
#include "inference/engine/model/quant_matrix.h"

namespace ts::engine {

namespace {

struct PanelShape {
  size_t block;      // bytes of one block of one row (18 or 34)
  int words;         // 4-byte words of a block's values (4 or 8)
  uint8_t flip;      // xor applied to the values in a panel (Q8_0: 0x80)
  size_t row_bytes;  // bytes of one row as stored
};

PanelShape panelShape(TensorType type, int cols) {
  const bool q4 = type == TensorType::Q4_0;
  const size_t block = q4 ? sizeof(BlockQ4_0) : sizeof(BlockQ8_0);
  return {block, q4 ? 4 : 8, static_cast<uint8_t>(q4 ? 0 : 0x80), block * (cols / 32)};
}

// Sixteen rows as stored (row i at rows + i * row_bytes) -> their slab of panels.
void packSlab(const PanelShape& p, int blocks, const uint8_t* rows, uint8_t* slab) {
  const uint32_t flip = p.flip * 0x01010101u;
  for (int b = 0; b < blocks; ++b, slab += p.block * QuantMatrix::kPanelRows) {
    for (int lane = 0; lane < QuantMatrix::kPanelRows; ++lane) {
      const uint8_t* stored = rows + lane * p.row_bytes + b * p.block;
      std::memcpy(slab + 2 * lane, stored, 2);
      for (int k = 0; k < p.words; ++k) {
        uint32_t word;
        std::memcpy(&word, stored + 2 + 4 * k, 4);
        word ^= flip;
        std::memcpy(slab + 32 + 64 * k + 4 * lane, &word, 4);
      }
    }
  }
}

// Row `lane` of a slab -> its bytes as stored.
void unpackRow(const PanelShape& p, int blocks, const uint8_t* slab, int lane, uint8_t* row) {
  const uint32_t flip = p.flip * 0x01010101u;
  for (int b = 0; b < blocks; ++b, slab += p.block * QuantMatrix::kPanelRows, row += p.block) {
    std::memcpy(row, slab + 2 * lane, 2);
    for (int k = 0; k < p.words; ++k) {
      uint32_t word;
      std::memcpy(&word, slab + 32 + 64 * k + 4 * lane, 4);
      word ^= flip;
      std::memcpy(row + 2 + 4 * k, &word, 4);
    }
  }
}

// F16 and BF16 rows: super-panels of 2-byte values.
bool isHalfPanelType(TensorType type) {
  return type == TensorType::F16 || type == TensorType::BF16;
}

bool isKPanelType(TensorType type) {
  return type == TensorType::Q4_K || type == TensorType::Q5_K || type == TensorType::Q6_K;
}

// Row `lane` of a K-type slab: its stored bytes (superblocks blocks at `row`) into the slab,
// or (to_panel false) back.
void moveKRow(TensorType type, int superblocks, uint8_t* row, uint8_t* slab, int lane,
              bool to_panel) {
  const auto move = [&](uint8_t* panel, uint8_t* stored, size_t n) {
    to_panel ? std::memcpy(panel, stored, n) : std::memcpy(stored, panel, n);
  };
  const bool q6 = type == TensorType::Q6_K;
  const size_t block = layoutOf(type).block_bytes, words = q6 ? 48 : block / 4;
  for (int b = 0; b < superblocks; ++b, row += block, slab += 16 * block) {
    for (size_t w = 0; w < words; ++w) move(slab + 64 * w + 4 * lane, row + 4 * w, 4);
    if (!q6) continue;
    // Q6_K's 16 scales in pairs (scale 2i, 2i + 1 of row `lane` at 32 i + 2 lane), then d
    for (int j = 0; j < 16; ++j)
      move(slab + 3072 + 32 * (j / 2) + 2 * lane + j % 2, row + 192 + j, 1);
    move(slab + 3328 + 2 * lane, row + 208, 2);
  }
}

// F16: row r of a matrix of `rows` x `cols` in super-panels, as its column 0's index and
// the distance between its columns (its super-panel's width).
struct F16PanelRow {
  size_t first;
  int stride;
};
F16PanelRow f16PanelRow(int rows, int cols, int r) {
  const int panel = r / QuantMatrix::kF16PanelRows * QuantMatrix::kF16PanelRows;
  const int width = std::min(QuantMatrix::kF16PanelRows, rows - panel);
  return {static_cast<size_t>(panel) * cols + (r - panel), width};
}

// F16 rows (rows x cols halves) -> super-panels, 128 columns at a time per super-panel:
// the 64 rows' lines of those columns stay in cache while they are spread, and the next
// columns' lines are on their way (5 GB/s a thread, where 32 without prefetch made 3.8).
void packF16(const uint16_t* rows_in, int rows, int cols, uint16_t* out) {
  constexpr int kColumns = 128;
  for (int first = 0; first < rows; first += QuantMatrix::kF16PanelRows) {
    const int width = std::min(QuantMatrix::kF16PanelRows, rows - first);
    uint16_t* panel = out + static_cast<size_t>(first) * cols;
    for (int k0 = 0; k0 < cols; k0 += kColumns) {
      const int k1 = std::min(cols, k0 + kColumns);
      for (int lane = 0; lane < width; ++lane) {
        const uint16_t* row = rows_in + static_cast<size_t>(first + lane) * cols;
        for (int ahead = 0; ahead < kColumns; ahead += 32) __builtin_prefetch(row + k1 + ahead);
        for (int k = k0; k < k1; ++k) panel[static_cast<size_t>(k) * width + lane] = row[k];
      }
    }
  }
}

}  // namespace

bool QuantMatrix::panelsFit() const {
  if (format_ != WeightFormat::Stored) return runtimePanelsFit();
  if (panelled_ || rows_ % kPanelRows != 0) return false;
  return stored_type_ == TensorType::Q4_0 || stored_type_ == TensorType::Q8_0 ||
         isHalfPanelType(stored_type_) || isKPanelType(stored_type_);
}

QuantMatrix QuantMatrix::inPanels() const {
  if (!panelsFit()) return *this;
  if (format_ != WeightFormat::Stored) return runtimeInPanels();
  auto panels = std::make_shared<WeightBuffer<uint8_t>>(bytes());
  if (isHalfPanelType(stored_type_)) {
    packF16(reinterpret_cast<const uint16_t*>(stored_), rows_, cols_,
            reinterpret_cast<uint16_t*>(panels->data()));
  } else if (isKPanelType(stored_type_)) {
    const size_t row_bytes = rowBytes(stored_type_, cols_);
    for (int r = 0; r < rows_; ++r)
      moveKRow(stored_type_, cols_ / kSuperBlock, const_cast<uint8_t*>(stored_ + r * row_bytes),
               panels->data() + r / kPanelRows * kPanelRows * row_bytes, r % kPanelRows, true);
  } else {
    const PanelShape p = panelShape(stored_type_, cols_);
    const size_t slab_bytes = kPanelRows * p.row_bytes;
    for (int r = 0; r < rows_; r += kPanelRows)
      packSlab(p, cols_ / 32, stored_ + r * p.row_bytes,
               panels->data() + r / kPanelRows * slab_bytes);
  }
  QuantMatrix m = *this;
  m.stored_ = panels->data();
  m.owner_ = std::move(panels);
  m.panelled_ = true;
  return m;
}

void QuantMatrix::storedRow(int r, uint8_t* out) const {
  const size_t row_bytes = rowBytes(stored_type_, cols_);
  if (!panelled_) {
    std::memcpy(out, stored_ + static_cast<size_t>(r) * row_bytes, row_bytes);
    return;
  }
  if (isHalfPanelType(stored_type_)) {
    const F16PanelRow at = f16PanelRow(rows_, cols_, r);
    const uint16_t* column0 = reinterpret_cast<const uint16_t*>(stored_) + at.first;
    auto* row = reinterpret_cast<uint16_t*>(out);
    for (int k = 0; k < cols_; ++k) row[k] = column0[static_cast<size_t>(k) * at.stride];
    return;
  }
  const uint8_t* slab = stored_ + static_cast<size_t>(r / kPanelRows) * kPanelRows * row_bytes;
  if (isKPanelType(stored_type_))
    return moveKRow(stored_type_, cols_ / kSuperBlock, out, const_cast<uint8_t*>(slab),
                    r % kPanelRows, false);
  unpackRow(panelShape(stored_type_, cols_), cols_ / 32, slab, r % kPanelRows, out);
}

std::vector<uint8_t> QuantMatrix::storedRows() const {
  const size_t row_bytes = rowBytes(stored_type_, cols_);
  std::vector<uint8_t> out(static_cast<size_t>(rows_) * row_bytes);
  for (int r = 0; r < rows_; ++r) storedRow(r, out.data() + r * row_bytes);
  return out;
}

// Rows [begin, end) (whole slabs) of a panelled matrix: the panel kernels with the tiles,
// or, where the CPU has none, each slab back in the stored layout and the row kernels.
void QuantMatrix::multiplyPanels(float* out, int out_stride, const Activations& x, int begin,
                                 int end) const {
  if (format_ != WeightFormat::Stored) return multiplyRuntimePanels(out, out_stride, x, begin, end);
  if (isHalfPanelType(stored_type_)) return multiplyF16Panels(out, out_stride, x, begin, end);
  const GgufKernels& g = activeGgufKernels();
  const size_t row_bytes = rowBytes(stored_type_, cols_);
  GgufKernels::Slabs panels = nullptr;
  bool ready = x.tiled;  // the activations in the form the kernel reads
  switch (stored_type_) {
    case TensorType::Q4_0:
      panels = g.panels_q4_0;
      break;
    case TensorType::Q8_0:
      panels = g.panels_q8_0;
      break;
    case TensorType::Q4_K:
    case TensorType::Q5_K:
    case TensorType::Q6_K:
      panels = stored_type_ == TensorType::Q4_K   ? g.panels_q4_k
               : stored_type_ == TensorType::Q5_K ? g.panels_q5_k
                                                  : g.panels_q6_k;
      ready = x.superblocks == cols_ / kSuperBlock;
      break;
    default:
      break;
  }
  if (panels && ready)
    return panels(stored_ + begin * row_bytes, row_bytes, end - begin, x,
                  isKPanelType(stored_type_) ? cols_ / kSuperBlock : cols_ / 32, out + begin,
                  out_stride);
  // no kernel for panels: each slab back in the stored layout, multiplied as stored
  thread_local std::vector<uint8_t> rows;
  rows.resize(kPanelRows * row_bytes);
  for (int first = begin; first < end; first += kPanelRows) {
    const int n = std::min(kPanelRows, end - first);
    for (int i = 0; i < n; ++i) storedRow(first + i, rows.data() + i * row_bytes);
    stored(stored_type_, rows.data(), n, cols_, nullptr)
        .multiplyRowsAsStored(out + first, out_stride, x, 0, n);
  }
}

// Rows [begin, end) of panelled F16 / BF16 rows: whole super-panels by panels_f16 /
// panels_bf16, the rows of a range that cuts a super-panel (never from CpuSession, which
// splits in whole ones) and every row where the CPU has no such kernel by the same f32 chains
// one product at a time: the same results either way. F16 rows read the activations rounded
// to f16 (Activations::halves), BF16 rows the f32 ones. With AVX-512 BF16's pair products
// (GgufKernels::bf16_pairs) a cut super-panel is multiplied whole by the kernel and the
// rows asked for are kept, so those rows too are the kernel's.
void QuantMatrix::multiplyF16Panels(float* out, int out_stride, const Activations& x, int begin,
                                    int end) const {
  const auto* panels = reinterpret_cast<const uint16_t*>(stored_);
  const bool bf16 = stored_type_ == TensorType::BF16;
  const float* xs = bf16 ? x.f32Row(0) : x.halfRow(0);
  const auto chains = [&](int from, int to) {
    for (int r = from; r < to; ++r) {
      const F16PanelRow at = f16PanelRow(rows_, cols_, r);
      for (int t = 0; t < x.count; ++t) {
        const float* xt = xs + static_cast<size_t>(t) * x.n;
        float acc = 0;
        for (int k = 0; k < cols_; ++k) {
          const uint16_t w = panels[at.first + static_cast<size_t>(k) * at.stride];
          acc = std::fma(bf16 ? bf16ToF32(w) : f16ToF32(w), xt[k], acc);
        }
        out[static_cast<size_t>(t) * out_stride + r] = acc;
      }
    }
  };
  const auto kernel = bf16 ? activeGgufKernels().panels_bf16 : activeGgufKernels().panels_f16;
  // [first, last): the whole super-panels in the range (the matrix's last one may be narrow)
  const int first = std::min(end, (begin + kF16PanelRows - 1) / kF16PanelRows * kF16PanelRows);
  const int last = end == rows_ ? end : std::max(first, end / kF16PanelRows * kF16PanelRows);
  if (!kernel) return chains(begin, end);
  // Rows [from, to) inside one super-panel: by the kernel over all of it, or as chains.
  const auto cut = [&](int from, int to) {
    if (from >= to) return;
    if (!bf16 || !activeGgufKernels().bf16_pairs) return chains(from, to);
    const int p0 = from / kF16PanelRows * kF16PanelRows, p1 = std::min(rows_, p0 + kF16PanelRows);
    thread_local std::vector<float> whole;
    whole.resize(static_cast<size_t>(x.count) * (p1 - p0));
    kernel(panels + static_cast<size_t>(p0) * cols_, p1 - p0, cols_, xs, x.n, x.count, whole.data(),
           p1 - p0);
    for (int t = 0; t < x.count; ++t)
      std::copy(whole.begin() + static_cast<size_t>(t) * (p1 - p0) + (from - p0),
                whole.begin() + static_cast<size_t>(t) * (p1 - p0) + (to - p0),
                out + static_cast<size_t>(t) * out_stride + from);
  };
  cut(begin, first);
  if (first < last)
    kernel(panels + static_cast<size_t>(first) * cols_, last - first, cols_, xs, x.n, x.count,
           out + first, out_stride);
  cut(last, end);
}

}  // namespace ts::engine
