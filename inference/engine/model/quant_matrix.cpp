#include "inference/engine/model/quant_matrix.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "inference/engine/core/tensor_types.h"
#include "inference/engine/cpu/kernels/gguf_kernels.h"

namespace ts::engine {

Result<WeightFormat> parseWeightFormat(const std::string& name) {
  if (name == "f32") return WeightFormat::F32;
  if (name == "f16") return WeightFormat::F16;
  if (name == "int8") return WeightFormat::Int8;
  if (name == "int4") return WeightFormat::Int4;
  if (name == "q8_0") return WeightFormat::Q8_0;
  if (name == "auto") return WeightFormat::Stored;
  return fail("unknown weight format: expected auto, f32, f16, int8, int4 or q8_0, found '" + name +
              "'");
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
    case WeightFormat::Q8_0:
      return "q8_0";
    case WeightFormat::Stored:
      return "auto";
  }
  return "f32";
}

std::string QuantMatrix::formatName() const {
  return format_ == WeightFormat::Stored ? typeName(stored_type_) : weightFormatName(format_);
}

QuantMatrix QuantMatrix::fromF32(WeightBuffer<float> w, int rows, int cols) {
  QuantMatrix m;
  m.rows_ = rows;
  m.cols_ = cols;
  m.f32_ = std::move(w);
  return m;
}

float QuantMatrix::at(int r, int c) const {
  const size_t i = static_cast<size_t>(r) * cols_ + c;
  if (panelled_ && format_ != WeightFormat::Stored) return runtimePanelAt(r, c);
  switch (format_) {
    case WeightFormat::F32:
      return f32_[i];
    case WeightFormat::F16:
      return f16ToF32(f16_[i]);
    case WeightFormat::Int8:
      return scales_[r] * q8_[r * paddedCols() + c];
    case WeightFormat::Q8_0:
      return scales_[r * paddedCols() / kQuantBlock + c / kQuantBlock] * q8_[r * paddedCols() + c];
    case WeightFormat::Int4: {
      const int block = c / kQuantBlock;  // pairs of blocks share 32 bytes (kernels.h)
      const uint8_t b = q4_[r * paddedCols() / 2 + block / 2 * kQuantBlock + c % kQuantBlock];
      const int q = (block % 2 ? b >> 4 : b & 15) - 8;
      return scales_[r * scaleGroups() + c / group_] * q;
    }
    case WeightFormat::Stored: {  // decode the block holding c
      const TypeLayout l = layoutOf(stored_type_);
      const size_t block = c / l.block_elems;
      std::vector<float> values(l.block_elems);
      std::vector<uint8_t> row;  // a panelled matrix's row in the file's layout
      if (panelled_) row.resize(rowBytes(stored_type_, cols_)), storedRow(r, row.data());
      const uint8_t* first = panelled_ ? row.data() : stored_ + r * rowBytes(stored_type_, cols_);
      dequantize(stored_type_, {first + block * l.block_bytes, l.block_bytes}, values.data(),
                 l.block_elems);
      return values[c % l.block_elems];
    }
  }
  return 0.f;
}

namespace {

// Round half away from zero (as lround) and clamp to [-limit, limit], without a libm call:
// quantizing a 7B model calls this billions of times.
inline int roundClamped(float v, int limit) {
  const int q = static_cast<int>(v + (v >= 0 ? 0.5f : -0.5f));
  return std::clamp(q, -limit, limit);
}

}  // namespace

QuantMatrix QuantMatrix::shaped(WeightFormat format, int rows, int cols, int group) {
  QuantMatrix m;
  m.format_ = format;
  m.rows_ = rows;
  m.cols_ = cols;
  m.group_ = group;
  return m;
}

QuantMatrix QuantMatrix::converted(WeightFormat format, int group) const {
  if (format == format_ && row_scales_.empty() && (format != WeightFormat::Int4 || group == group_))
    return *this;
  if (format_ == WeightFormat::Stored) {
    // Never to a coarser grid than a quantized source: its int4 groups are 32 wide, and
    // Q4_0 -> int4 / Q8_0 -> q8_0 take the blocks as they are (no second rounding).
    const bool quantized = stored_type_ != TensorType::F32 && stored_type_ != TensorType::F16 &&
                           stored_type_ != TensorType::BF16;
    if (quantized && format == WeightFormat::Int4) group = kQuantBlock;
    const std::vector<uint8_t> unpanelled = panelled_ ? storedRows() : std::vector<uint8_t>();
    const std::span<const uint8_t> blocks =
        panelled_ ? std::span<const uint8_t>(unpanelled) : std::span(stored_, bytes());
    if (row_scales_.empty() && stored_type_ == TensorType::Q4_0 && format == WeightFormat::Int4)
      return fromQ4_0Blocks(blocks, rows_, cols_).inPanels();
    if (row_scales_.empty() && stored_type_ == TensorType::Q8_0 && format == WeightFormat::Q8_0)
      return fromQ8_0Blocks(blocks, rows_, cols_).inPanels();
  }
  QuantMatrix m = shaped(format, rows_, cols_, group);
  const size_t n = static_cast<size_t>(rows_) * cols_;
  // The usual source is f32 (the loaders' output): copy it instead of decoding per element.
  WeightBuffer<float> src;
  if (format_ == WeightFormat::F32) {
    src = f32_;
  } else {
    src.resize(n);
    for (int r = 0; r < rows_; ++r) rowF32(r, src.data() + static_cast<size_t>(r) * cols_);
  }
  for (size_t r = 0; r < row_scales_.size(); ++r)  // the copy holds them in its values
    for (int c = 0; c < cols_; ++c) src[r * cols_ + c] *= row_scales_[r];
  switch (format) {
    case WeightFormat::Stored:  // a copy of the matrix as it is (never reached: same format)
      return *this;
    case WeightFormat::F32:
      m.f32_ = std::move(src);
      break;
    case WeightFormat::F16:
      m.f16_.resize(n);
      for (size_t i = 0; i < n; ++i) m.f16_[i] = f32ToF16(src[i]);
      break;
    case WeightFormat::Int8:
      m.q8_.assign(rows_ * paddedCols(), 0);
      m.scales_.resize(rows_);
      for (int r = 0; r < rows_; ++r) {
        const float* row = src.data() + static_cast<size_t>(r) * cols_;
        float amax = 0.f;
        for (int c = 0; c < cols_; ++c) amax = std::max(amax, std::abs(row[c]));
        const float scale = amax > 0 ? amax / 127.f : 1.f;
        m.scales_[r] = scale;
        for (int c = 0; c < cols_; ++c)
          m.q8_[r * paddedCols() + c] = static_cast<int8_t>(roundClamped(row[c] / scale, 127));
      }
      break;
    case WeightFormat::Q8_0: {
      const size_t blocks = paddedCols() / kQuantBlock;
      m.q8_.assign(rows_ * paddedCols(), 0);
      m.scales_.assign(rows_ * blocks, 0.f);
      for (int r = 0; r < rows_; ++r) {
        const float* row = src.data() + static_cast<size_t>(r) * cols_;
        for (size_t b = 0; b * kQuantBlock < static_cast<size_t>(cols_); ++b) {
          const int begin = static_cast<int>(b) * kQuantBlock,
                    end = std::min(cols_, begin + kQuantBlock);
          float amax = 0.f;
          for (int c = begin; c < end; ++c) amax = std::max(amax, std::abs(row[c]));
          const float scale = amax > 0 ? amax / 127.f : 1.f;
          m.scales_[r * blocks + b] = scale;
          for (int c = begin; c < end; ++c)
            m.q8_[r * paddedCols() + c] = static_cast<int8_t>(roundClamped(row[c] / scale, 127));
        }
      }
      break;
    }
    case WeightFormat::Int4: {
      // Scales for every group of the padded row (those past cols stay 0).
      const size_t row_bytes = paddedCols() / 2, groups = m.scaleGroups();
      m.q4_.assign(rows_ * row_bytes, 0x88);  // padding: nibble 8 = value 0
      m.scales_.assign(rows_ * groups, 0.f);
      for (int r = 0; r < rows_; ++r) {
        const float* row = src.data() + static_cast<size_t>(r) * cols_;
        for (size_t g = 0; g * group < static_cast<size_t>(cols_); ++g) {
          const int begin = static_cast<int>(g) * group, end = std::min(cols_, begin + group);
          float amax = 0.f;
          for (int c = begin; c < end; ++c) amax = std::max(amax, std::abs(row[c]));
          const float scale = amax > 0 ? amax / 7.f : 1.f;
          m.scales_[r * groups + g] = scale;
          for (int c = begin; c < end; ++c) {
            const int q = std::min(roundClamped(row[c] / scale, 8), 7) + 8;
            const int block = c / kQuantBlock;
            uint8_t& b = m.q4_[r * row_bytes + block / 2 * kQuantBlock + c % kQuantBlock];
            b = block % 2 ? static_cast<uint8_t>((b & 0x0F) | (q << 4))
                          : static_cast<uint8_t>((b & 0xF0) | q);
          }
        }
      }
      break;
    }
  }
  return m.inPanels();  // the integer formats in this CPU's panels
}

float QuantMatrix::dotRow(const Kernels& k, int r, const Activations& x, int t) const {
  const size_t row = r;
  switch (format_) {
    case WeightFormat::Stored:
      return dotStored(r, x, t);
    case WeightFormat::F32:
      return k.dot_f32(f32_.data() + row * cols_, x.f32Row(t), cols_);
    case WeightFormat::F16:
      return k.dot_f16(f16_.data() + row * cols_, x.f32Row(t), cols_);
    case WeightFormat::Int8:  // dequantize once per row
      return scales_[r] *
             k.dot_q8(q8_.data() + row * paddedCols(), x.qRow(t), x.scaleRow(t), x.blocks);
    case WeightFormat::Q8_0: {  // the block's weight scale folds into its activation scale
      float* combined = combinedScales(r, x, t, 1);
      return k.dot_q8(q8_.data() + row * paddedCols(), x.qRow(t), combined, x.blocks);
    }
    case WeightFormat::Int4: {
      return k.dot_q4(q4_.data() + row * paddedCols() / 2, scales_.data() + row * scaleGroups(),
                      group_ / kQuantBlock, x.qRow(t), x.scaleRow(t), x.offsetRow(t), x.blocks);
    }
  }
  return 0.f;
}

GgufKernels::KTokens QuantMatrix::kTokensPass() const {
  if (format_ != WeightFormat::Stored) return nullptr;
  const GgufKernels& g = activeGgufKernels();
  switch (stored_type_) {
    case TensorType::Q4_K:
      return g.dot_q4_k_tokens;
    case TensorType::Q5_K:
      return g.dot_q5_k_tokens;
    case TensorType::Q6_K:
      return g.dot_q6_k_tokens;
    default:
      return nullptr;
  }
}

void QuantMatrix::dotRowX4(const Kernels& k, int r, const Activations& x, int t, float* out) const {
  const size_t row = r;
  switch (format_) {
    case WeightFormat::Stored: {  // f32 rows: four tokens per pass over the row (f16 and
                                  // K-type rows: multiplyRowsAsStored's passes)
      const uint8_t* w = static_cast<const uint8_t*>(storage()) + row * (bytes() / rows_);
      if (stored_type_ == TensorType::F32)
        return k.dot_f32_x4(reinterpret_cast<const float*>(w), x.f32Row(t), cols_, cols_, out);
      for (int i = 0; i < 4; ++i) out[i] = dotStored(r, x, t + i);
      return;
    }
    case WeightFormat::F32:
      return k.dot_f32_x4(f32_.data() + row * cols_, x.f32Row(t), cols_, cols_, out);
    case WeightFormat::F16:  // never: multiplyRowsAsStored's dot_f16_rows
      for (int i = 0; i < 4; ++i) out[i] = dotRow(k, r, x, t + i);
      return;
    case WeightFormat::Int8:
      k.dot_q8_x4(q8_.data() + row * paddedCols(), x.qRow(t), x.scaleRow(t), x.blocks, out);
      for (int i = 0; i < 4; ++i) out[i] *= scales_[r];
      return;
    case WeightFormat::Q8_0:
      return k.dot_q8_x4(q8_.data() + row * paddedCols(), x.qRow(t), combinedScales(r, x, t, 4),
                         x.blocks, out);
    case WeightFormat::Int4: {
      return k.dot_q4_x4(q4_.data() + row * paddedCols() / 2, scales_.data() + row * scaleGroups(),
                         group_ / kQuantBlock, x.qRow(t), x.scaleRow(t), x.offsetRow(t), x.blocks,
                         out);
    }
  }
}

// q8_0: the weight scale of each block times the activation scale of the same block, for
// `tokens` activation rows from t on (laid out as Activations' scales). A per-thread
// buffer: products run on several threads at once.
float* QuantMatrix::combinedScales(int r, const Activations& x, int t, int tokens) const {
  thread_local std::vector<float> buffer;
  buffer.resize(static_cast<size_t>(tokens) * x.blocks);
  const float* w = scales_.data() + static_cast<size_t>(r) * x.blocks;
  for (int i = 0; i < tokens; ++i) {
    const float* s = x.scaleRow(t + i);
    for (int b = 0; b < x.blocks; ++b) buffer[static_cast<size_t>(i) * x.blocks + b] = w[b] * s[b];
  }
  return buffer.data();
}

void QuantMatrix::multiplyRows(float* out, int out_stride, const Activations& x, int begin,
                               int end) const {
  if (panelled_) {
    multiplyPanels(out, out_stride, x, begin, end);
  } else {
    multiplyRowsAsStored(out, out_stride, x, begin, end);
  }
  if (!row_scales_.empty())
    for (int r = begin; r < end; ++r)
      for (int t = 0; t < x.count; ++t)
        out[static_cast<size_t>(t) * out_stride + r] *= row_scales_[r];
}

void QuantMatrix::multiplyRowsAsStored(float* out, int out_stride, const Activations& x, int begin,
                                       int end) const {
  const Kernels& k = activeKernels();
  const auto at = [&](int t, int r) -> float& {
    return out[static_cast<size_t>(t) * out_stride + r];
  };
  const bool stored_f16 = format_ == WeightFormat::Stored && stored_type_ == TensorType::F16;
  if (x.count >= 2 && (stored_f16 || format_ == WeightFormat::F16)) {
    // f16 rows: up to kHalfTokens positions per pass over a row (a verification's five in
    // one), every token's sum dot_f16's
    const uint16_t* rows = stored_f16 ? reinterpret_cast<const uint16_t*>(stored_) : f16_.data();
    const float* xs = stored_f16 ? x.halfRow(0) : x.f32Row(0);
    for (int t = 0; t < x.count; t += Kernels::kHalfTokens)
      k.dot_f16_rows(rows + static_cast<size_t>(begin) * cols_, cols_, end - begin, xs + t * x.n,
                     x.n, cols_, std::min(Kernels::kHalfTokens, x.count - t), &at(t, begin),
                     out_stride);
    return;
  }
  float four[4];
  // several positions: stored Q4_0 / Q8_0 rows eight at a time, the rest row by row
  const int rest = x.count >= 2 && format_ == WeightFormat::Stored
                       ? multiplyStoredTiles(out, out_stride, x, begin, end)
                       : begin;
  const int tail = x.count / 4 * 4;  // tokens past the four-token passes
  if (x.count == 1) {                // decode's one token: a row at a time
    if (format_ == WeightFormat::Stored) {
      if (rest < end) dotStoredRows(x, 0, rest, end, &at(0, rest));
      return;
    }
    for (int r = rest; r < end; ++r) at(0, r) = dotRow(k, r, x, 0);
    return;
  }
  if (const GgufKernels::KTokens pass = kTokensPass()) {  // K types: up to six per pass
    // A verification's five in one pass. Long passes: Q6_K six at a time, Q4_K / Q5_K four
    // (GCC 12 spills their six tokens' accumulators: pp512 50 -> 42 tok/s with six, where
    // Q6_K went 42 -> 50).
    const int group = x.count <= GgufKernels::kKTokens || stored_type_ == TensorType::Q6_K
                          ? GgufKernels::kKTokens
                          : 4;
    const uint8_t* w = static_cast<const uint8_t*>(storage());
    const size_t row_bytes = bytes() / rows_, row_values = static_cast<size_t>(x.superblocks) * 256;
    // Positions in chunks of eight groups, all the rows for one chunk before the next: a
    // chunk's activations stay in L2 (32 x 11,008 bytes), where every row over all of a
    // 512-position pass's streamed them from L3 (pp512 fell to 0.7x pp128). The rows are
    // read once per chunk instead, which these compute-bound passes do not notice.
    const int chunk = 8 * group;
    float six[GgufKernels::kKTokens];
    for (int t0 = 0; t0 < x.count; t0 += chunk)
      for (int r = rest; r < end; ++r)
        for (int t = t0; t < std::min(x.count, t0 + chunk); t += group) {
          const int n = std::min(group, x.count - t);
          pass(w + r * row_bytes, x.qkRow(t), row_values, x.kscaleRow(t), x.superblocks,
               x.bsumsRow(t), static_cast<size_t>(x.superblocks) * 16, cols_ / 256, n, six);
          for (int i = 0; i < n; ++i) at(t + i, r) = six[i];
        }
    return;
  }
  for (int r = rest; r < end; ++r) {
    for (int t = 0; t < tail; t += 4) {  // four tokens per pass over the weight row
      dotRowX4(k, r, x, t, four);
      for (int i = 0; i < 4; ++i) at(t + i, r) = four[i];
    }
    // the other tokens with the row just read, from cache (a verification's fifth would
    // otherwise stream every row from memory once more)
    for (int t = tail; t < x.count; ++t)
      at(t, r) = format_ == WeightFormat::Stored ? dotStored(r, x, t) : dotRow(k, r, x, t);
  }
}

Activations QuantMatrix::activationsFor(const float* x, int count) const {
  Activations a;
  a.set(x, count, cols_, needsQuantizedInput());
  if (needsKInput()) a.quantizeK();
  if (needsGroupedInput()) a.groupForQ4_0();
  if (needsTiledInput(count)) a.tileForPasses();
  if (needsHalfInput()) a.roundToHalf();
  return a;
}

void QuantMatrix::matvec(float* out, const float* x) const {
  multiplyRows(out, rows_, activationsFor(x, 1), 0, rows_);
}

void QuantMatrix::appendTo(ByteWriter& out) const {
  // the runtime formats as arrays, whatever this CPU reads
  if (panelled_ && format_ != WeightFormat::Stored) return withoutPanels().appendTo(out);
  const int32_t header[4] = {static_cast<int32_t>(format_), rows_, cols_, group_};
  out.pod(header);
  if (format_ == WeightFormat::Stored) {  // type, then the rows' bytes
    out.pod(static_cast<uint32_t>(stored_type_));
    out.array(storedRows());  // the file's layout: a panelled matrix's rows unpacked
    out.array(row_scales_);
    return;
  }
  out.array(f32_);
  out.array(scales_);
  out.array(f16_);
  out.array(q8_);
  out.array(q4_);
}

Result<QuantMatrix> QuantMatrix::readFrom(ByteReader& in) {
  int32_t h[4];
  if (!in.pod(h)) return fail("cache: a matrix record is cut short");
  if (h[0] < 0 || h[0] > static_cast<int32_t>(WeightFormat::Stored) || h[1] <= 0 || h[2] <= 0 ||
      (h[3] != 32 && h[3] != 64 && h[3] != 128))
    return fail("cache: a matrix record has an impossible header");
  if (h[0] == static_cast<int32_t>(WeightFormat::Stored)) {
    uint32_t type = 0;
    if (!in.pod(type) || !tensorTypeFromGgml(type) ||
        !storedTypeMultiplies(static_cast<TensorType>(type)))
      return fail("cache: a stored matrix has an unknown type");
    const auto t = static_cast<TensorType>(type);
    auto bytes = std::make_shared<std::vector<uint8_t>>();
    std::vector<float> row_scales;
    if (h[2] % layoutOf(t).block_elems != 0 ||
        !in.array(*bytes, static_cast<uint64_t>(h[1]) * rowBytes(t, h[2])) || !in.array(row_scales))
      return fail("cache: a stored matrix's bytes do not match its shape");
    QuantMatrix m = stored(t, bytes->data(), h[1], h[2], bytes);
    if (!row_scales.empty() && row_scales.size() != static_cast<size_t>(h[1]))
      return fail("cache: a stored matrix's row scales do not match its rows");
    m.row_scales_ = std::move(row_scales);
    return m;
  }
  QuantMatrix m = shaped(static_cast<WeightFormat>(h[0]), h[1], h[2], h[3]);
  const uint64_t n = static_cast<uint64_t>(m.rows_) * m.cols_, padded = m.rows_ * m.paddedCols();
  const uint64_t groups = static_cast<uint64_t>(m.rows_) * m.scaleGroups();
  const auto is = [&](WeightFormat f, uint64_t size) { return m.format_ == f ? size : 0; };
  const bool ok =
      in.array(m.f32_, is(WeightFormat::F32, n)) &&
      in.array(m.scales_, is(WeightFormat::Int8, m.rows_) + is(WeightFormat::Int4, groups) +
                              is(WeightFormat::Q8_0, padded / kQuantBlock)) &&
      in.array(m.f16_, is(WeightFormat::F16, n)) &&
      in.array(m.q8_, is(WeightFormat::Int8, padded) + is(WeightFormat::Q8_0, padded)) &&
      in.array(m.q4_, is(WeightFormat::Int4, padded / 2));
  if (!ok) return fail("cache: a matrix's arrays do not match its shape");
  return m.inPanels();
}

const void* QuantMatrix::storage() const {
  switch (format_) {
    case WeightFormat::F32:
      return f32_.data();
    case WeightFormat::F16:
      return f16_.data();
    case WeightFormat::Int8:
    case WeightFormat::Q8_0:
      return panelled_ ? static_cast<const void*>(stored_) : q8_.data();
    case WeightFormat::Int4:
      return panelled_ ? static_cast<const void*>(stored_) : q4_.data();
    case WeightFormat::Stored:
      return stored_;
  }
  return nullptr;
}

size_t QuantMatrix::bytes() const {
  if (format_ == WeightFormat::Stored)
    return static_cast<size_t>(rows_) * rowBytes(stored_type_, cols_);
  if (panelled_) return runtimePanelBytes();
  return f32_.size() * 4 + f16_.size() * 2 + q8_.size() + q4_.size() + scales_.size() * 4;
}

}  // namespace ts::engine
