// The self-test's CPU-side checks, run with or without a device: the weight layouts the
// plugin is handed decode to the engine's values; the memory estimate counts exactly the
// bytes the engine holds; the CPU twins of the CUDA ops agree with double-precision
// formulas; the int8 KV cache rounds as the plugin's rule says; a model view cannot be
// copied; the plugin's entry points refuse bad arguments (shapes, rope_dim, int4 groups,
// matrices against the model's dimensions); a layer mixing formats is not fused; the
// estimate of a file's stored weights on CUDA equals what the plugin is handed.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <type_traits>

#include "inference/engine/backend/cuda_session.h"
#include "inference/engine/backend/gguf_subblocks.h"
#include "inference/engine/backend/memory_estimate.h"
#include "inference/engine/backend/model_memory.h"
#include "inference/engine/backend/plugin_model_checks.h"
#include "inference/engine/core/tensor_types.h"
#include "inference/engine/cpu/cpu_ops.h"
#include "inference/engine/formats/gguf_quantize.h"
#include "inference/engine/formats/model_info.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/model/kv_int8.h"
#include "inference/engine/model/random_model.h"
#include "tests/cuda/selftest.h"

namespace ts::selftest {
namespace {

using namespace ts::engine;

// W[r, c] read from the plugin's view as plugin_abi.h documents the layouts (the kernels
// read them the same way).
float layoutValue(const TsCudaMatrix& m, int r, int c) {
  const size_t padded = ts::cuda::paddedCols(m.cols), rr = r;
  switch (m.format) {
    case TS_CUDA_W_F32:
      return static_cast<const float*>(m.data)[rr * m.cols + c];
    case TS_CUDA_W_F16: {
      const uint16_t h = static_cast<const uint16_t*>(m.data)[rr * m.cols + c];
      return f16ToF32(h);
    }
    case TS_CUDA_W_INT8:
      return static_cast<const int8_t*>(m.data)[rr * padded + c] * m.scales[r];
    case TS_CUDA_W_Q8_0:
      return static_cast<const int8_t*>(m.data)[rr * padded + c] *
             m.scales[rr * (padded / 32) + c / 32];
    case TS_CUDA_W_INT4: {
      const uint8_t b = static_cast<const uint8_t*>(m.data)[rr * padded / 2 + c / 64 * 32 + c % 32];
      const int q = (c / 32) % 2 == 0 ? (b & 15) : (b >> 4);
      return (q - 8) * m.scales[rr * ts::cuda::int4Groups(m.cols, m.group) + c / m.group];
    }
    default: {  // a GGUF's stored rows: the plugin's own decoding (its CPU twin)
      float sub[32];
      ts::cuda::decodeSubBlock(
          m.format,
          static_cast<const uint8_t*>(m.data) + rr * ts::cuda::storedRowBytes(m.format, m.cols),
          c / 32, sub);
      return sub[c % 32];
    }
  }
}

void layoutChecks(Report& report) {
  struct Case {
    WeightFormat format;
    int group;
    const char* name;
  };
  const Case cases[] = {{WeightFormat::F32, 128, "f32"},       {WeightFormat::F16, 128, "f16"},
                        {WeightFormat::Int8, 128, "int8"},     {WeightFormat::Q8_0, 128, "q8_0"},
                        {WeightFormat::Int4, 32, "int4 g32"},  {WeightFormat::Int4, 64, "int4 g64"},
                        {WeightFormat::Int4, 128, "int4 g128"}};
  for (const Case& k : cases)
    // 32 rows: whole slabs of sixteen, which this CPU may hold in panels
    for (auto [rows, cols] :
         {std::pair{7, 64}, std::pair{5, 100}, std::pair{3, 4096}, std::pair{32, 96}}) {
      if (k.format == WeightFormat::Q8_0 && cols % 32) continue;  // Q8_0 needs whole blocks
      const QuantMatrix m =
          QuantMatrix::fromF32(randomVector(size_t(rows) * cols, rows * 31 + cols), rows, cols)
              .converted(k.format, k.group)
              .withoutPanels();  // the plugin's layout (the CPU may hold them in panels)
      const TsCudaMatrix v = cudaMatrixView(m);
      size_t mismatches = 0;
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) mismatches += layoutValue(v, r, c) != m.at(r, c);
      const size_t bytes = ts::cuda::matrixBytes(v);
      report.check(
          "layout " + std::string(k.name) + " " + std::to_string(rows) + "x" + std::to_string(cols),
          mismatches == 0 && bytes == m.bytes(),
          std::to_string(mismatches) + " values differ; " + std::to_string(bytes) +
              " bytes vs the engine's " + std::to_string(m.bytes()));
    }
}

// A one-layer model whose every matrix is `w` [rows, n] (its classifier too): width and
// FFN n, vocabulary rows, two heads. Only for handing to CudaModelView (shapes unchecked).
Model oneLayerModel(const QuantMatrix& w, QuantMatrix table) {
  const int n = w.cols();
  Model m;
  m.config = shapeConfig("llama-tiny", 1).value();
  m.config.dim = m.config.ffn_dim = n;
  m.config.n_heads = m.config.n_kv_heads = 2;
  m.config.head_dim = m.config.rope_dim = n / 2;
  m.config.vocab = w.rows();
  m.token_embd = std::move(table);
  m.output_norm = WeightBuffer<float>(n, 1.f);
  m.classifier = w;
  m.layers.resize(1);
  LayerWeights& l = m.layers[0];
  l.attn_norm = l.ffn_norm = WeightBuffer<float>(n, 1.f);
  l.wq = l.wk = l.wv = l.wo = l.w_up = l.w_gate = l.w_down = w;
  return m;
}

// A BF16 checkpoint's matrices (Baichuan2 as published) go up as stored, value for value:
// the file's own bytes where the CPU keeps its rows, one copy of the rows where it holds
// them in panels. A NormHead classifier (row scales applied) goes up converted: f16, or
// f32 where a value passes f16's range.
void bf16UploadChecks(Report& report) {
  const int rows = 32, cols = 64;
  std::vector<uint16_t> fits(rows * cols), wide(rows * cols);
  const auto random = randomVector(size_t(rows) * cols, 77);
  for (size_t i = 0; i < fits.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &random[i], 4);
    fits[i] = wide[i] = static_cast<uint16_t>(bits >> 16);
  }
  wide[5] = 0x4780;  // 65536: past f16's largest finite value
  const QuantMatrix a =
      QuantMatrix::stored(TensorType::BF16, reinterpret_cast<const uint8_t*>(fits.data()), rows,
                          cols, nullptr)
          .inPanels();  // as the CPU holds it after loading
  const QuantMatrix b = QuantMatrix::stored(
      TensorType::BF16, reinterpret_cast<const uint8_t*>(wide.data()), rows, cols, nullptr);
  const QuantMatrix c = QuantMatrix::stored(
      TensorType::BF16, reinterpret_cast<const uint8_t*>(fits.data()), rows, cols, nullptr);
  Model m = oneLayerModel(a, QuantMatrix::fromF32(random, rows, cols));
  m.layers[0].w_down = b;
  m.layers[0].w_up = c;  // unpanelled
  const auto differing = [&](const TsCudaMatrix& v, const QuantMatrix& want, float scale) {
    size_t mismatches = 0;
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) mismatches += layoutValue(v, r, c) != scale * want.at(r, c);
    return mismatches;
  };
  {
    const CudaModelView view(m);
    const TsCudaMatrix& head = view.get().classifier;
    const size_t wrong = differing(head, a, 1.f);
    report.check(
        "BF16 matrices go up as stored BF16, value for value (panelled: one copy)",
        head.format == TS_CUDA_W_BF16 && wrong == 0 && head.data != a.storage(),
        "format " + std::to_string(head.format) + ", " + std::to_string(wrong) + " values differ");
    const TsCudaMatrix& up = view.get().layers[0].up;
    report.check(
        "an unpanelled BF16 matrix goes up from its own bytes (no copy)",
        up.format == TS_CUDA_W_BF16 && up.data == c.storage() && differing(up, c, 1.f) == 0,
        "format " + std::to_string(up.format));
    const TsCudaMatrix& down = view.get().layers[0].down;
    report.check(
        "a BF16 matrix past f16's range goes up as f32 (prefill's f16 inputs could not "
        "hold 65536)",
        down.format == TS_CUDA_W_F32 && layoutValue(down, 0, 5) == 65536.f,
        "format " + std::to_string(down.format));
  }
  std::vector<float> halves(rows, 0.5f);
  m.classifier = QuantMatrix::stored(
      TensorType::BF16, reinterpret_cast<const uint8_t*>(fits.data()), rows, cols, nullptr);
  m.classifier.setRowScales(halves);
  {
    const CudaModelView view(m);
    const TsCudaMatrix& head = view.get().classifier;
    const QuantMatrix plain = QuantMatrix::stored(
        TensorType::BF16, reinterpret_cast<const uint8_t*>(fits.data()), rows, cols, nullptr);
    report.check("a NormHead BF16 classifier goes up as f16 with its row scales applied",
                 head.format == TS_CUDA_W_F16 && differing(head, plain, 0.5f) == 0,
                 "format " + std::to_string(head.format));
  }
  m.classifier = b;
  m.classifier.setRowScales(halves);
  const CudaModelView view(m);
  const TsCudaMatrix& head = view.get().classifier;
  report.check("a NormHead BF16 classifier past f16's range goes up as f32",
               head.format == TS_CUDA_W_F32 && layoutValue(head, 0, 5) == 32768.f &&
                   !bf16FitsF16(b) && bf16FitsF16(a),
               "format " + std::to_string(head.format));
}

void estimateChecks(Report& report) {
  for (const auto& [arch, c] : architectureConfigs()) {
    const std::string shape = arch;
    for (WeightFormat f : {WeightFormat::F32, WeightFormat::Int8, WeightFormat::Int4}) {
      auto model = randomModel(c, f, 7);
      const CudaModelView view(*model);
      size_t engine_bytes =
          model->weight_bytes() + model->token_embd.bytes() + model->output_norm.size() * 4;
      for (const auto& l : model->layers)
        engine_bytes += (l.attn_norm.size() + l.ffn_norm.size()) * 4;
      if (c.positional == Positional::Alibi) engine_bytes += c.n_heads * 4;
      const size_t estimate = ts::cuda::weightBytes(view.get());
      report.check(
          "estimate weights " + shape + " " + weightFormatName(f), estimate == engine_bytes,
          std::to_string(estimate) + " bytes, the engine holds " + std::to_string(engine_bytes));
      for (KvFormat kv : {KvFormat::F32, KvFormat::F16, KvFormat::Int8}) {
        const KvCache cache(c.n_layers, 100, c.n_kv_heads, c.head_dim, kv);
        const size_t est = ts::cuda::kvCacheBytes(view.get(), 100, cudaKvFormat(kv));
        if (f == WeightFormat::F32)
          report.check("estimate KV " + shape + " " + kvFormatName(kv),
                       est == cache.capacityBytes(),
                       std::to_string(est) + " bytes, the CPU cache " +
                           std::to_string(cache.capacityBytes()));
      }
    }
  }
  // Baichuan2-7B at int4 with an int8 cache of 4096 positions: the figures a user sees.
  const CudaModelView b2(shapeConfig("baichuan2-7b").value(), WeightFormat::Int4, 128, 1);
  TsCudaSessionOptions o{0, 4096, TS_CUDA_KV_INT8, 512, 1};
  const TsCudaMemory e = ts::cuda::estimateMemory(b2.get(), o);
  const size_t kv_expected = size_t{2} * 32 * 4096 * 32 * (128 + 4);
  // f32 embeddings (125,696 x 4096 x 4 bytes) + int4 matrices: 4 bits and a scale per 128
  const size_t embeddings = size_t{125696} * 4096 * 4;
  const size_t per_layer = size_t{4096} * 4096 * 4 + size_t{3} * 11008 * 4096;  // weights
  const size_t int4 = (per_layer * 32 + size_t{125696} * 4096) / 2 * (1 + 8.0 / 128);
  const double ratio = double(e.weights) / (embeddings + int4);
  report.check("estimate baichuan2-7b int4, int8 KV 4096",
               e.kv_cache == kv_expected && ratio > 0.999 && ratio < 1.001 &&
                   e.total == e.weights + e.kv_cache + e.workspace,
               "weights " + std::to_string(e.weights >> 20) + " MiB, KV " +
                   std::to_string(e.kv_cache >> 20) + " MiB, workspace " +
                   std::to_string(e.workspace >> 20) + " MiB");
}

void twinChecks(Report& report) {
  const int dim = 300;
  auto x = randomVector(dim, 1), w = randomVector(dim, 2);
  std::vector<float> out(dim), want(dim);
  rmsnorm(out.data(), x.data(), w.data(), dim, 1e-5f);
  double ss = 0;
  for (float v : x) ss += double(v) * v;
  for (int i = 0; i < dim; ++i) want[i] = float(w[i] * x[i] / std::sqrt(ss / dim + 1e-5));
  report.close("cpu twin rmsnorm vs f64", normalisedError(out, want), 1e-6);

  auto r = randomVector(4 * 64, 3);
  std::vector<float> rotated = r;
  rope(rotated.data(), 4, 64, 64, 1234, 10000.f);
  for (int h = 0; h < 4; ++h)
    for (int i = 0; i < 64; i += 2) {
      const double angle = 1234.0 * std::pow(10000.0, -double(i) / 64);
      const double a = r[h * 64 + i], b = r[h * 64 + i + 1];
      want.resize(4 * 64);
      want[h * 64 + i] = float(a * std::cos(angle) - b * std::sin(angle));
      want[h * 64 + i + 1] = float(a * std::sin(angle) + b * std::cos(angle));
    }
  report.close("cpu twin rope (pos 1234) vs f64", normalisedError(rotated.data(), want.data(), 256),
               1e-4);

  auto g = randomVector(500, 4, 6.f), u = randomVector(500, 5);
  std::vector<float> s = g;
  swiglu(s.data(), u.data(), s.size());
  want.resize(500);
  for (int i = 0; i < 500; ++i) want[i] = float(g[i] / (1 + std::exp(-double(g[i]))) * u[i]);
  report.close("cpu twin swiglu vs f64", normalisedError(s, want), 1e-6);

  const int hd = 64, len = 50;
  KvCache cache(1, len, 1, hd, KvFormat::F32);
  std::vector<std::vector<float>> keys, values;
  for (int t = 0; t < len; ++t) {
    keys.push_back(randomVector(hd, 100 + t));
    values.push_back(randomVector(hd, 200 + t));
    cache.store(0, t, keys.back().data(), values.back().data());
  }
  auto q = randomVector(hd, 6, 2.f);
  std::vector<float> scratch(len), att(hd), expect(hd, 0.f);
  const float slope = 0.0625f;
  attendHead(cache, 0, q.data(), len - 1, 0, hd, slope, scratch.data(), att.data());
  std::vector<double> p(len);
  double mx = -1e300, total = 0;
  for (int t = 0; t < len; ++t) {
    double dot = 0;
    for (int d = 0; d < hd; ++d) dot += double(q[d]) * keys[t][d];
    p[t] = dot / std::sqrt(double(hd)) + slope * (t - (len - 1));
    mx = std::max(mx, p[t]);
  }
  for (double& v : p) total += (v = std::exp(v - mx));
  for (int t = 0; t < len; ++t)
    for (int d = 0; d < hd; ++d) expect[d] += float(p[t] / total * values[t][d]);
  report.close("cpu twin attention (ALiBi slope) vs f64", normalisedError(att, expect), 1e-5);
}

// The int8 KV cache's rule (model/kv_int8.h), which the plugin's write kernel shares: ties
// round away from zero (lround's rule; the device's rintf rounded them to even before), and
// the CPU cache stores exactly what the rule gives.
void kvInt8Checks(Report& report) {
  const bool ties = kv_int8::quantize(2.5f, 1.f) == 3 && kv_int8::quantize(-2.5f, 1.f) == -3 &&
                    kv_int8::quantize(0.5f, 1.f) == 1 && kv_int8::quantize(1.5f, 1.f) == 2 &&
                    kv_int8::quantize(300.f, 1.f) == 127 && kv_int8::quantize(-300.f, 1.f) == -127;
  report.check("int8 KV rule: ties away from zero (2.5 -> 3, -2.5 -> -3, 0.5 -> 1), clamped to 127",
               ties);
  const int hd = 64;
  std::vector<float> k(hd), v(hd);
  for (int d = 0; d < hd; ++d) {  // amax 127: scale 1, every other value a tie
    k[d] = d == 0 ? 127.f : (d % 2 ? 0.5f : -1.5f) * (1 + d % 5);
    v[d] = d == 0 ? -127.f : d * 0.5f - 16.f;
  }
  KvCache cache(1, 1, 1, hd, KvFormat::Int8);
  cache.store(0, 0, k.data(), v.data());
  bool same = true;
  for (bool values : {false, true}) {
    const KvCache::Rows r = cache.rows(0, 0, 0, values);
    const float* src = values ? v.data() : k.data();
    same = same && r.scale[0] == kv_int8::scaleFor(127.f);
    for (int d = 0; d < hd; ++d)
      same = same && static_cast<const int8_t*>(r.data)[d] == kv_int8::quantize(src[d], r.scale[0]);
  }
  report.check("the CPU int8 KV cache stores the rule's values (ties included)", same);
  report.check("CudaModelView cannot be copied or moved (it points into itself)",
               !std::is_copy_constructible_v<CudaModelView> &&
                   !std::is_move_constructible_v<CudaModelView> &&
                   !std::is_copy_assignable_v<CudaModelView>);
}

// The rules a model meets at the plugin's boundary (plugin_model_checks.h), which the
// entry points apply before estimating or uploading anything.
void boundaryChecks(Report& report) {
  auto model = randomModel(architectureConfigs()[0].second, WeightFormat::Int4, 7);
  const CudaModelView view(*model);
  report.check("a loaded model passes the boundary's checks",
               ts::cuda::modelProblem(view.get()).empty(), ts::cuda::modelProblem(view.get()));
  const auto problem = [&](auto change) {
    TsCudaModel m = view.get();
    std::vector<TsCudaLayer> layers(m.layers, m.layers + m.n_layers);
    m.layers = layers.data();
    change(m, layers);
    return ts::cuda::modelProblem(m);
  };
  const auto starts = [](const std::string& text, const std::string& prefix) {
    return text.compare(0, prefix.size(), prefix) == 0;
  };
  const std::string odd = problem([](TsCudaModel& m, auto&) { m.rope_dim = 63; });
  report.check("an odd rope_dim is refused (it would turn a pair across two heads)",
               starts(odd, "expected an even rope_dim from 0 to head_dim (64), found 63"), odd);
  const std::string wide = problem([](TsCudaModel& m, auto&) { m.rope_dim = 66; });
  report.check("a rope_dim past head_dim is refused (it would write into the next head)",
               starts(wide, "expected an even rope_dim from 0 to head_dim (64), found 66"), wide);
  const std::string group = problem([](TsCudaModel& m, auto&) { m.classifier.group = 0; });
  report.check(
      "int4 group 0 is refused before the estimate divides by it",
      starts(group, "classifier: expected an int4 group of 32, 64 or 128 inputs, found 0") &&
          ts::cuda::int4Groups(4096, 0) == 0,
      group);
  const std::string rows = problem([](TsCudaModel&, auto& layers) { layers[1].wv.rows += 64; });
  report.check(
      "a matrix whose rows do not match the model's dimensions is refused",
      starts(rows, "layer 1 wv: expected 256 x 256 (the model's dimensions), found 320 x 256"),
      rows);
  const std::string cols = problem([](TsCudaModel&, auto& layers) { layers[0].down.cols = 512; });
  report.check("a matrix whose cols do not match the model's dimensions is refused",
               starts(cols, "layer 0 down: expected 256 x 688"), cols);
  const std::string scales =
      problem([](TsCudaModel&, auto& layers) { layers[0].gate.scales = nullptr; });
  report.check("an int4 matrix without scales is refused",
               starts(scales, "layer 0 gate: expected its data and scales, found a null pointer"),
               scales);
}

// Which products a layer fuses: q / k / v and gate / up in one launch only when their
// formats agree (a launch reads one layout).
void launchChecks(Report& report) {
  std::shared_ptr<Model> model =
      randomModel(architectureConfigs()[0].second, WeightFormat::Int4, 9);
  LayerWeights& mixed = model->layers[1];
  mixed.wv = mixed.wv.converted(WeightFormat::Q8_0);
  mixed.w_up = mixed.w_up.converted(WeightFormat::F16);
  const CudaModelView view(*model);
  const ts::cuda::LayerLaunches uniform = ts::cuda::layerLaunches(view.get().layers[0]);
  const ts::cuda::LayerLaunches split = ts::cuda::layerLaunches(view.get().layers[1]);
  report.check(
      "a uniform layer fuses q/k/v and gate/up; one with a q8_0 wv and an f16 up "
      "splits both",
      uniform.qkv_fused && uniform.gate_up_fused && !split.qkv_fused && !split.gate_up_fused &&
          view.get().layers[1].wv.format == TS_CUDA_W_Q8_0 &&
          view.get().layers[1].up.format == TS_CUDA_W_F16);
}

// The CPU twin of the device's stored-row decoding (gguf_subblocks.h, compiled here by the
// host compiler) against the engine's dequantizers, bit for bit: every type the device
// reads as stored, from rows the engine's quantizer writes and from ktiny's Q5_K matrices.
void storedTwinChecks(Report& report, const std::string& models_dir) {
  const auto compare = [&](const std::string& name, TensorType type, const uint8_t* data, int rows,
                           int cols) {
    const int format = cudaStoredFormat(type);
    const size_t row_bytes = ts::cuda::storedRowBytes(format, cols);
    size_t mismatches = 0;
    std::vector<float> want(cols), got(32);
    for (int r = 0; r < rows; ++r) {
      const uint8_t* row = data + static_cast<size_t>(r) * row_bytes;
      dequantize(type, {row, rowBytes(type, cols)}, want.data(), cols);
      for (int j = 0; j < cols / 32; ++j) {
        ts::cuda::decodeSubBlock(format, row, j, got.data());
        for (int e = 0; e < 32; ++e) mismatches += std::memcmp(&got[e], &want[32 * j + e], 4) != 0;
      }
    }
    report.check("cpu twin of the device's " + name + " rows = the engine's dequantizer",
                 format >= 0 && row_bytes == rowBytes(type, cols) && mismatches == 0,
                 std::to_string(mismatches) + " of " + std::to_string(size_t(rows) * cols) +
                     " values differ");
  };
  const int rows = 24, cols = 768;
  const auto x = randomVector(size_t(rows) * cols, 5, 2.f);
  for (TensorType type : {TensorType::F16, TensorType::BF16, TensorType::Q8_0, TensorType::Q4_0,
                          TensorType::Q4_K, TensorType::Q6_K}) {
    const std::vector<uint8_t> bytes = quantizeRows(type, x.data(), rows, cols);
    compare(typeName(type), type, bytes.data(), rows, cols);
  }
  const std::filesystem::path q5 =
      std::filesystem::path(models_dir) / "ktiny" / "ktiny-Q5_K_M.gguf";
  LoadOptions o;
  o.cache = false;
  if (!std::filesystem::exists(q5)) {
    report.note("the Q5_K twin check skipped: " + q5.string() + " is absent");
    return;
  }
  auto model = loadModel(q5.string(), o);
  if (!report.check("ktiny Q5_K_M loads", model.ok(), model.ok() ? "" : model.error())) return;
  const QuantMatrix& m = model.value()->layers[0].wq;
  const std::vector<uint8_t> stored = m.storedRows();
  compare("Q5_K (ktiny blk.0.attn_q)", m.storedType(), stored.data(), m.rows(), m.cols());
}

// Weights "auto" on CUDA: the estimate from the file's headers (each stored matrix in the
// format it goes up in) equals the bytes the plugin is handed for the loaded model.
void storedEstimateChecks(Report& report, const std::string& models_dir) {
  const std::filesystem::path models(models_dir);
  if (!std::filesystem::exists(models / "ktiny")) {
    report.note("stored-weights estimates skipped: " + (models / "ktiny").string() + " is absent");
    return;
  }
  std::vector<std::pair<std::string, std::filesystem::path>> files;
  for (const char* type : {"F16", "Q8_0", "Q4_0", "Q4_K_M", "Q5_K_M", "Q6_K"})
    files.emplace_back(std::string("ktiny ") + type,
                       models / "ktiny" / ("ktiny-" + std::string(type) + ".gguf"));
  files.emplace_back("baichuan2-tiny 7b-bf16", models / "baichuan2-tiny" / "7b-bf16");
  files.emplace_back("baichuan2-tiny 13b-sharded-f16",
                     models / "baichuan2-tiny" / "13b-sharded-f16");
  for (const auto& [label, path] : files) {
    auto summary = inspectModel(path.string());
    LoadOptions o;
    o.cache = false;
    auto model = loadModel(path.string(), o);
    if (!report.check("estimate CUDA auto " + label + ": inspects and loads",
                      summary.ok() && model.ok(),
                      !summary.ok() ? summary.error()
                      : model.ok()  ? ""
                                    : model.error()))
      continue;
    const MemoryEstimate e =
        estimateMemory(summary->config, WeightFormat::Stored, 128, 64, KvFormat::F16, true,
                       summary->tensor_bytes, summary->matrices);
    const CudaModelView view(*model.value());
    const size_t held = ts::cuda::weightBytes(view.get());
    report.check(
        "estimate CUDA auto " + label + " = the bytes the plugin is handed", e.weights == held,
        std::to_string(e.weights) + " estimated, " + std::to_string(held) + " handed over");
  }
}

// rc != 0 and the message starts as expected.
void refused(Report& report, const std::string& name, int rc, const char* error,
             const std::string& expected) {
  std::string quoted = "'";  // (GCC 12 warns falsely on "'" + std::string(error))
  quoted.append(error).append("'");
  report.check(name, rc != 0 && std::strncmp(error, expected.c_str(), expected.size()) == 0,
               quoted);
}

}  // namespace

void cpuChecks(Report& report, const std::string& models_dir) {
  layoutChecks(report);
  estimateChecks(report);
  storedEstimateChecks(report, models_dir);
  storedTwinChecks(report, models_dir);
  boundaryChecks(report);
  launchChecks(report);
  bf16UploadChecks(report);
  twinChecks(report);
  kvInt8Checks(report);
}

void abiChecks(Report& report, const TsCudaApi& api) {
  char err[512] = {};
  double gb = 0;
  refused(report, "copy_bandwidth with 0 iterations is refused",
          api.copy_bandwidth(0, 1 << 20, 0, &gb, err, sizeof err), err,
          "copy_bandwidth: expected 1 to 10,000 iterations, found 0");
  refused(report, "copy_bandwidth of 0 bytes is refused",
          api.copy_bandwidth(0, 0, 5, &gb, err, sizeof err), err,
          "copy_bandwidth: expected bytes > 0, found 0");
  const int token = 1;
  float logits = 0;
  refused(report, "session_forward without a session is refused",
          api.session_forward(nullptr, &token, 1, 0, 0, &logits, err, sizeof err), err,
          "session_forward: expected a session, found a null pointer");
  TsCudaModel model{};
  TsCudaSessionOptions options{};
  options.max_positions = 16;
  TsCudaSession* session = nullptr;
  refused(report, "session_create of a model without layers is refused",
          api.session_create(&model, &options, &session, err, sizeof err), err,
          "session_create: expected a model with layers");
  TsCudaMemory memory{};
  refused(report, "estimate without options is refused",
          api.estimate(&model, nullptr, &memory, err, sizeof err), err,
          "estimate: expected session options, found a null pointer");
  const CudaModelView tiny(architectureConfigs()[0].second, WeightFormat::Int4, 32, 1);
  TsCudaModel odd = tiny.get();
  odd.rope_dim = 63;
  options.max_positions = 16;
  refused(report, "estimate of a model with an odd rope_dim is refused",
          api.estimate(&odd, &options, &memory, err, sizeof err), err,
          "estimate: expected an even rope_dim from 0 to head_dim (64), found 63");
  TsCudaModel grouped = tiny.get();
  grouped.classifier.group = 0;
  refused(report, "session_create of int4 group 0 is refused (no division by zero)",
          api.session_create(&grouped, &options, &session, err, sizeof err), err,
          "session_create: classifier: expected an int4 group of 32, 64 or 128 inputs, found 0");
  refused(report, "op_rmsnorm of 0 rows is refused",
          api.op_rmsnorm(&logits, &logits, 0, 4, 1e-5f, &logits, err, sizeof err), err,
          "op_rmsnorm: expected count and dim > 0, found 0, 4");
}

}  // namespace ts::selftest
