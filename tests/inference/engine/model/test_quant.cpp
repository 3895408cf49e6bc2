// Runtime weight formats: int8 per-channel and int4 group-wise matrices match f32 within
// their quantization error, and whole-model logits stay within documented tolerances.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>

#include <tuple>
#include "tests/inference/engine/check.h"

#include "inference/engine/cpu/cpu_forward.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/model/random_model.h"

using ts::testing::check;

using namespace ts::engine;

namespace {
// ||a - b|| / ||b||
double relativeError(const std::vector<float>& a, const std::vector<float>& b) {
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += b[i] * b[i];
  }
  return std::sqrt(num / den);
}
}  // namespace

int main() {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.f, 1.f);
  // 270: the last int4 group of each row is partial, and 270 / 32 is odd (rows pad to 64)
  const int rows = 48, cols = 270;
  std::vector<float> w(rows * cols), x(cols);
  for (float& v : w) v = normal(rng);
  for (float& v : x) v = normal(rng);
  const QuantMatrix ref = QuantMatrix::fromF32(w, rows, cols);
  std::vector<float> want(rows);
  ref.matvec(want.data(), x.data());
  for (auto [format, group, tolerance] :
       {std::tuple{WeightFormat::F16, 128, 1e-3}, std::tuple{WeightFormat::Int8, 128, 0.02},
        std::tuple{WeightFormat::Q8_0, 128, 0.02}, std::tuple{WeightFormat::Int4, 32, 0.12},
        std::tuple{WeightFormat::Int4, 128, 0.18}}) {
    const QuantMatrix q = ref.converted(format, group);
    std::vector<float> got(rows);
    q.matvec(got.data(), x.data());
    // matvec must equal the sum over its own dequantized weights times the activations
    // it reads (int8 blocks for integer formats): no error beyond the quantization.
    Activations act;
    act.set(x.data(), 1, cols, true);
    double kernel = 0;
    for (int r = 0; r < rows; ++r) {
      double sum = 0;
      for (int c = 0; c < cols; ++c) {
        const double xin = q.needsQuantizedInput() ? act.scale[c / 32] * act.q[c] : x[c];
        sum += static_cast<double>(q.at(r, c)) * xin;
      }
      kernel = std::max(kernel, std::abs(sum - got[r]));
    }
    const double err = relativeError(got, want);
    const std::string name = weightFormatName(format) +
                             (format == WeightFormat::Int4 ? " g" + std::to_string(group) : "");
    check(kernel < 1e-3, name + ": matvec equals its dequantized weights (max diff " +
                             std::to_string(kernel) + ")");
    check(err < tolerance, name + ": relative error vs f32 " + std::to_string(err) + " < " +
                               std::to_string(tolerance));
  }
  check(ref.converted(WeightFormat::Int8).bytes() * 3 < ref.bytes(),
        "int8 stores under a third of f32");
  check(ref.converted(WeightFormat::Int4).bytes() * 6 < ref.bytes(),
        "int4 stores under a sixth of f32");

  const char* env = std::getenv("TOKENSCOPE_SHARED_DIR");
  const auto model_path =
      std::filesystem::path(env ? env : "../shared") / "models/aidreams260K/aidreams260K.gguf";
  if (!std::filesystem::exists(model_path)) {
    std::printf("SKIP whole-model checks: %s is absent\n", model_path.c_str());
  } else {
    const std::vector<int> prompt = {1, 303, 281, 269, 435, 447, 328};
    std::vector<float> base;
    for (auto [format, tolerance] :
         {std::pair{WeightFormat::F32, 0.0}, std::pair{WeightFormat::F16, 1e-3},
          std::pair{WeightFormat::Int8, 0.03}, std::pair{WeightFormat::Int4, 0.15}}) {
      LoadOptions options;
      options.weights = format;
      options.int4_group = 32;
      options.cache = false;  // never write beside the shared fixtures
      auto model = loadModel(model_path.string(), options);
      CpuSession s(model.value(), 16);
      std::span<const float> logits;
      for (size_t i = 0; i < prompt.size(); ++i) logits = s.forward(prompt[i], static_cast<int>(i));
      std::vector<float> v(logits.begin(), logits.end());
      if (format == WeightFormat::F32) {
        base = v;
        continue;
      }
      const double err = relativeError(v, base);
      check(err < tolerance, "aidreams260K " + weightFormatName(format) + ": logits within " +
                                 std::to_string(tolerance) + " of f32 (relative error " +
                                 std::to_string(err) + ")");
    }
  }
  if (std::filesystem::exists(model_path)) {
    // KV cache formats: the logits after a 7-token prompt and 40 greedy steps.
    auto model = loadModel(model_path.string());
    std::vector<float> base;
    for (auto [format, tolerance] : {std::pair{KvFormat::F32, 0.0}, std::pair{KvFormat::F16, 2e-3},
                                     std::pair{KvFormat::Int8, 0.03}}) {
      CpuSession s(model.value(), 64, format);
      const std::vector<int> prompt = {1, 303, 281, 269, 435, 447, 328};
      std::span<const float> logits;
      int pos = 0;
      for (int id : prompt) logits = s.forward(id, pos++);
      std::vector<float> all;
      for (int step = 0; step < 40; ++step) {
        all.insert(all.end(), logits.begin(), logits.end());
        const int next =
            static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin());
        logits = s.forward(next, pos++);
      }
      if (format == KvFormat::F32) {
        base = all;
        continue;
      }
      const double err = relativeError(all, base);
      check(err < tolerance, "aidreams260K KV " + kvFormatName(format) +
                                 ": 40 steps of logits within " + std::to_string(tolerance) +
                                 " of an f32 cache (relative error " + std::to_string(err) + ")");
    }
    KvCache f32(4, 128, 4, 16, KvFormat::F32), i8(4, 128, 4, 16, KvFormat::Int8);
    check(i8.capacityBytes() * 3 < f32.capacityBytes(),
          "an int8 KV cache stores under a third of f32");
    // Memory follows the positions written, in blocks of kKvBlock.
    KvCache f16(4, 4096, 4, 16, KvFormat::F16);
    const std::vector<float> k(4 * 16, 0.5f), v(4 * 16, -0.25f);
    const size_t block = f16.capacityBytes() / (4096 / kKvBlock);
    check(f16.bytes() == 0, "an unwritten KV cache holds no memory");
    f16.store(0, 0, k.data(), v.data());
    f16.store(3, kKvBlock + 5, k.data(), v.data());
    check(f16.bytes() == 2 * block && f16.capacityBytes() == 4096 * 4 * 4 * 16 * 2 * 2,
          "two written blocks of a 4,096-position cache hold " + std::to_string(f16.bytes()) +
              " bytes (a block is " + std::to_string(block) + ")");
    check(f16.dotKey(3, kKvBlock + 5, 2, k.data()) == 16 * 0.25f,
          "a value written in the second block reads back");
    f16.clear(kKvBlock, 4096);
    check(
        f16.bytes() == block && f16 ==
                                    [&] {
                                      KvCache fresh(4, 4096, 4, 16, KvFormat::F16);
                                      fresh.store(0, 0, k.data(), v.data());
                                      return fresh;
                                    }(),
        "clearing a whole block gives its memory back and leaves the cache as if never written");
  }
  // A matrix large enough to be split: threads must not change a single bit.
  {
    const int R = 1024, C = 512;
    std::vector<float> big(R * C), xin(C);
    for (float& v : big) v = normal(rng);
    for (float& v : xin) v = normal(rng);
    const QuantMatrix m = QuantMatrix::fromF32(big, R, C).converted(WeightFormat::Int8);
    std::vector<float> serial(R), split(R);
    m.matvec(serial.data(), xin.data());
    ThreadPool p2(2);
    Activations act;
    act.set(xin.data(), 1, C, true);
    p2.parallelFor(R, [&](int b, int e) { m.multiplyRows(split.data(), R, act, b, e); });
    check(serial == split, "a 1024x512 int8 product split over 2 threads is bit-identical");
  }
  // Random models in named shapes: every shape is known, a wrong name says which exist.
  {
    auto tiny = shapeConfig("llama-tiny");
    check(tiny.ok() && tiny->n_kv_heads == 4 && tiny->n_heads == 8, "llama-tiny shape (GQA 8/4)");
    auto b13 = shapeConfig("baichuan2-13b", 2);
    check(b13.ok() && b13->positional == Positional::Alibi && b13->vocab == 125696 &&
              b13->n_layers == 2,
          "baichuan2-13b shape: ALiBi, vocab 125,696, cut to 2 layers");
    auto bad = shapeConfig("gpt-9");
    check(!bad.ok() && bad.error().find("expected baichuan-7b") != std::string::npos,
          "unknown shape: " + (bad.ok() ? std::string("(no error)") : bad.error()));
    auto model = randomModel(tiny.value(), WeightFormat::Int4, 99);
    CpuSession s(model, 8);
    bool finite = true;
    for (int pos = 0; pos < 4; ++pos)
      for (float v : s.forward(pos + 10, pos)) finite &= std::isfinite(v);
    check(finite, "a random int4 llama-tiny model decodes 4 positions to finite logits");
    auto again = randomModel(tiny.value(), WeightFormat::Int4, 99);
    check(again->classifier.at(5, 7) == model->classifier.at(5, 7),
          "the same seed gives the same weights");
  }
  // The thread pool covers every index exactly once, for any n, over many calls.
  ThreadPool pool(3);
  bool covered = true;
  for (int n : {0, 1, 2, 3, 7, 100, 4097}) {
    std::vector<int> hits(n, 0);
    for (int round = 0; round < 20; ++round)
      pool.parallelFor(n, [&](int b, int e) {
        for (int i = b; i < e; ++i) ++hits[i];  // chunks are disjoint: no race
      });
    for (int h : hits) covered &= h == 20;
  }
  check(covered, "parallelFor covers each index once per call (3 threads, 7 sizes, 20 rounds)");
  // parallelFor gives each thread exactly one call (the loader and the bandwidth probe
  // rely on it), even when the workers slept since the last job.
  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // past the pool's spin
  std::atomic<int> calls{0};
  std::set<std::thread::id> ids;
  std::mutex ids_mutex;
  pool.parallelFor(3, [&](int, int) {
    ++calls;
    std::lock_guard lock(ids_mutex);
    ids.insert(std::this_thread::get_id());
  });
  check(calls == 3 && ids.size() == 3, "parallelFor(3) on 3 threads: one call on each thread");
  // parallelChunks / parallelGuided: every index once per call, each chunk as the mode
  // says, whether the workers are spinning (back-to-back jobs) or asleep (a pause between
  // jobs). chunked_ok runs job(n, grain, fn) for sizes and grains, 10 rounds each, and is
  // true when every index was hit once a round and chunk_ok(n, grain, begin, end) held for
  // every chunk.
  const auto chunked_ok = [&](auto job, auto chunk_ok) {
    std::atomic<bool> ok{true};
    for (int n : {1, 5, 64, 1000, 4097})
      for (int grain : {1, 7, 256}) {
        std::vector<std::atomic<int>> hits(n);
        for (int round = 0; round < 10; ++round) {
          if (round == 5) std::this_thread::sleep_for(std::chrono::milliseconds(5));
          job(n, grain, [&](int b, int e) {
            if (!chunk_ok(n, grain, b, e)) ok = false;
            for (int i = b; i < e; ++i) ++hits[i];
          });
        }
        for (auto& h : hits)
          if (h != 10) ok = false;
      }
    return ok.load();
  };
  check(chunked_ok(
            [&](int n, int grain, const std::function<void(int, int)>& fn) {
              pool.parallelChunks(n, grain, fn);
            },
            [](int n, int grain, int b, int e) { return e - b <= grain || (b == 0 && e == n); }),
        "parallelChunks covers each index once per call in chunks <= grain "
        "(3 threads, spinning and sleeping workers)");
  // parallelGuided: chunks shrink from n / (2 x threads); none but a job's last is shorter
  // than the minimum.
  std::atomic<bool> first_long{true};
  check(chunked_ok(
            [&](int n, int grain, const std::function<void(int, int)>& fn) {
              pool.parallelGuided(n, grain, fn);
            },
            [&](int n, int grain, int b, int e) {
              if (b == 0 && n > grain && e != std::max(grain, n / 6)) first_long = false;
              return e - b >= grain || e == n;
            }),
        "parallelGuided covers each index once per call, no chunk under the minimum "
        "but the last (3 threads, spinning and sleeping workers)");
  check(first_long, "parallelGuided's first chunk is n / (2 x 3 threads) long");
  if (std::filesystem::exists(model_path)) {
    auto model = loadModel(model_path.string());
    CpuSession one(model.value(), 16, KvFormat::F32, 1), two(model.value(), 16, KvFormat::F32, 2);
    bool same = true;
    for (int pos = 0; pos < 10; ++pos) {
      const auto a = one.forward(300 + pos, pos);
      const std::vector<float> first(a.begin(), a.end());
      const auto b = two.forward(300 + pos, pos);
      same &= std::equal(first.begin(), first.end(), b.begin());
    }
    check(same, "2 threads give bit-identical logits to 1 thread on a tiny model");
  }
  return ts::testing::finish();
}
