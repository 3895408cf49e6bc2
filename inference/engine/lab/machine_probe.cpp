#include "inference/engine/lab/machine_probe.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "inference/engine/core/thread_pool.h"
#include "inference/engine/cpu/kernels/kernels.h"
#include "inference/engine/formats/quant_cache.h"
#include "inference/engine/lab/bootstrap.h"
#include "inference/engine/model/weight_buffer.h"

namespace ts::engine::lab {
namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// x [count, cols] of a fixed pattern, in every form m's products read.
Activations probeActivations(const QuantMatrix& m, int count) {
  std::vector<float> x(static_cast<size_t>(count) * m.cols());
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7919) % 201) / 100.f - 1;
  return m.activationsFor(x.data(), count);
}

// Rows of m each of `threads` threads multiplies in the decode probe: a slice that stays in
// its L2 with its activations, in whole units of the threads' split.
int decodeSliceRows(const QuantMatrix& m, int threads) {
  constexpr size_t kSliceBytes = 192 << 10;
  const size_t row_bytes = std::max<size_t>(1, m.bytes() / m.rows());
  const size_t unit = m.splitRows();
  return static_cast<int>(std::clamp<size_t>(std::max(unit, kSliceBytes / row_bytes / unit * unit),
                                             1, m.rows() / std::max(1, threads)));
}

double decodeRate(const QuantMatrix& m, ThreadPool& pool) {
  const int threads = pool.threads();
  const int rows = decodeSliceRows(m, threads);
  if (rows < 1) return 0;
  const Activations act = probeActivations(m, 1);
  const size_t row_bytes = std::max<size_t>(1, m.bytes() / m.rows());
  const int passes = 64;
  std::vector<float> out(m.rows());
  std::vector<double> rates;
  for (int r = 0; r < 3; ++r) {
    const double t0 = now();
    pool.parallelFor(threads, [&](int b, int e) {
      for (int t = b; t < e; ++t)
        for (int p = 0; p < passes; ++p)
          m.multiplyRows(out.data(), m.rows(), act, t * rows, (t + 1) * rows);
    });
    rates.push_back(static_cast<double>(row_bytes) * rows * threads * passes / (now() - t0) / 1e9);
  }
  if (out[0] == 1.2345f) std::printf("impossible\n");  // keeps the products alive
  return medianOf(rates);
}

double prefillRate(const QuantMatrix& m, ThreadPool& pool) {
  constexpr int kPositions = 64;
  const Activations act = probeActivations(m, kPositions);
  std::vector<float> out(static_cast<size_t>(kPositions) * m.rows());
  const int unit = m.splitRows();
  const int units = (m.rows() + unit - 1) / unit;
  std::vector<double> rates;
  for (int r = 0; r < 3; ++r) {
    const double t0 = now();
    pool.parallelChunks(units, 1, [&](int b, int e) {
      m.multiplyRows(out.data(), m.rows(), act, b * unit, std::min(m.rows(), e * unit));
    });
    rates.push_back(static_cast<double>(m.rows()) * m.cols() * kPositions / (now() - t0) / 1e9);
  }
  if (out[0] == 1.2345f) std::printf("impossible\n");
  return medianOf(rates);
}

// The largest matrix of each runtime type the model uses (layers and classifier).
std::map<std::string, const QuantMatrix*> sampleMatrices(const Model& model) {
  std::map<std::string, const QuantMatrix*> out;
  auto consider = [&](const QuantMatrix& m) {
    const QuantMatrix*& slot = out[m.formatName()];
    if (!slot || m.bytes() > slot->bytes()) slot = &m;
  };
  if (!model.layers.empty()) {
    const LayerWeights& l = model.layers[0];
    for (const QuantMatrix* w : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down})
      consider(*w);
  }
  consider(model.classifier);
  return out;
}

std::string cacheKey(int threads) {
  return "threads=" + std::to_string(threads) + " kernels=" + activeKernels().name;
}

nlohmann::json readCache(const std::string& path) {
  std::ifstream in(path);
  if (!in) return nlohmann::json::object();
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  return j.is_object() ? j : nlohmann::json::object();
}

}  // namespace

struct ReadBandwidthProbe::State {
  WeightBuffer<float> buf;
  ThreadPool pool;
};

ReadBandwidthProbe::ReadBandwidthProbe(int threads, size_t bytes)
    : state_(new State{WeightBuffer<float>(bytes / sizeof(float), 1.0f), ThreadPool(threads)}) {}
ReadBandwidthProbe::~ReadBandwidthProbe() = default;

double ReadBandwidthProbe::measure() {
  const int threads = state_->pool.threads();
  const float* data = state_->buf.data();
  const size_t n = state_->buf.size();
  std::vector<double> rates;
  for (int r = 0; r < 3; ++r) {
    std::vector<double> partial(threads, 0);
    const double t0 = now();
    state_->pool.parallelFor(threads, [&](int b, int e) {
      for (int t = b; t < e; ++t) {
        const size_t begin = n / threads * t, end = t + 1 == threads ? n : n / threads * (t + 1);
        partial[t] = activeKernels().sum_f32(data + begin, end - begin);
      }
    });
    const double dt = now() - t0;
    double total = 0;
    for (double p : partial) total += p;
    if (total < 0) std::printf("impossible\n");  // keeps the sums alive
    rates.push_back(n * sizeof(float) / dt / 1e9);
  }
  return medianOf(rates);
}

double measureReadBandwidth(int threads) {
  return ReadBandwidthProbe(threads, 512ull << 20).measure();
}

TypeRates measureTypeRates(const QuantMatrix& m, int threads) {
  ThreadPool pool(threads);
  return {decodeRate(m, pool), prefillRate(m, pool)};
}

std::string machineRatesPath() {
  const std::string dir = quantCacheDir();
  return dir.empty() ? "" : dir + "/machine-rates.json";
}

Result<MachineRates> machineRatesFor(const Model& model, int threads, bool remeasure,
                                     const std::function<void(const std::string&)>& progress,
                                     std::string cache_path) {
  if (threads < 1) return fail("the machine probe needs at least one thread");
  if (cache_path.empty()) cache_path = machineRatesPath();
  nlohmann::json cache = cache_path.empty() ? nlohmann::json::object() : readCache(cache_path);
  nlohmann::json& entry = cache[cacheKey(threads)];
  if (remeasure || !entry.is_object()) entry = nlohmann::json::object();
  MachineRates out;
  out.threads = threads;
  out.kernels = activeKernels().name;
  bool changed = false;
  if (!entry.contains("read_gb_s") || !entry["read_gb_s"].is_number()) {
    if (progress) progress("memory read bandwidth");
    entry["read_gb_s"] = measureReadBandwidth(threads);
    entry["measured_at"] = static_cast<int64_t>(std::time(nullptr));
    changed = true;
  }
  out.read_gb_s = entry["read_gb_s"].get<double>();
  nlohmann::json& types = entry["types"];
  if (!types.is_object()) types = nlohmann::json::object();
  for (const auto& [type, matrix] : sampleMatrices(model)) {
    nlohmann::json& t = types[type];
    if (!t.is_object() || !t["decode_gb_s"].is_number() || !t["prefill_gmacs"].is_number()) {
      if (progress) progress(type + " kernels");
      const TypeRates r = measureTypeRates(*matrix, threads);
      t = {{"decode_gb_s", r.decode_gb_s}, {"prefill_gmacs", r.prefill_gmacs}};
      changed = true;
    }
  }
  for (const auto& [type, t] : types.items())
    out.types[type] = {t.value("decode_gb_s", 0.0), t.value("prefill_gmacs", 0.0)};
  if (changed && !cache_path.empty()) {
    const std::string tmp = cache_path + ".tmp";
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(cache_path).parent_path(), ec);
    std::ofstream file(tmp);
    file << cache.dump(2) << "\n";
    file.close();
    if (file) std::rename(tmp.c_str(), cache_path.c_str());
  }
  return out;
}

}  // namespace ts::engine::lab
