// Stored Q4_0 / Q8_0 matrices repacked into panels of sixteen rows (QuantMatrix::inPanels):
// the bytes come back as stored, every product equals the stored rows' to the bit, and a
// loaded GGUF model (panelled where the CPU's kernels read panels) decodes and verifies to
// the same logits as the same model kept in the file's layout. Run once with the fastest
// kernels and once with the portable ones (no panel kernels: each slab is multiplied in
// the stored layout again).
// Stored Q4_K / Q5_K / Q6_K matrices go into panels of sixteen rows too: the bytes come back
// as stored, products are within 1e-4 of the stored rows' and the same to the bit for any
// number of positions and any range of whole slabs (decode and speculative verification
// agree; ktiny's files check whole models against their reference).
// Stored F16 matrices go into super-panels of 64 rows: the bytes come back as stored, and
// every product is one f32 chain of fused multiply-adds in column order (checked against
// that chain computed here, to the bit, for any number of positions), so a loaded F16
// model decodes and verifies to the same logits; those are within rounding of the file's
// layout's (dotFloat's order of additions).
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "inference/engine/cpu/cpu_forward.h"
#include "inference/engine/cpu/kernels/gguf_kernels.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/formats/model_writer.h"
#include "inference/engine/model/random_model.h"
#include "tests/inference/engine/check.h"
#include "tests/inference/engine/temp_dir.h"

using namespace ts::engine;
using ts::testing::check;

namespace {

std::mt19937 rng(7);

// rows x blocks random Q4_0 / Q8_0 blocks with small positive f16 scales.
std::vector<uint8_t> randomRows(TensorType type, int rows, int blocks) {
  const size_t block = type == TensorType::Q4_0 ? 18 : 34;
  std::vector<uint8_t> bytes(rows * blocks * block);
  for (auto& b : bytes) b = static_cast<uint8_t>(rng());
  for (int r = 0; r < rows; ++r)
    for (int b = 0; b < blocks; ++b) {
      const uint16_t half = f32ToF16(0.01f * (1 + (r + b) % 7));
      std::memcpy(&bytes[(r * blocks + b) * block], &half, 2);
    }
  return bytes;
}

// rows x superblocks random Q4_K / Q5_K / Q6_K blocks with small f16 scales.
std::vector<uint8_t> randomKRows(TensorType type, int rows, int superblocks) {
  const size_t block = layoutOf(type).block_bytes;
  std::vector<uint8_t> bytes(rows * superblocks * block);
  for (auto& b : bytes) b = static_cast<uint8_t>(rng());
  for (size_t b = 0; b < bytes.size() / block; ++b) {
    uint8_t* at = &bytes[b * block];
    const uint16_t d = f32ToF16(0.001f * (1 + b % 5)), dmin = f32ToF16(0.002f * (1 + b % 3));
    std::memcpy(type == TensorType::Q6_K ? at + 208 : at, &d, 2);
    if (type != TensorType::Q6_K) std::memcpy(at + 2, &dmin, 2);
  }
  return bytes;
}

// out[t * rows + r] over rows [begin, end) of m with `tokens` random activation rows.
std::vector<float> product(const QuantMatrix& m, const std::vector<float>& xs, int tokens,
                           int begin, int end) {
  const Activations a = m.activationsFor(xs.data(), tokens);
  std::vector<float> out(static_cast<size_t>(tokens) * m.rows(), -1.f);
  m.multiplyRows(out.data(), m.rows(), a, begin, end);
  return out;
}

// `panels` (stored.inPanels()) holds the same bytes in another order: the file's rows come
// back from it, its values are the stored ones, and the cache gets the stored rows.
void checkRepacked(const QuantMatrix& stored, const QuantMatrix& panels, const std::string& what) {
  const std::vector<uint8_t> bytes = stored.storedRows();
  check(panels.panelled() && panels.bytes() == stored.bytes() && panels.storedRows() == bytes &&
            std::memcmp(panels.storage(), bytes.data(), bytes.size()) != 0,
        what + "repacked in the same number of bytes, and storedRows gives the file's back");
  bool values = true;
  const int cols = stored.cols();
  std::vector<float> a(cols), b(cols);
  for (int r = 0; r < stored.rows(); ++r) {
    stored.rowF32(r, a.data());
    panels.rowF32(r, b.data());
    values = values && a == b && panels.at(r, cols - 1) == stored.at(r, cols - 1);
  }
  check(values, what + "every row's values (rowF32, at) are the stored ones");
  ts::engine::ByteWriter w1, w2;
  stored.appendTo(w1);
  panels.appendTo(w2);
  check(w1.bytes == w2.bytes, what + "written to the cache exactly as the stored rows");
}

std::vector<float> run(const std::shared_ptr<const Model>& model, bool pass) {
  CpuSession session(model, 16, KvFormat::F32, 2);
  const std::vector<int> tokens = {1, 5, 9, 3, 7, 2};
  if (pass) {
    auto logits = session.forwardBatch(tokens, 0, true);
    return {logits.begin(), logits.end()};
  }
  std::vector<float> all;
  for (size_t i = 0; i < tokens.size(); ++i) {
    auto logits = session.forward(tokens[i], static_cast<int>(i));
    all.insert(all.end(), logits.begin(), logits.end());
  }
  return all;
}

// The model with every matrix back in the file's layout (its own copy of the bytes).
std::shared_ptr<Model> asStored(const Model& m) {
  auto copy = std::make_shared<Model>(m);
  const auto unpanel = [](QuantMatrix& q) {
    if (!q.panelled()) return;
    auto bytes = std::make_shared<std::vector<uint8_t>>(q.storedRows());
    QuantMatrix plain =
        QuantMatrix::stored(q.storedType(), bytes->data(), q.rows(), q.cols(), bytes);
    plain.setRowScales(q.rowScales());
    q = plain;
  };
  unpanel(copy->classifier);
  for (auto& l : copy->layers)
    for (QuantMatrix* q : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down}) unpanel(*q);
  return copy;
}

}  // namespace

int main() {
  const GgufKernels& kernels = activeGgufKernels();
  std::printf("kernels: %s (panel kernels: %s)\n", kernels.name,
              kernels.panels_q4_0 ? "yes" : "no: slabs unpacked to the stored layout");
  std::normal_distribution<float> normal(0.f, 1.f);
  for (TensorType type : {TensorType::Q4_0, TensorType::Q8_0}) {
    const std::string name = typeName(type);
    for (int blocks : {3, 13, 16}) {  // with and without a tail past groups of eight blocks
      const int rows = 48, cols = blocks * 32;
      const std::vector<uint8_t> bytes = randomRows(type, rows, blocks);
      const QuantMatrix stored = QuantMatrix::stored(type, bytes.data(), rows, cols, nullptr);
      const QuantMatrix panels = stored.inPanels();
      const std::string what = name + ", " + std::to_string(blocks) + " blocks: ";
      checkRepacked(stored, panels, what);
      const QuantMatrix runtime =
          panels.converted(type == TensorType::Q4_0 ? WeightFormat::Int4 : WeightFormat::Q8_0);
      bool values = true;
      for (int r = 0; r < rows; r += 7) values = values && runtime.at(r, 5) == stored.at(r, 5);
      check(values, what + "converted to the runtime format, the stored values");
      bool same = true;
      for (int tokens : {1, 5, 37}) {  // decode, a verify pass, a pass across two chunks
        std::vector<float> xs(static_cast<size_t>(tokens) * cols);
        for (float& v : xs) v = normal(rng);
        same = same && product(panels, xs, tokens, 0, rows) == product(stored, xs, tokens, 0, rows);
        same =
            same && product(panels, xs, tokens, 16, rows) == product(stored, xs, tokens, 16, rows);
      }
      check(same, what +
                      "products of 1, 5 and 37 positions, rows [0, 48) and [16, 48), equal "
                      "the stored rows' to the bit");
    }
  }
  for (TensorType type : {TensorType::Q4_K, TensorType::Q5_K, TensorType::Q6_K}) {
    // K types: their own arithmetic (each row's sum over a super-block one exact integer),
    // within rounding of the stored rows' products and the same for any number of positions
    const std::string name = typeName(type);
    for (int superblocks : {1, 3}) {
      const int rows = 48, cols = superblocks * 256;
      const std::vector<uint8_t> bytes = randomKRows(type, rows, superblocks);
      const QuantMatrix stored = QuantMatrix::stored(type, bytes.data(), rows, cols, nullptr);
      const QuantMatrix panels = stored.inPanels();
      const std::string what = name + ", " + std::to_string(superblocks) + " super-blocks: ";
      checkRepacked(stored, panels, what);
      std::vector<float> xs(static_cast<size_t>(37) * cols);
      for (float& v : xs) v = normal(rng);
      const auto pass = product(panels, xs, 37, 0, rows),
                 as_stored = product(stored, xs, 37, 0, rows);
      const auto part = product(panels, xs, 37, 16, rows), five = product(panels, xs, 5, 0, rows);
      bool close = true, same = true;
      float worst = 0;
      for (int t = 0; t < 37; ++t) {
        const auto one =
            product(panels, std::vector<float>(xs.begin() + t * cols, xs.begin() + (t + 1) * cols),
                    1, 0, rows);
        for (int r = 0; r < rows; ++r) {
          const size_t i = static_cast<size_t>(t) * rows + r;
          const float diff = std::fabs(pass[i] - as_stored[i]);
          worst = std::max(worst, diff);
          close = close && diff <= 1e-4f * (1 + std::fabs(as_stored[i]));
          same = same && one[r] == pass[i] && (r < 16 || part[i] == pass[i]) &&
                 (t >= 5 || five[i] == pass[i]);
        }
      }
      check(close, what +
                       "a pass of 37 positions within 1e-4 of the stored rows' products "
                       "(largest difference " +
                       std::to_string(worst) + ")");
      check(same, what +
                      "each position alone, in a pass of 5, of 37 and over rows [16, 48): "
                      "the same results to the bit");
    }
  }
  for (const bool bf16 : {false, true})
    for (int cols : {100, 256}) {  // F16 / BF16: 112 rows, a last super-panel of three slabs
      const int rows = 112;
      const TensorType type = bf16 ? TensorType::BF16 : TensorType::F16;
      const auto toHalf = [&](float v) {  // BF16: the top half of the f32 (truncated)
        uint32_t bits;
        std::memcpy(&bits, &v, 4);
        return bf16 ? static_cast<uint16_t>(bits >> 16) : f32ToF16(v);
      };
      const auto fromHalf = [&](uint16_t h) { return bf16 ? bf16ToF32(h) : f16ToF32(h); };
      std::vector<uint16_t> halves(static_cast<size_t>(rows) * cols);
      for (auto& h : halves) h = toHalf(normal(rng) * 0.1f);
      const auto* bytes = reinterpret_cast<const uint8_t*>(halves.data());
      const QuantMatrix stored = QuantMatrix::stored(type, bytes, rows, cols, nullptr);
      const QuantMatrix panels = stored.inPanels();
      const std::string what = typeName(type) + ", " + std::to_string(cols) + " columns: ";
      checkRepacked(stored, panels, what);
      // BF16 with AVX-512 BF16's pair products: activations rounded to bf16 (to nearest
      // even), two columns per instruction; every product the same whatever the tokens and
      // rows, and within f32 rounding of the exact sum of those bf16 products.
      const bool pairs = bf16 && activeGgufKernels().bf16_pairs;
      const auto toBf16 = [](float v) {
        uint32_t bits;
        std::memcpy(&bits, &v, 4);
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000u;
        float r;
        std::memcpy(&r, &bits, 4);
        return r;
      };
      bool chains = true, close = true;
      for (int tokens : {1, 5, 7, 37}) {  // decode, a verification, past groups of six
        std::vector<float> xs(static_cast<size_t>(tokens) * cols);
        for (float& v : xs) v = normal(rng);
        // pairs: each token alone over every row, what every other call must give
        std::vector<float> alone(static_cast<size_t>(tokens) * rows);
        if (pairs)
          for (int t = 0; t < tokens; ++t) {
            const std::vector<float> xt(xs.begin() + static_cast<size_t>(t) * cols,
                                        xs.begin() + static_cast<size_t>(t + 1) * cols);
            const auto one = product(panels, xt, 1, 0, rows);
            std::copy(one.begin(), one.end(), alone.begin() + static_cast<size_t>(t) * rows);
          }
        for (int begin : {0, 64, 16}) {  // 16: a range that cuts a super-panel
          const auto got = product(panels, xs, tokens, begin, rows);
          const auto as_stored = product(stored, xs, tokens, begin, rows);
          for (int t = 0; t < tokens; ++t)
            for (int r = begin; r < rows; ++r) {
              if (pairs) {
                double exact = 0, magnitude = 0;
                for (int k = 0; k < cols; ++k) {
                  const double term = double(fromHalf(halves[static_cast<size_t>(r) * cols + k])) *
                                      toBf16(xs[static_cast<size_t>(t) * cols + k]);
                  exact += term;
                  magnitude += std::fabs(term);
                }
                const float g = got[static_cast<size_t>(t) * rows + r];
                chains = chains && g == alone[static_cast<size_t>(t) * rows + r];
                close = close && std::fabs(g - exact) <= 1e-5 * (1 + magnitude);
                continue;
              }
              float chain = 0;  // the activations as F16 rows read them: rounded to f16 (BF16
                                // rows: as they are)
              for (int k = 0; k < cols; ++k) {
                const float xk = xs[static_cast<size_t>(t) * cols + k];
                chain = std::fma(fromHalf(halves[static_cast<size_t>(r) * cols + k]),
                                 bf16 ? xk : f16ToF32(f32ToF16(xk)), chain);
              }
              const float g = got[static_cast<size_t>(t) * rows + r],
                          s = as_stored[static_cast<size_t>(t) * rows + r];
              chains = chains && g == chain;
              close = close && std::fabs(g - s) <= 1e-5f * (1 + std::fabs(s));
            }
        }
      }
      if (pairs) {
        check(chains, what +
                          "AVX-512 BF16 pairs: products of 1, 5, 7 and 37 positions, rows [0, "
                          "112), [64, 112) and [16, 112), equal each token's alone, to the bit");
        check(close, what + "and within f32 rounding of the exact sum over bf16 activations");
        continue;
      }
      check(chains, what +
                        "products of 1, 5, 7 and 37 positions, rows [0, 112), [64, 112) and [16, "
                        "112), are each one f32 chain of FMAs in column order, to the bit");
      check(close, what + "and within 1e-5 of the stored rows' products");
    }
  {
    const std::vector<uint8_t> bytes = randomRows(TensorType::Q4_0, 40, 4);
    const QuantMatrix odd = QuantMatrix::stored(TensorType::Q4_0, bytes.data(), 40, 128, nullptr);
    check(!odd.panelsFit() && !odd.inPanels().panelled(),
          "40 rows (not whole slabs of 16) stay as stored");
  }

  // A model read from GGUF (or a BF16 safetensors folder): the matrices whose rows fill slabs
  // are panelled when the
  // kernels read panels; a pass and one-at-a-time decoding, on 2 threads (products split
  // in slabs), give the logits of the same file kept as stored, to the bit.
  ModelConfig c;
  c.architecture = "llama";
  c.source_format = "random";
  c.n_layers = 2;
  c.dim = 256;
  c.n_heads = 8;
  c.n_kv_heads = 2;
  c.head_dim = c.rope_dim = 32;
  c.ffn_dim = 688;  // 43 slabs
  c.vocab = 300;    // not whole slabs: the classifier stays as stored
  c.context = 64;
  c.rms_eps = 1e-6f;
  const auto model = randomModel(c, WeightFormat::F32, 11);
  ts::testing::TempDir dir("tokenscope-panels");
  // BF16: a Hugging Face folder (two shards), whose mapped rows are panelled the same way
  for (TensorType type : {TensorType::Q4_0, TensorType::Q8_0, TensorType::F16, TensorType::BF16}) {
    const bool hf = type == TensorType::BF16;
    const std::string name = typeName(type), path = dir / (name + (hf ? "-hf" : ".gguf"));
    HfWriteOptions bf16;
    bf16.dtype = "BF16";
    bf16.shards = 2;
    check((hf ? writeHfFolder(*model, path, bf16) : writeGguf(*model, path, type)).ok(),
          name + (hf ? ": safetensors folder written" : ": GGUF written"));
    LoadOptions options;
    options.cache = false;
    auto loaded = loadModel(path, options);
    if (!loaded) {
      check(false, name + ": " + loaded.error());
      continue;
    }
    const Model& m = *loaded.value();
    const bool expect = kernels.panels_q4_0 != nullptr;
    check(m.layers[0].w_gate.panelled() == expect && m.layers[1].wk.panelled() == expect &&
              !m.classifier.panelled() && m.layers[0].w_gate.storedType() == type,
          name + ": loaded " +
              (expect ? "in panels (300 classifier rows as stored)"
                      : "as stored (these kernels read no panels)"));
    // A long prompt (1,024 positions: enough work that the threads share the preparation of
    // each product's input, CpuSession::prepareInput, and the norms) gives the logits of every
    // position on two threads exactly as on one.
    const auto long_pass = [&](int threads) {
      std::vector<int> prompt(1024);
      for (size_t i = 0; i < prompt.size(); ++i) prompt[i] = static_cast<int>(i * 37 % c.vocab);
      CpuSession session(loaded.value(), 1024, KvFormat::F32, threads);
      auto logits = session.forwardBatch(prompt, 0, true);
      return std::vector<float>(logits.begin(), logits.end());
    };
    check(long_pass(2) == long_pass(1),
          name + ": a 1,024-position pass gives the same logits on 2 threads as on 1");
    const auto plain = asStored(m);
    const auto decoded = run(loaded.value(), false), passed = run(loaded.value(), true);
    if (type != TensorType::F16 && type != TensorType::BF16) {
      check(decoded == run(plain, false) && passed == run(plain, true) && decoded == passed,
            name +
                ": 6 positions decoded one at a time and in one pass give the stored layout's "
                "logits to the bit");
      continue;
    }
    const auto stored_logits = run(plain, false);
    float worst = 0;
    for (size_t i = 0; i < decoded.size(); ++i)
      worst = std::max(worst, std::fabs(decoded[i] - stored_logits[i]));
    // The stored layout multiplies BF16 rows with f32 activations; AVX-512 BF16's pairs read
    // them rounded to bf16 (8 bits of mantissa), hence the wider bound there.
    const float bound = type == TensorType::BF16 && kernels.bf16_pairs ? 2e-2f : 1e-3f;
    check(decoded == passed && worst < bound,
          name +
              ": 6 positions decoded one at a time and in one pass give the same logits "
              "to the bit, within " +
              std::to_string(bound) +
              " of the stored layout's (largest "
              "difference " +
              std::to_string(worst) + ")");
  }
  return ts::testing::finish();
}
