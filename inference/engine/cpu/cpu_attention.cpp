#include "inference/engine/cpu/cpu_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "inference/engine/cpu/kernels/kernels.h"

namespace ts::engine {

namespace {

// A block of keys lies in one allocation block of the cache (KvCache::rows: one stride).
static_assert(kKvBlock % kKeyTile == 0);

// Passes of at least this many queries read each block converted to f32 once (a
// verification of five is faster reading the f16 rows as they are: 1.7 against 2.2 ms of
// attention in a 7B-shape pass on 2 threads).
constexpr int kConvertQueries = 8;

// The diagonal's queries per call (a multiple of the kernels' query groups: 2 for the
// scores, 4 for the values).
constexpr int kCausalGroup = 8;

// Lanes of the softmax's maximum and sum over a tile of keys.
constexpr int kLanes = 8;
static_assert(kKeyTile % kLanes == 0);

// n rows of `rows` into out [n][head_dim] as f32 (the same values), unless already f32.
KvCache::Rows asF32(const KvCache::Rows& rows, int n, int head_dim, std::vector<float>& out) {
  if (rows.type == Kernels::Rows::F32) return rows;
  out.resize(static_cast<size_t>(n) * head_dim);
  for (int t = 0; t < n; ++t) {
    float* to = out.data() + static_cast<size_t>(t) * head_dim;
    if (rows.type == Kernels::Rows::F16) {
      activeKernels().from_f16(static_cast<const uint16_t*>(rows.data) + t * rows.stride, to,
                               head_dim);
    } else {
      const int8_t* from = static_cast<const int8_t*>(rows.data) + t * rows.stride;
      for (int d = 0; d < head_dim; ++d) to[d] = from[d];
    }
  }
  return {Kernels::Rows::F32, out.data(), static_cast<size_t>(head_dim), rows.scale,
          rows.scale_stride};
}

// Asks for the n rows of a block (contiguous: KvCache keeps a head's rows of a block together)
// to be brought into L2 while the block before them is computed: with a few queries the
// pass is otherwise bound by the cache's memory latency, one block after another.
void prefetchRows(const KvCache::Rows& rows, int n, int head_dim) {
  const size_t value_bytes = rows.type == Kernels::Rows::F32   ? 4
                             : rows.type == Kernels::Rows::F16 ? 2
                                                               : 1;
  const auto* at = static_cast<const char*>(rows.data);
  const size_t bytes = ((n - 1) * rows.stride + head_dim) * value_bytes;
  for (size_t line = 0; line < bytes; line += 64) __builtin_prefetch(at + line, 0, 2);
}

}  // namespace

void attendTiled(const KvCache& cache, int layer, int kv_head, int head_dim, float slope,
                 const float* q, size_t q_stride, int pos, int count, float* out,
                 size_t out_stride) {
  const Kernels& k = activeKernels();
  const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
  const size_t hd = head_dim;
  // per thread: the block's keys and values as f32 (passes); per query its scores
  // [kKeyTile], running maximum, sum and weighted values [head_dim]
  thread_local std::vector<float> keys, values, scores, maxima, sums, acc;
  scores.resize(static_cast<size_t>(count) * kKeyTile);
  maxima.assign(count, -std::numeric_limits<float>::infinity());
  sums.assign(count, 0.f);
  acc.assign(count * hd, 0.f);
  const int last = pos + count - 1;
  for (int from = 0; from <= last; from += kKeyTile) {
    const int n = std::min(kKeyTile, last + 1 - from);
    KvCache::Rows key_rows = cache.rows(layer, from, kv_head, false),
                  value_rows = cache.rows(layer, from, kv_head, true);
    if (from == 0) {
      prefetchRows(key_rows, n, head_dim);
      prefetchRows(value_rows, n, head_dim);
    }
    if (const int next = from + kKeyTile; next <= last) {
      const int m = std::min(kKeyTile, last + 1 - next);
      prefetchRows(cache.rows(layer, next, kv_head, false), m, head_dim);
      prefetchRows(cache.rows(layer, next, kv_head, true), m, head_dim);
    }
    if (count >= kConvertQueries) {
      key_rows = asF32(key_rows, n, head_dim, keys);
      value_rows = asF32(value_rows, n, head_dim, values);
    }
    const int first = std::max(0, from - pos);  // queries before it see none of this block
    // Queries [first, whole) see only some of the block's keys (the causal diagonal): in
    // groups of kCausalGroup, each with the keys its last query sees (a third of a
    // 128-position prefill's scores and weighted values were of keys past the query). A
    // query's products do not depend on the others of a call (kernels.h), and the keys
    // left out have weight 0: the same results.
    const int whole = std::clamp(from + n - 1 - pos, first, count);
    const auto eachGroup = [&](const auto& products) {
      for (int i = first; i < whole; i += kCausalGroup) {
        const int end = std::min(whole, i + kCausalGroup);
        products(i, end, pos + end - from);  // keys seen by query end - 1
      }
      if (whole < count) products(whole, count, n);
    };
    eachGroup([&](int begin, int end, int keys) {
      k.attention_scores(key_rows.type, key_rows.data, key_rows.stride, keys, q + begin * q_stride,
                         q_stride, end - begin, head_dim, scores.data() + begin * kKeyTile,
                         kKeyTile);
    });
    for (int i = first; i < count; ++i) {
      const int at = pos + i, valid = std::min(n, at - from + 1);
      float* s = scores.data() + static_cast<size_t>(i) * kKeyTile;
      if (key_rows.scale)  // int8 rows
        for (int t = 0; t < valid; ++t) s[t] *= key_rows.scale[t * key_rows.scale_stride];
      // The whole tile in runs of kLanes (the compiler's vectors: one at a time, the maximum's
      // and the sum's dependency chains were 0.7% of a 128-position pass): keys past the
      // query or the block at -inf, whose weight e^-inf is 0.
      float lane_max[kLanes], lane_sum[kLanes];
      std::fill(lane_max, lane_max + kLanes, -std::numeric_limits<float>::infinity());
      std::fill(lane_sum, lane_sum + kLanes, 0.f);
      for (int t = 0; t < kKeyTile; t += kLanes)
        for (int j = 0; j < kLanes; ++j) {
          const int key = t + j;
          const float v = s[key] * scale + slope * static_cast<float>(from + key - at);
          s[key] = key < valid ? v : -std::numeric_limits<float>::infinity();
          lane_max[j] = std::max(lane_max[j], s[key]);
        }
      const float block_max = *std::max_element(lane_max, lane_max + kLanes);
      const float grown = std::max(maxima[i], block_max);
      const float rescale = std::exp(maxima[i] - grown);  // 0 before the first block
      for (int t = 0; t < kKeyTile; ++t) s[t] -= grown;
      k.exp(s, s, kKeyTile);
      for (int t = 0; t < kKeyTile; t += kLanes)
        for (int j = 0; j < kLanes; ++j) lane_sum[j] += s[t + j];
      float sum = 0.f;  // the lanes in order
      for (int j = 0; j < kLanes; ++j) sum += lane_sum[j];
      if (value_rows.scale)
        for (int t = 0; t < valid; ++t) s[t] *= value_rows.scale[t * value_rows.scale_stride];
      sums[i] = sums[i] * rescale + sum;
      maxima[i] = grown;
      if (rescale != 1.f)
        for (size_t d = 0; d < hd; ++d) acc[i * hd + d] *= rescale;
    }
    eachGroup([&](int begin, int end, int keys) {
      k.attention_values(value_rows.type, value_rows.data, value_rows.stride, keys,
                         scores.data() + begin * kKeyTile, kKeyTile, end - begin, head_dim,
                         acc.data() + begin * hd, hd);
    });
  }
  for (int i = 0; i < count; ++i)
    for (size_t d = 0; d < hd; ++d) out[i * out_stride + d] = acc[i * hd + d] / sums[i];
}

}  // namespace ts::engine
