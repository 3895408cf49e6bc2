// Causal attention of one query head over the KV cache for a pass of positions, in tiles:
// blocks of kKeyTile keys shared by every query of the pass (converted from the cache's
// format to f32 once per block when the pass has several queries; decode reads them as
// stored), online softmax per query (a running maximum, sum and weighted value sum,
// rescaled when the maximum grows), so no score row or matrix of the whole context is
// held. Key blocks start at multiples of kKeyTile whatever the pass, and each query's
// arithmetic depends neither on the other queries nor on the conversion
// (Kernels::attention_scores / attention_values), so decode and a pass over many positions
// give the same values to the bit. attendHead (cpu_ops.h) is the straightforward reference
// it is tested against.
#pragma once
#include <cstddef>

#include "inference/engine/model/kv_cache.h"

namespace ts::engine {

constexpr int kKeyTile = 32;  // keys per block (divides kKvBlock: one stride per block)

// Queries i = 0 .. count - 1 (q + i * q_stride, head_dim values) at positions pos + i, each
// attending to positions 0 ..= pos + i of `layer`, KV head kv_head:
// out[i * out_stride + d] = sum_t softmax_t(q_i . K[t] / sqrt(head_dim) + slope * (t - pos - i))
// V[t][d].
void attendTiled(const KvCache& cache, int layer, int kv_head, int head_dim, float slope,
                 const float* q, size_t q_stride, int pos, int count, float* out,
                 size_t out_stride);

}  // namespace ts::engine
