// The runtime formats (int8, q8_0, int4 with groups of 32, 64 and 128) in panels of sixteen
// rows (quant_matrix_runtime_panels.cpp): converted() and a cache record leave them in
// panels where the CPU has the panel kernels (and only there), every weight reads back the
// same, the arrays come back to the bit (a cache record and the CUDA plugin's upload are
// unchanged), products are within rounding of the arrays' kernels and the same to the bit
// for any number of positions and any range of whole slabs, so a model decodes and verifies
// to the same logits (speculative decoding's exactness). Run once with the fastest kernels
// and once with the portable ones (no panels: the arrays as before).
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "inference/engine/backend/cuda_session.h"
#include "inference/engine/core/byte_io.h"
#include "inference/engine/cpu/cpu_forward.h"
#include "inference/engine/cpu/kernels/gguf_kernels.h"
#include "inference/engine/model/random_model.h"
#include "tests/inference/engine/check.h"

using namespace ts::engine;
using ts::testing::check;

namespace {

std::mt19937 rng(11);

std::vector<float> randomValues(size_t n) {
  std::normal_distribution<float> normal(0.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  return v;
}

// out[t * rows + r] for every position of x (count x cols) and rows [begin, end).
std::vector<float> product(const QuantMatrix& m, const std::vector<float>& x, int count,
                           int begin = 0, int end = -1) {
  std::vector<float> out(static_cast<size_t>(count) * m.rows(), 0.f);
  m.multiplyRows(out.data(), m.rows(), m.activationsFor(x.data(), count), begin,
                 end < 0 ? m.rows() : end);
  return out;
}

std::string record(const QuantMatrix& m) {
  ByteWriter w;
  m.appendTo(w);
  return w.bytes;
}

void checkMatrix(WeightFormat format, int group, int rows, int cols) {
  const std::string name = weightFormatName(format) +
                           (format == WeightFormat::Int4 ? " g" + std::to_string(group) : "") +
                           " " + std::to_string(rows) + "x" + std::to_string(cols);
  const QuantMatrix f32 = QuantMatrix::fromF32(randomValues(size_t(rows) * cols), rows, cols);
  const QuantMatrix m = f32.converted(format, group);
  const bool kernels = activeGgufKernels().panels_int8 != nullptr;
  check(m.panelled() == (kernels && rows % QuantMatrix::kPanelRows == 0),
        name + ": in panels exactly where the CPU has their kernels (" + activeGgufKernels().name +
            ")");
  const QuantMatrix arrays = m.withoutPanels();
  check(!arrays.panelled() && arrays.bytes() == m.bytes() && arrays.scales() != nullptr,
        name + ": the arrays out of the panels hold the same bytes (" +
            std::to_string(arrays.bytes()) + ")");
  bool same = true;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) same = same && m.at(r, c) == arrays.at(r, c);
  check(same, name + ": every weight reads back the same from panels and arrays");
  const QuantMatrix again = arrays.inPanels();
  check(again.bytes() == m.bytes() && record(again) == record(m) &&
            (!m.panelled() || std::memcmp(again.storage(), m.storage(), m.bytes()) == 0),
        name + ": arrays -> panels -> arrays -> panels gives the same bytes");
  const std::string bytes = record(m);
  check(bytes == record(arrays),
        name + ": the cache record is the arrays' (" + std::to_string(bytes.size()) + " bytes)");
  ByteReader reader({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
  auto read = QuantMatrix::readFrom(reader);
  check(read.ok() && read->panelled() == m.panelled() && read->bytes() == m.bytes() &&
            record(read.value()) == bytes &&
            (!m.panelled() || std::memcmp(read->storage(), m.storage(), m.bytes()) == 0),
        name + ": a cache record reads back into the same panels");

  // Products: 37 positions (a chunk of 32 and a ragged 5), against the arrays' kernels and
  // against the sum over the dequantized weights and activations in double.
  const int count = 37;
  const std::vector<float> x = randomValues(size_t(count) * cols);
  const std::vector<float> pass = product(m, x, count), old = product(arrays, x, count);
  const Activations act = m.activationsFor(x.data(), count);
  double to_old = 0, to_exact = 0, scale = 0;
  for (int t = 0; t < count; ++t)
    for (int r = 0; r < rows; ++r) {
      double exact = 0;
      for (int c = 0; c < cols; ++c)
        exact += double(m.at(r, c)) * act.scaleRow(t)[c / 32] * act.qRow(t)[c];
      const float got = pass[size_t(t) * rows + r];
      to_old = std::max(to_old, double(std::abs(got - old[size_t(t) * rows + r])));
      to_exact = std::max(to_exact, std::abs(got - exact));
      scale = std::max(scale, std::abs(exact));
    }
  check(to_exact < 1e-5 * scale + 1e-5,
        name + ": a pass of 37 equals the dequantized sums within rounding (max diff " +
            std::to_string(to_exact) + " of " + std::to_string(scale) + ")");
  check(to_old < 1e-5 * scale + 1e-5,
        name + ": and the arrays' kernels' products (max diff " + std::to_string(to_old) + ")");
  // The same bits for each position alone, in a pass of 5, and over whole slabs of rows.
  bool bits = true;
  for (int t = 0; t < count; ++t) {
    const std::vector<float> xt(x.begin() + size_t(t) * cols, x.begin() + size_t(t + 1) * cols);
    const std::vector<float> one = product(m, xt, 1);
    bits = bits && std::memcmp(one.data(), pass.data() + size_t(t) * rows, 4 * rows) == 0;
  }
  const std::vector<float> five = product(m, x, 5);
  bits = bits && std::memcmp(five.data(), pass.data(), 4 * 5 * rows) == 0;
  check(bits, name + ": each position alone and in a pass of 5 gives a pass of 37's bits");
  if (m.panelled() && rows >= 48) {
    const std::vector<float> part = product(m, x, count, 16, 48);
    bool rows_same = true;
    for (int t = 0; t < count; ++t)
      rows_same = rows_same && std::memcmp(part.data() + size_t(t) * rows + 16,
                                           pass.data() + size_t(t) * rows + 16, 4 * 32) == 0;
    check(rows_same, name + ": rows [16, 48) alone give the whole product's bits");
  }
}

// A model's logits decoding one position at a time, and in one pass of every position.
void checkModel(WeightFormat format) {
  const auto config = shapeConfig("llama-tiny").value();
  const auto model = randomModel(config, format, 5);
  const std::string name = "random llama-tiny " + weightFormatName(format);
  check(model->layers[0].wq.panelled() == (activeGgufKernels().panels_int8 != nullptr),
        name + ": its matrices in panels exactly where the kernels are");
  const std::vector<int> tokens = {5, 17, 300, 42, 9, 77, 123};
  const int n = static_cast<int>(tokens.size()), vocab = config.vocab;
  CpuSession one(model, 32, KvFormat::F32, 2), batch(model, 32, KvFormat::F32, 2);
  std::vector<float> decoded;
  for (int i = 0; i < n; ++i) {
    const auto logits = one.forward(tokens[i], i);
    decoded.insert(decoded.end(), logits.begin(), logits.end());
  }
  const auto all = batch.forwardBatch(tokens, 0, true);
  check(all.size() == decoded.size() &&
            std::memcmp(all.data(), decoded.data(), 4 * size_t(n) * vocab) == 0,
        name + ": a pass of 7 positions gives decoding's logits to the bit");
  // The model with every matrix as arrays (the kernels before panels): the products agree
  // within rounding, but a rounding difference can move an activation across one of its
  // int8 steps in the next layer (1/127 of its block's largest value), so the logits agree
  // as two roundings of the same quantized model do: within the tolerance test_quant holds
  // int8 weights to against f32 (relative error, L2, under 3%; a broken product gives ~1).
  auto arrays = std::make_shared<Model>(*model);
  arrays->classifier = arrays->classifier.withoutPanels();
  for (auto& l : arrays->layers)
    for (QuantMatrix* q : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down})
      *q = q->withoutPanels();
  CpuSession plain(arrays, 32, KvFormat::F32, 2);
  double num = 0, den = 0;
  const auto logits = plain.forwardBatch(tokens, 0, true);
  for (size_t i = 0; i < logits.size(); ++i) {
    num += double(logits[i] - decoded[i]) * (logits[i] - decoded[i]);
    den += double(decoded[i]) * decoded[i];
  }
  const double relative = std::sqrt(num / den);
  check(relative < 0.03, name + ": logits within " + std::to_string(relative) +
                             " (relative, L2) of the arrays' kernels'");
  // What the CUDA plugin is handed: the arrays, not the panels.
  CudaModelView view(*model);
  const TsCudaMatrix& wq = view.get().layers[0].wq;
  const QuantMatrix want = model->layers[0].wq.withoutPanels();
  const size_t padded = paddedToBlock(want.cols());
  const size_t value_bytes =
      size_t(want.rows()) * (format == WeightFormat::Int4 ? padded / 2 : padded);
  const size_t scale_count = (want.bytes() - value_bytes) / 4;
  check(wq.data && wq.scales && std::memcmp(wq.data, want.storage(), value_bytes) == 0 &&
            std::memcmp(wq.scales, want.scales(), 4 * scale_count) == 0,
        name + ": the CUDA view is handed the arrays (" + std::to_string(value_bytes) +
            " value bytes, " + std::to_string(scale_count) + " scales)");
}

}  // namespace

int main() {
  std::printf("kernels: %s\n", activeGgufKernels().name);
  for (auto [format, group] :
       {std::tuple{WeightFormat::Int8, 128}, std::tuple{WeightFormat::Q8_0, 128},
        std::tuple{WeightFormat::Int4, 32}, std::tuple{WeightFormat::Int4, 64},
        std::tuple{WeightFormat::Int4, 128}})
    // 270: a padded row of 320 (the last int4 group of 128 two blocks short); 40 rows: not
    // whole slabs, never panelled
    for (auto [rows, cols] : {std::pair{48, 270}, std::pair{64, 512}, std::pair{40, 96}})
      checkMatrix(format, group, rows, cols);
  for (WeightFormat format : {WeightFormat::Int8, WeightFormat::Q8_0, WeightFormat::Int4})
    checkModel(format);
  return ts::testing::finish();
}
