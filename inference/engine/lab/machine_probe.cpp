#include "inference/engine/lab/machine_probe.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "inference/engine/core/byte_io.h"
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

// An independent copy of m in its own memory, in the layout the model holds it (panels where
// m is in panels).
QuantMatrix copyOf(const QuantMatrix& m) {
  ByteWriter writer;
  m.appendTo(writer);
  ByteReader reader(
      std::span(reinterpret_cast<const uint8_t*>(writer.bytes.data()), writer.bytes.size()));
  Result<QuantMatrix> copy = QuantMatrix::readFrom(reader);
  if (!copy) return {};
  return m.panelled() && !copy->panelled() ? copy->inPanels() : std::move(copy.value());
}

// Decode's rate as a model meets it: one position through copies of m that together are
// kStreamBytes (eight times this class of machine's last-level cache), each product split
// over the threads as CpuSession splits it, so every weight comes from memory, not cache.
// Memory and kernel overlap as they do in a decode step, which neither the read bandwidth
// nor a cached kernel's rate alone tells (F16 streams at the bandwidth, Q4_K below it).
// Each pass follows a measure of `bandwidth`, 21 times (the bandwidth wanders by a tenth
// within seconds): the share is the median of the pairs' ratios.
void measureDecode(const QuantMatrix& m, ThreadPool& pool, ReadBandwidthProbe& bandwidth,
                   TypeRates& out) {
  constexpr size_t kStreamBytes = 256ull << 20;
  const size_t copies = std::max<size_t>(2, (kStreamBytes + m.bytes() - 1) / m.bytes());
  std::vector<QuantMatrix> stream;
  for (size_t i = 0; i < copies; ++i) {
    stream.push_back(copyOf(m));
    if (stream.back().rows() != m.rows()) return;
  }
  const Activations act = probeActivations(m, 1);
  const int unit = m.splitRows(), units = (m.rows() + unit - 1) / unit;
  const int grain = std::max(1, units / (64 * pool.threads()));
  std::vector<float> out_rows(m.rows());
  std::vector<double> rates, shares;
  for (int r = 0; r < 21; ++r) {
    const double read_gb_s = bandwidth.measure();
    const double t0 = now();
    for (const QuantMatrix& w : stream)
      pool.parallelGuided(units, grain, [&](int b, int e) {
        w.multiplyRows(out_rows.data(), w.rows(), act, b * unit, std::min(w.rows(), e * unit));
      });
    rates.push_back(static_cast<double>(m.bytes()) * copies / (now() - t0) / 1e9);
    shares.push_back(rates.back() / read_gb_s);
  }
  if (out_rows[0] == 1.2345f) std::printf("impossible\n");  // keeps the products alive
  out.decode_gb_s = medianOf(rates);
  out.decode_share = medianOf(shares);
}

// Multiply-adds per second of one pass over `positions` (m cached or not: a pass over many
// positions reads each row once and reuses it).
double prefillRate(const QuantMatrix& m, ThreadPool& pool, int positions) {
  const Activations act = probeActivations(m, positions);
  std::vector<float> out(static_cast<size_t>(positions) * m.rows());
  const int unit = m.splitRows();
  const int units = (m.rows() + unit - 1) / unit;
  std::vector<double> rates;
  for (int r = 0; r < 3; ++r) {
    const double t0 = now();
    pool.parallelChunks(units, 1, [&](int b, int e) {
      m.multiplyRows(out.data(), m.rows(), act, b * unit, std::min(m.rows(), e * unit));
    });
    rates.push_back(static_cast<double>(m.rows()) * m.cols() * positions / (now() - t0) / 1e9);
  }
  if (out[0] == 1.2345f) std::printf("impossible\n");
  return medianOf(rates);
}

// The pass sizes prefill is measured at: a short chunk, the default, a long prompt's chunk.
constexpr int kPrefillPositions[] = {16, 64, 256};

// For each runtime type the model uses, the largest layer matrix of that type, or the
// classifier where no layer matrix has it. Layer matrices hold most of a model's bytes and
// their shape is the typical one: the classifier's 64,000-odd rows make a 64-position pass
// write 16 MB of outputs, which spill the caches and understate the layers' rate by a fifth.
std::map<std::string, const QuantMatrix*> sampleMatrices(const Model& model) {
  std::map<std::string, const QuantMatrix*> out;
  if (!model.layers.empty()) {
    const LayerWeights& l = model.layers[0];
    for (const QuantMatrix* w : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down}) {
      const QuantMatrix*& slot = out[w->formatName()];
      if (!slot || w->bytes() > slot->bytes()) slot = w;
    }
  }
  out.try_emplace(model.classifier.formatName(), &model.classifier);
  return out;
}

// v4: decode rates streamed from memory, sampled on layer matrices, shares of 21 pairs (v1
// entries held cached-kernel rates, v2 the classifier's, v3 shares of 5 pairs).
std::string cacheKey(int threads) {
  return "v4 threads=" + std::to_string(threads) + " kernels=" + activeKernels().name;
}

nlohmann::json typeRatesJson(const TypeRates& r) {
  nlohmann::json at = nlohmann::json::object();
  for (const auto& [positions, gmacs] : r.prefill_gmacs_at) at[std::to_string(positions)] = gmacs;
  return {{"decode_gb_s", r.decode_gb_s},
          {"decode_share", r.decode_share},
          {"prefill_gmacs", r.prefill_gmacs},
          {"prefill_gmacs_at", at}};
}

TypeRates typeRatesFrom(const nlohmann::json& t) {
  TypeRates r;
  r.decode_gb_s = t.value("decode_gb_s", 0.0);
  r.decode_share = t.value("decode_share", 0.0);
  r.prefill_gmacs = t.value("prefill_gmacs", 0.0);
  if (t.contains("prefill_gmacs_at") && t["prefill_gmacs_at"].is_object())
    for (const auto& [positions, gmacs] : t["prefill_gmacs_at"].items()) {
      const int n = std::atoi(positions.c_str());
      if (n > 0 && gmacs.is_number() && gmacs.get<double>() > 0)
        r.prefill_gmacs_at[n] = gmacs.get<double>();
    }
  return r;
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

TypeRates measureTypeRates(const QuantMatrix& m, int threads, ReadBandwidthProbe& bandwidth) {
  ThreadPool pool(threads);
  TypeRates out;
  measureDecode(m, pool, bandwidth, out);
  for (int positions : kPrefillPositions)
    out.prefill_gmacs_at[positions] = prefillRate(m, pool, positions);
  out.prefill_gmacs = out.prefill_gmacs_at[64];
  return out;
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
  std::unique_ptr<ReadBandwidthProbe> bandwidth;  // made for the first type measured
  for (const auto& [type, matrix] : sampleMatrices(model)) {
    nlohmann::json& t = types[type];
    if (!t.is_object() || !t["decode_share"].is_number() || !t["prefill_gmacs"].is_number()) {
      if (progress) progress(type + " kernels");
      if (!bandwidth) bandwidth = std::make_unique<ReadBandwidthProbe>(threads, 256ull << 20);
      t = typeRatesJson(measureTypeRates(*matrix, threads, *bandwidth));
      changed = true;
    }
  }
  for (const auto& [type, t] : types.items()) out.types[type] = typeRatesFrom(t);
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
