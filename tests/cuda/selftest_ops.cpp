// The self-test's per-op checks on a device: every CUDA op against its CPU twin on
// seeded non-zero inputs, outputs poisoned before each op (plugin_ops.cu), with a
// normalised-error limit per path and dtype.
#include <string>

#include "inference/engine/backend/cuda_session.h"
#include "inference/engine/core/tensor_types.h"
#include "inference/engine/cpu/cpu_forward.h"
#include "inference/engine/cpu/cpu_ops.h"
#include "inference/engine/formats/gguf_quantize.h"
#include "inference/engine/model/positional.h"
#include "inference/engine/model/quant_matrix.h"
#include "tests/cuda/selftest.h"

namespace ts::selftest {
namespace {

using namespace ts::engine;

std::string dims(std::initializer_list<int> values) {
  std::string s;
  for (int v : values) s += (s.empty() ? "" : "x") + std::to_string(v);
  return s;
}

// The CPU cache's rows [0, length) read back as f32 [length, kv_heads, head_dim], as the
// plugin's kvRead reads its cache (int8: value x its row's scale).
std::vector<float> cpuCacheRows(const KvCache& cache, int length, int kv_heads, int hd, KvFormat kv,
                                bool values) {
  std::vector<float> out;
  for (int t = 0; t < length; ++t)
    for (int h = 0; h < kv_heads; ++h) {
      const KvCache::Rows r = cache.rows(0, t, h, values);
      for (int d = 0; d < hd; ++d)
        out.push_back(kv == KvFormat::F32   ? static_cast<const float*>(r.data)[d]
                      : kv == KvFormat::F16 ? f16ToF32(static_cast<const uint16_t*>(r.data)[d])
                                            : static_cast<const int8_t*>(r.data)[d] * r.scale[0]);
    }
  return out;
}

void elementwise(Report& report, const TsCudaApi& api) {
  char err[1024] = {};
  const int vocab = 300, dim = 96;
  const auto table = randomVector(size_t(vocab) * dim, 11);
  const std::vector<int> tokens = {0, 299, 17, 17, 5};
  std::vector<float> out(tokens.size() * dim), want;
  for (int t : tokens)
    want.insert(want.end(), table.begin() + t * dim, table.begin() + (t + 1) * dim);
  if (api.op_embedding(table.data(), vocab, dim, tokens.data(), 5, out.data(), err, sizeof err))
    report.check("op embedding", false, err);
  else
    report.close("op embedding 5 of 300x96", normalisedError(out, want), 1e-7);

  for (int d : {64, 100, 4096}) {
    const int count = 3;
    const auto x = randomVector(size_t(count) * d, d), w = randomVector(d, d + 1);
    std::vector<float> got(x.size()), expect(x.size());
    for (int i = 0; i < count; ++i)
      rmsnorm(expect.data() + i * d, x.data() + i * d, w.data(), d, 1e-6f);
    if (api.op_rmsnorm(x.data(), w.data(), count, d, 1e-6f, got.data(), err, sizeof err))
      report.check("op rmsnorm", false, err);
    else
      report.close("op rmsnorm " + dims({count, d}), normalisedError(got, expect), 1e-5);
  }

  for (auto [hd, rope_dim, pos] :
       {std::tuple{128, 128, 0}, std::tuple{128, 64, 37}, std::tuple{64, 64, 4000}}) {
    const int count = 3, heads = 4;
    auto x = randomVector(size_t(count) * heads * hd, pos + hd);
    auto expect = x;
    for (int i = 0; i < count; ++i)
      rope(expect.data() + i * heads * hd, heads, hd, rope_dim, pos + i, 10000.f);
    if (api.op_rope(x.data(), count, heads, hd, rope_dim, pos, 10000.f, err, sizeof err))
      report.check("op rope", false, err);
    else  // 1 ulp of a 4000-radian angle is 2.4e-4 rad
      report.close("op rope head_dim " + std::to_string(hd) + " rope_dim " +
                       std::to_string(rope_dim) + " pos " + std::to_string(pos),
                   normalisedError(x, expect), 5e-4);
  }

  const auto gate = randomVector(1000, 21, 6.f), up = randomVector(1000, 22);
  std::vector<float> got(1000), expect = gate;
  swiglu(expect.data(), up.data(), expect.size());
  if (api.op_swiglu(gate.data(), up.data(), 1000, got.data(), err, sizeof err))
    report.check("op swiglu", false, err);
  else
    report.close("op swiglu 1000", normalisedError(got, expect), 1e-6);
}

void matmuls(Report& report, const TsCudaApi& api) {
  struct Format {
    WeightFormat format;
    int group;
    const char* name;
  };
  const Format formats[] = {
      {WeightFormat::F32, 128, "f32"},        {WeightFormat::F16, 128, "f16"},
      {WeightFormat::Int8, 128, "int8"},      {WeightFormat::Q8_0, 128, "q8_0"},
      {WeightFormat::Int4, 128, "int4 g128"}, {WeightFormat::Int4, 32, "int4 g32"}};
  char err[1024] = {};
  for (const Format& f : formats)
    for (auto [rows, cols] : {std::pair{33, 64}, std::pair{300, 100}, std::pair{512, 4096}}) {
      if (f.format == WeightFormat::Q8_0 && cols % 32) continue;
      const QuantMatrix m =
          QuantMatrix::fromF32(randomVector(size_t(rows) * cols, rows + cols, 0.05f), rows, cols)
              .converted(f.format, f.group)
              .withoutPanels();  // the plugin's layout (the CPU may hold them in panels)
      std::vector<float> dense(size_t(rows) * cols);  // the exact stored values
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) dense[size_t(r) * cols + c] = m.at(r, c);
      const TsCudaMatrix view = cudaMatrixView(m);
      for (auto [count, path, residual] :
           {std::tuple{1, 1, false}, std::tuple{5, 1, true}, std::tuple{8, 1, false},
            std::tuple{9, 1, true}, std::tuple{9, 2, false}, std::tuple{40, 2, true}}) {
        const auto x = randomVector(size_t(count) * cols, count * 7 + cols);
        const auto res = randomVector(size_t(count) * rows, 99);
        std::vector<float> got(size_t(count) * rows), want(got.size());
        for (int t = 0; t < count; ++t)
          for (int r = 0; r < rows; ++r) {
            double s = residual ? res[size_t(t) * rows + r] : 0.0;
            for (int c = 0; c < cols; ++c)
              s += double(dense[size_t(r) * cols + c]) * x[size_t(t) * cols + c];
            want[size_t(t) * rows + r] = float(s);
          }
        const std::string name = std::string("op matmul ") + f.name + " " + dims({rows, cols}) +
                                 " x" + std::to_string(count) +
                                 (path == 1 ? " matvec" : " cuBLAS") +
                                 (residual ? " +residual" : "");
        if (api.op_matmul(&view, x.data(), count, residual ? res.data() : nullptr, path, got.data(),
                          err, sizeof err)) {
          report.check(name, false, err);
          continue;
        }
        // cuBLAS takes f16 inputs for every format but f32 (f32 accumulation).
        const double limit = path == 1 || f.format == WeightFormat::F32 ? 1e-5 : 3e-3;
        report.close(name, normalisedError(got, want), limit);
      }
    }
}

// A GGUF's rows as stored (the engine's quantizer writes them), multiplied on the device
// against the CPU twin's decoded values in f64: the fused matvec (1, 5 and 9 positions) and
// cuBLAS after the stored-row dequantize.
void storedMatmuls(Report& report, const TsCudaApi& api) {
  char err[1024] = {};
  for (TensorType type : {TensorType::F16, TensorType::BF16, TensorType::Q8_0, TensorType::Q4_0,
                          TensorType::Q4_K, TensorType::Q6_K})
    for (auto [rows, cols] : {std::pair{33, 256}, std::pair{512, 4096}}) {
      const auto values = randomVector(size_t(rows) * cols, rows * 3 + cols, 0.05f);
      const std::vector<uint8_t> bytes = quantizeRows(type, values.data(), rows, cols);
      TsCudaMatrix view{};
      view.format = cudaStoredFormat(type);
      view.rows = rows;
      view.cols = cols;
      view.group = 32;
      view.data = bytes.data();
      std::vector<float> dense(size_t(rows) * cols);
      dequantize(type, bytes, dense.data(), dense.size());
      for (auto [count, path] :
           {std::pair{1, 1}, std::pair{5, 1}, std::pair{9, 1}, std::pair{40, 2}}) {
        const auto x = randomVector(size_t(count) * cols, count * 11 + cols);
        std::vector<float> got(size_t(count) * rows), want(got.size());
        for (int t = 0; t < count; ++t)
          for (int r = 0; r < rows; ++r) {
            double sum = 0;
            for (int c = 0; c < cols; ++c)
              sum += double(dense[size_t(r) * cols + c]) * x[size_t(t) * cols + c];
            want[size_t(t) * rows + r] = float(sum);
          }
        const std::string name = "op matmul stored " + typeName(type) + " " + dims({rows, cols}) +
                                 " x" + std::to_string(count) + (path == 1 ? " matvec" : " cuBLAS");
        if (api.op_matmul(&view, x.data(), count, nullptr, path, got.data(), err, sizeof err)) {
          report.check(name, false, err);
          continue;
        }
        report.close(name, normalisedError(got, want), path == 1 ? 1e-5 : 3e-3);
      }
    }
}

void attentions(Report& report, const TsCudaApi& api) {
  char err[1024] = {};
  struct Shape {
    int heads, kv_heads, hd;
    bool alibi;
  };
  for (const Shape& s : {Shape{8, 2, 64, false}, Shape{5, 5, 128, true}})
    for (KvFormat kv : {KvFormat::F32, KvFormat::F16, KvFormat::Int8})
      for (auto [pos, count, path] :
           {std::tuple{0, 1, 1}, std::tuple{100, 1, 1}, std::tuple{700, 5, 1}, std::tuple{0, 40, 2},
            std::tuple{300, 40, 2}}) {
        const int length = pos + count, kvw = s.kv_heads * s.hd, qw = s.heads * s.hd;
        const auto k = randomVector(size_t(length) * kvw, 31 + pos),
                   v = randomVector(size_t(length) * kvw, 32 + pos);
        const auto q = randomVector(size_t(count) * qw, 33 + count);
        const std::vector<float> slopes = s.alibi ? alibiSlopes(s.heads) : std::vector<float>();
        KvCache cache(1, length, s.kv_heads, s.hd, kv);
        for (int t = 0; t < length; ++t)
          cache.store(0, t, k.data() + size_t(t) * kvw, v.data() + size_t(t) * kvw);
        std::vector<float> want(size_t(count) * qw), scratch(length);
        for (int i = 0; i < count; ++i)
          for (int h = 0; h < s.heads; ++h)
            attendHead(cache, 0, q.data() + size_t(i) * qw + h * s.hd, pos + i,
                       h / (s.heads / s.kv_heads), s.hd, s.alibi ? slopes[h] : 0.f, scratch.data(),
                       want.data() + size_t(i) * qw + h * s.hd);
        std::vector<float> got(want.size()), k_read(k.size()), v_read(v.size());
        TsCudaAttentionOp op{};
        op.kv_format = cudaKvFormat(kv), op.n_heads = s.heads, op.n_kv_heads = s.kv_heads;
        op.head_dim = s.hd, op.pos = pos, op.count = count, op.path = path;
        op.k = k.data(), op.v = v.data(), op.q = q.data();
        op.alibi_slopes = s.alibi ? slopes.data() : nullptr;
        op.out = got.data(), op.k_read = k_read.data(), op.v_read = v_read.data();
        const std::string name = "op attention " + dims({s.heads, s.kv_heads, s.hd}) +
                                 (s.alibi ? " ALiBi" : "") + " KV " + kvFormatName(kv) + " pos " +
                                 std::to_string(pos) + " x" + std::to_string(count) +
                                 (path == 1 ? " split-KV" : " cuBLAS");
        if (api.op_attention(&op, err, sizeof err)) {
          report.check(name, false, err);
          continue;
        }
        // The prefill path multiplies f16 copies of Q and the softmax for f16 / int8 caches.
        const double limit = path == 1 || kv == KvFormat::F32 ? 1e-4 : 5e-3;
        report.close(name, normalisedError(got, want), limit);
        if (pos == 700 || pos == 300) {  // the cache write, read back
          const double write_limit = kv == KvFormat::F32 ? 1e-7 : kv == KvFormat::F16 ? 1e-3 : 1e-2;
          report.close(
              "kv write/read " + kvFormatName(kv) + " " + std::to_string(length) + " positions",
              std::max(normalisedError(k_read, k), normalisedError(v_read, v)), write_limit);
          // One rounding rule (model/kv_int8.h, f16 round-to-nearest-even): the same values.
          const auto cpu_k = cpuCacheRows(cache, length, s.kv_heads, s.hd, kv, false),
                     cpu_v = cpuCacheRows(cache, length, s.kv_heads, s.hd, kv, true);
          report.check("kv write " + kvFormatName(kv) + " equals the CPU cache's, value for value",
                       k_read == cpu_k && v_read == cpu_v);
        }
      }
}

}  // namespace

void opChecks(Report& report, const TsCudaApi& api) {
  elementwise(report, api);
  matmuls(report, api);
  storedMatmuls(report, api);
  attentions(report, api);
}

}  // namespace ts::selftest
