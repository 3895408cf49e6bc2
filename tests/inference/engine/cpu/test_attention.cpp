// Tiled attention (cpu_attention.h) against the straightforward one (attendHead: every score
// of a query, one softmax, one weighted sum) on a 2,048-position prompt in every KV format,
// with RoPE-style (no bias) and ALiBi heads; and the property decode relies on: a query's
// output is the same to the bit whether it runs alone or in a pass with others.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "inference/engine/cpu/cpu_attention.h"
#include "inference/engine/cpu/cpu_ops.h"
#include "inference/engine/cpu/kernels/kernels.h"
#include "tests/inference/engine/check.h"

using namespace ts::engine;
using ts::testing::check;

int main() {
  constexpr int kPositions = 2048, kKvHeads = 2, kGroup = 2, kHeads = kKvHeads * kGroup,
                kHeadDim = 48;  // not a multiple of 32: the value kernel's tail
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.f, 1.f);
  std::vector<float> q(static_cast<size_t>(kPositions) * kHeads * kHeadDim);
  for (float& v : q) v = normal(rng);
  std::vector<float> k(kKvHeads * kHeadDim), v(kKvHeads * kHeadDim);
  const size_t q_stride = kHeads * kHeadDim;

  for (KvFormat format : {KvFormat::F32, KvFormat::F16, KvFormat::Int8}) {
    KvCache cache(1, kPositions, kKvHeads, kHeadDim, format);
    for (int p = 0; p < kPositions; ++p) {
      for (float& x : k) x = normal(rng);
      for (float& x : v) x = normal(rng);
      cache.store(0, p, k.data(), v.data());
    }
    for (float slope : {0.f, 0.0625f}) {
      const std::string label = kvFormatName(format) + (slope == 0.f ? "" : " ALiBi") + ", " +
                                std::to_string(kPositions) + " positions";
      std::vector<float> tiled(q.size());
      for (int h = 0; h < kHeads; ++h)
        attendTiled(cache, 0, h / kGroup, kHeadDim, slope, q.data() + h * kHeadDim, q_stride, 0,
                    kPositions, tiled.data() + h * kHeadDim, q_stride);
      double worst = 0;
      std::vector<float> scratch(kPositions), want(kHeadDim);
      for (int i = 0; i < kPositions; ++i)
        for (int h = 0; h < kHeads; ++h) {
          const size_t at = i * q_stride + h * kHeadDim;
          attendHead(cache, 0, q.data() + at, i, h / kGroup, kHeadDim, slope, scratch.data(),
                     want.data());
          for (int d = 0; d < kHeadDim; ++d)
            worst = std::max(worst, static_cast<double>(std::abs(tiled[at + d] - want[d])));
        }
      check(worst < 2e-5, label + ": tiled attention matches the straightforward one (max |diff| " +
                              std::to_string(worst) + ")");

      // Queries alone (decode) and in passes that start mid-block give the same bits.
      bool same = true;
      std::vector<float> alone(kHeads * kHeadDim), part(37 * q_stride);
      for (int i : {0, 31, 32, 33, 1000, 2047}) {
        for (int h = 0; h < kHeads; ++h)
          attendTiled(cache, 0, h / kGroup, kHeadDim, slope, q.data() + i * q_stride + h * kHeadDim,
                      q_stride, i, 1, alone.data() + h * kHeadDim, q_stride);
        same = same && std::equal(alone.begin(), alone.end(), tiled.begin() + i * q_stride);
      }
      for (int h = 0; h < kHeads; ++h)
        attendTiled(cache, 0, h / kGroup, kHeadDim, slope,
                    q.data() + 1000 * q_stride + h * kHeadDim, q_stride, 1000, 37,
                    part.data() + h * kHeadDim, q_stride);
      same = same && std::equal(part.begin(), part.end(), tiled.begin() + 1000 * q_stride);
      check(same, label +
                      ": a query alone and in a pass of 37 from position 1000 give the "
                      "pass's values to the bit");
    }
  }

  // Every kernel set: each query's scores and weighted values are the same alone or with
  // others (groups and a remainder), and from f16 rows or the same values as f32 (passes
  // convert a block once, decode reads the cache as stored); and close to portable's.
  // Head sizes: 76 (a tail past 8s), 80 (the 512-bit kernels' 64 + 16) and 128 (the 7B's).
  for (const Kernels* set : {&portableKernels(), avx2Kernels(), avx512Kernels()})
    for (const int kDim : {76, 80, 128}) {
      if (!set) continue;
      constexpr int kQueries = 7, kKeys = 27, kTile = 32;
      using Rows = Kernels::Rows;
      std::vector<float> queries(kQueries * kDim), weights(kQueries * kTile), f32(kKeys * kDim),
          i8_values(kKeys * kDim);
      std::vector<uint16_t> f16(kKeys * kDim);
      std::vector<int8_t> i8(kKeys * kDim);
      for (float& x : queries) x = normal(rng);
      for (float& x : weights) x = std::abs(normal(rng));
      for (float& x : f32) x = normal(rng);
      for (size_t i = 0; i < i8.size(); ++i) {
        i8[i] = static_cast<int8_t>(std::lround(std::clamp(f32[i] * 40.f, -127.f, 127.f)));
        i8_values[i] = i8[i];
      }
      set->to_f16(f32.data(), f16.data(), f32.size());
      set->from_f16(f16.data(), f32.data(), f16.size());  // f32 rows: the f16 values
      const auto rowsOf = [&](Rows type, bool ints) -> const void* {
        if (type == Rows::I8) return i8.data();
        if (type == Rows::F16) return f16.data();
        return ints ? i8_values.data() : f32.data();
      };
      const auto scores = [&](const Kernels& k, Rows type, int first, int count,
                              bool ints = false) {
        std::vector<float> s(kQueries * kTile);
        for (int i = first; i < kQueries; i += count)
          k.attention_scores(type, rowsOf(type, ints), kDim, kKeys, queries.data() + i * kDim, kDim,
                             std::min(count, kQueries - i), kDim, s.data() + i * kTile, kTile);
        return s;
      };
      const auto values = [&](const Kernels& k, Rows type, int count, bool ints = false) {
        std::vector<float> acc(kQueries * kDim, 0.5f);
        for (int i = 0; i < kQueries; i += count)
          k.attention_values(type, rowsOf(type, ints), kDim, kKeys, weights.data() + i * kTile,
                             kTile, std::min(count, kQueries - i), kDim, acc.data() + i * kDim,
                             kDim);
        return acc;
      };
      const auto together = scores(*set, Rows::F16, 0, kQueries);
      const auto acc = values(*set, Rows::F16, kQueries);
      const auto reference = scores(portableKernels(), Rows::F32, 0, kQueries);
      const auto acc_reference = values(portableKernels(), Rows::F32, kQueries);
      double worst = 0;
      for (size_t i = 0; i < together.size(); ++i)
        if (i % kTile < kKeys)
          worst = std::max(worst, static_cast<double>(std::abs(together[i] - reference[i])));
      for (size_t i = 0; i < acc.size(); ++i)
        worst = std::max(worst, static_cast<double>(std::abs(acc[i] - acc_reference[i])));
      const bool ints_same =
          scores(*set, Rows::I8, 0, kQueries) == scores(*set, Rows::F32, 0, 1, true) &&
          values(*set, Rows::I8, 3) == values(*set, Rows::F32, kQueries, true);
      check(together == scores(*set, Rows::F16, 0, 1) &&
                together == scores(*set, Rows::F32, 0, 3) && acc == values(*set, Rows::F16, 1) &&
                acc == values(*set, Rows::F32, 3) && ints_same && worst < 1e-4,
            std::string(set->name) + ", head_dim " + std::to_string(kDim) +
                ": attention scores and values of 7 queries x 27 rows are the same alone, in "
                "threes and together, from f16 rows and from f32 (int8 rows and from f32), and "
                "within 1e-4 of portable's");
    }
  return ts::testing::finish();
}
