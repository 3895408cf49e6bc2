// A weight matrix in one runtime format: f32 (the reference), f16, int8 per output channel
// (one scale per row), q8_0 (int8 with one scale per 32 inputs, as GGUF's Q8_0) or int4
// group-wise (one scale per `group` inputs of a row; the last group of a row may be
// shorter; group 32 holds GGUF's Q4_0 exactly). Quantized once at load (or taken from
// Q8_0 / Q4_0 blocks as they are); the products dequantize on the fly (fused: kernels.h),
// with integer rows padded with zeros to whole 64-input pairs of blocks.
// Or "stored": rows exactly as a file holds them (GGUF F32, F16, BF16, Q4_0, Q8_0, Q4_K,
// Q5_K, Q6_K), usually straight from the memory-mapped file (no copy), multiplied by
// gguf_kernels.h; `owner` keeps the bytes alive (the mapping, or a buffer).
#pragma once
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "inference/engine/core/byte_io.h"
#include "inference/engine/core/result.h"
#include "inference/engine/core/tensor_types.h"
#include "inference/engine/cpu/kernels/gguf_kernels.h"
#include "inference/engine/cpu/kernels/kernels.h"
#include "inference/engine/model/weight_buffer.h"

namespace ts::engine {

// Stored: every matrix as the file stores it (named "auto": the default).
enum class WeightFormat { F32, F16, Int8, Int4, Q8_0, Stored };
// "auto" | "f32" | "f16" | "int8" | "int4" | "q8_0"
Result<WeightFormat> parseWeightFormat(const std::string& name);
std::string weightFormatName(WeightFormat format);

class QuantMatrix {
 public:
  QuantMatrix() = default;
  // w: [rows, cols] row-major f32, consumed.
  static QuantMatrix fromF32(WeightBuffer<float> w, int rows, int cols);
  static QuantMatrix fromF32(const std::vector<float>& w, int rows, int cols) {
    return fromF32(toWeightBuffer(w), rows, cols);
  }
  // GGUF Q8_0 / Q4_0 blocks of a [rows, cols] tensor (cols a multiple of 32), kept exactly:
  // Q8_0 as q8_0, Q4_0 as int4 with group 32.
  static QuantMatrix fromQ8_0Blocks(std::span<const uint8_t> blocks, int rows, int cols);
  static QuantMatrix fromQ4_0Blocks(std::span<const uint8_t> blocks, int rows, int cols);
  // Rows as stored: rows * rowBytes(type, cols) bytes at `data`, kept alive by `owner`.
  // Types with a fused product: see storedTypeMultiplies.
  static QuantMatrix stored(TensorType type, const uint8_t* data, int rows, int cols,
                            std::shared_ptr<const void> owner);
  static bool storedTypeMultiplies(TensorType type);
  // A copy of this matrix in `format` (group: inputs per int4 scale: 32, 64 or 128); the
  // matrix itself when it is in that format already. From a stored quantized type int4
  // uses groups of 32 (never a coarser grid), and stored Q4_0 -> int4, Q8_0 -> q8_0 keep
  // the blocks exactly. Int8, q8_0 and int4 come back in this CPU's panels where it has their
  // kernels (panelsFit; withoutPanels gives the arrays).
  QuantMatrix converted(WeightFormat format, int group = 128) const;

  // Whether products with this matrix read the int8 form of the activations.
  bool needsQuantizedInput() const {
    return format_ == WeightFormat::Int8 || format_ == WeightFormat::Int4 ||
           format_ == WeightFormat::Q8_0 ||
           (format_ == WeightFormat::Stored &&
            (stored_type_ == TensorType::Q4_0 || stored_type_ == TensorType::Q8_0));
  }
  // Whether they read the Q8_K form (Activations::quantizeK): stored K-quants.
  bool needsKInput() const { return format_ == WeightFormat::Stored && isKQuant(stored_type_); }
  // Whether they read Activations::q_grouped (stored Q4_0 where the kernels have
  // dot_q4_0_grouped); without it they read q, to the same results.
  bool needsGroupedInput() const;
  // Whether passes over `count` positions read Activations' tiles (tileForPasses: stored
  // Q4_0 / Q8_0 where the kernels have the 16-row passes: in panels, every pass, decode's
  // included; as stored, from kTiledPositions positions on, where unpacking sixteen rows
  // pays).
  static constexpr int kTiledPositions = 16;
  static constexpr int kNeverTiled = std::numeric_limits<int>::max();
  // The fewest positions whose passes read the tiles: 1 in panels, kTiledPositions as
  // stored, kNeverTiled for the other formats or without those kernels.
  int tiledFrom() const;
  bool needsTiledInput(int count) const { return count >= tiledFrom(); }

  // Panels (quant_matrix_panels.cpp): stored Q4_0 / Q8_0 rows repacked at load into slabs
  // of kPanelRows rows whose blocks the 16-row kernels load as they lie. The same bytes
  // count and the same results to the bit; products of a panelled matrix cover whole slabs.
  // Stored Q4_K / Q5_K / Q6_K rows go into slabs of kPanelRows too (GgufKernels::
  // panels_q4_k): the same bytes count, products within rounding of the rows' as stored and
  // the same for any number of positions.
  static constexpr int kPanelRows = 16;
  // Stored F16 and BF16 rows go into super-panels of up to 64 rows instead, rows in lanes,
  // column by column (GgufKernels::panels_f16, panels_bf16): one f32 chain per product, in column
  // order, for any number of positions. Their products cover whole super-panels.
  static constexpr int kF16PanelRows = 64;
  // The rows threads split products in: whole super-panels (panelled F16 / BF16), pairs of
  // slabs in the other panels (the Q4_0 / Q8_0 / runtime panel kernels take two slabs per
  // activation load, and a share with an odd number of slabs ran its last one alone, at 1.4x
  // the time per row: 1.1% of a 128-position Q4_0 pass; the K panels' kernel takes one slab
  // at a time either way), else kPanelRows.
  int splitRows() const {
    if (!panelled_) return kPanelRows;
    return stored_type_ == TensorType::F16 || stored_type_ == TensorType::BF16 ? kF16PanelRows
                                                                               : 2 * kPanelRows;
  }
  // The runtime formats int8, q8_0 and int4 go into slabs of kPanelRows as well
  // (quant_matrix_runtime_panels.cpp), where this CPU has their kernels
  // (GgufKernels::panels_int8 / panels_int4; there is no other product for them in panels):
  // converted() and readFrom() leave them so, and decode and every pass read them.
  // Whether inPanels would repack: stored Q4_0 / Q8_0 / F16 / BF16 / Q4_K / Q5_K / Q6_K, or
  // int8 / q8_0 / int4 with those kernels, rows a multiple of kPanelRows.
  bool panelsFit() const;
  // A copy in panels (its own buffer); the matrix itself when !panelsFit().
  QuantMatrix inPanels() const;
  bool panelled() const { return panelled_; }
  // A runtime format's arrays as storage() and scales() describe them (another backend
  // reads those): a copy out of the panels, or the matrix itself when it is not in panels.
  // The same values to the bit. Stored matrices: the matrix itself (storedRows gives their
  // file layout).
  QuantMatrix withoutPanels() const;
  // Row r's bytes in the stored (file) layout, whichever layout the matrix holds them in:
  // rowBytes(storedType(), cols()) bytes to `out`. Stored only.
  void storedRow(int row, uint8_t* out) const;
  std::vector<uint8_t> storedRows() const;  // every row so
  // Whether they read the f16-rounded form (Activations::roundToHalf): stored F16.
  bool needsHalfInput() const {
    return format_ == WeightFormat::Stored && stored_type_ == TensorType::F16;
  }
  // Whether they read the activations as f32 (Activations::f32): every format but those
  // reading the int8, Q8_K or f16-rounded forms.
  bool needsF32Input() const {
    return !needsQuantizedInput() && !needsKInput() && !needsHalfInput();
  }
  // Row r as f32 [cols] (embedding lookups, conversions, tests).
  void rowF32(int row, float* out) const;
  // Multiplies every product of row r by scales[r] (Baichuan2's NormHead on a stored
  // classifier: its rows stay as stored and the unit-length scaling is applied to the
  // logits). Empty: none.
  void setRowScales(std::vector<float> scales) { row_scales_ = std::move(scales); }
  const std::vector<float>& rowScales() const { return row_scales_; }
  // out[t * out_stride + r] = W[r] · x_t for every activation vector t and rows
  // [begin, end) (threads split a product by rows). x must be quantized when
  // needsQuantizedInput(). With one vector this is the decode matvec; with many, the
  // prefill matmul, which reuses each weight row (in L1) for every token. A panelled
  // matrix's begin is a multiple of splitRows() (CpuSession splits rows in such units).
  void multiplyRows(float* out, int out_stride, const Activations& x, int begin, int end) const;
  // x [count, cols] in every form this matrix's products read (set, then quantizeK,
  // groupForQ4_0, tileForPasses, roundToHalf as needed).
  Activations activationsFor(const float* x, int count) const;
  // out[rows] = W · x[cols] on the calling thread (tests and tools).
  void matvec(float* out, const float* x) const;
  // The f32 value of W[row, col] (for tests and conversions).
  float at(int row, int col) const;

  // The matrix as bytes (format, shape, group, then its arrays) and back, for the
  // quantization cache. readFrom advances `in` and fails on a short or inconsistent record.
  void appendTo(ByteWriter& out) const;
  static Result<QuantMatrix> readFrom(ByteReader& in);

  WeightFormat format() const { return format_; }
  TensorType storedType() const { return stored_type_; }               // Stored only
  const std::shared_ptr<const void>& owner() const { return owner_; }  // Stored: keeps bytes
  // "f32", "int4", ... or the stored type ("Q4_K") for Stored.
  std::string formatName() const;
  int rows() const { return rows_; }
  int cols() const { return cols_; }
  int group() const { return group_; }
  size_t bytes() const;  // storage, scales included
  const float* f32Data() const { return f32_.data(); }
  // The stored arrays as they are (for uploading to another backend; a panelled matrix's
  // are in panels: storedRows gives the file layout, withoutPanels the arrays): f32 [rows, cols],
  // f16 [rows, cols], int8 / q8_0 [rows, padded cols], int4 [rows, padded cols / 2]; the
  // scales as described below (null for f32 and f16).
  const void* storage() const;
  const float* scales() const { return scales_.empty() ? nullptr : scales_.data(); }

 private:
  WeightFormat format_ = WeightFormat::F32;
  float dotRow(const Kernels& k, int row, const Activations& x, int t) const;
  void dotRowX4(const Kernels& k, int row, const Activations& x, int t, float* out) const;
  // Stored Q4_K / Q5_K / Q6_K rows' kernel for up to six tokens per pass; null otherwise.
  GgufKernels::KTokens kTokensPass() const;
  float* combinedScales(int row, const Activations& x, int t, int tokens) const;
  size_t paddedCols() const { return paddedToBlock(cols_); }
  // An empty matrix of this shape and format (arrays not yet allocated).
  static QuantMatrix shaped(WeightFormat format, int rows, int cols, int group);
  // int4 scales per row: every group of the padded row, so the kernels' last (padding)
  // block never reads past a row's scales (padding groups have scale 0).
  size_t scaleGroups() const { return (paddedCols() + group_ - 1) / group_; }

  // The runtime formats' panels (quant_matrix_runtime_panels.cpp).
  bool runtimePanelsFit() const;
  QuantMatrix runtimeInPanels() const;
  float runtimePanelAt(int row, int col) const;
  size_t runtimePanelBytes() const;
  void multiplyRuntimePanels(float* out, int out_stride, const Activations& x, int begin,
                             int end) const;
  // multiplyRows of a matrix in any layout but panels.
  void multiplyRowsAsStored(float* out, int out_stride, const Activations& x, int begin,
                            int end) const;
  float dotStored(int row, const Activations& x, int t) const;
  // Passes over 2+ positions of stored Q4_0 / Q8_0: rows [begin, end) eight at a time by the
  // GEMM kernels; returns the first row left (the others' types and the last < 8 rows).
  int multiplyStoredTiles(float* out, int out_stride, const Activations& x, int begin,
                          int end) const;
  // Rows [begin, end) of a panelled matrix, every position (quant_matrix_panels.cpp).
  void multiplyPanels(float* out, int out_stride, const Activations& x, int begin, int end) const;
  void multiplyF16Panels(float* out, int out_stride, const Activations& x, int begin,
                         int end) const;
  // Rows [begin, end) with token t into out[0 .. end - begin).
  void dotStoredRows(const Activations& x, int t, int begin, int end, float* out) const;

  int rows_ = 0, cols_ = 0, group_ = 128;
  TensorType stored_type_ = TensorType::F32;
  bool panelled_ = false;              // stored_ holds panels (panelsFit types)
  const uint8_t* stored_ = nullptr;    // Stored: [rows, rowBytes]; int8 / q8_0 / int4: panels
  std::shared_ptr<const void> owner_;  // keeps stored_ alive
  std::vector<float> row_scales_;
  WeightBuffer<float> f32_;
  WeightBuffer<uint16_t> f16_;
  WeightBuffer<int8_t> q8_;     // int8, q8_0: [rows, padded cols]
  WeightBuffer<uint8_t> q4_;    // [rows, padded cols / 2]: 32 bytes per pair of blocks (kernels.h)
  WeightBuffer<float> scales_;  // int8: [rows]; int4: [rows, ceil(cols/group)];
                                // q8_0: [rows, padded cols / 32]
};

}  // namespace ts::engine
