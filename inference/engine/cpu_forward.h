// The reference forward pass on the CPU, in f32: one token at a time against an f32 KV
// cache. Every later backend (and every quantized path) is checked against this one.
#pragma once
#include <memory>
#include <span>
#include <vector>

#include "inference/engine/kv_cache.h"
#include "inference/engine/model.h"
#include "inference/engine/thread_pool.h"

namespace ts::engine {

class CpuSession {
 public:
  // max_positions: KV cache capacity (prompt + generated tokens).
  // threads: matrix rows are split over this many threads (1 = the calling thread only).
  CpuSession(std::shared_ptr<const Model> model, int max_positions,
             KvFormat kv_format = KvFormat::F32, int threads = 1);

  // Runs token `token` at position `pos` (0-based; positions must be fed in order) and
  // returns the logits [vocab]. The span stays valid until the next call.
  std::span<const float> forward(int token, int pos);
  int maxPositions() const { return max_positions_; }

 private:
  void attention(int layer, int pos);
  void matvec(const QuantMatrix& w, float* out, const float* x);

  std::shared_ptr<const Model> model_;
  int max_positions_;
  std::vector<float> x_, xb_, xb2_, q_, k_, v_, att_, hb_, hb2_, logits_;  // activations
  KvCache cache_;
  std::unique_ptr<ThreadPool> pool_;  // null for one thread                    // [layers,
                                      // max_positions, kv_heads, head_dim]
  std::vector<float> alibi_slopes_;   // [n_heads] when the model uses ALiBi
};

// ALiBi head slopes as Baichuan-13B / llama.cpp compute them (max bias 8).
std::vector<float> alibiSlopes(int n_heads);

}  // namespace ts::engine
