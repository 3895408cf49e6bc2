// The forward pass on the CPU: f32 activations, weights in the model's runtime format
// (multiplied by kernels.h), attention over the KV cache. One token at a time for decode,
// or many positions in one pass (prefill, speculative verification), where every weight
// matrix is multiplied with all of them at once. Other backends are checked against it.
#pragma once
#include <memory>
#include <span>
#include <vector>

#include "inference/engine/backend/decode_session.h"
#include "inference/engine/core/thread_pool.h"
#include "inference/engine/cpu/kernels/kernels.h"
#include "inference/engine/model/kv_cache.h"
#include "inference/engine/model/model.h"

namespace ts::engine {

class CpuSession : public DecodeSession {
 public:
  // max_positions: KV cache capacity (prompt + generated tokens).
  // threads: work is split over this many threads (1 = the calling thread only).
  CpuSession(std::shared_ptr<const Model> model, int max_positions,
             KvFormat kv_format = KvFormat::F32, int threads = 1);

  // Runs token `token` at position `pos` (0-based; positions must be fed in order) and
  // returns the logits [vocab]. The span stays valid until the next call.
  std::span<const float> forward(int token, int pos);
  // Runs tokens[i] at positions pos + i in one pass. Returns the logits of the last
  // position [vocab], or with all_logits those of every position [tokens.size(), vocab].
  // Throws std::out_of_range past maxPositions().
  std::span<const float> forwardBatch(std::span<const int> tokens, int pos,
                                      bool all_logits = false) override;
  // Zeros the KV rows of positions >= length that were written.
  void truncate(int length) override;
  // A pool of `blocks` KV blocks in the session's KV format (the scheduler's sequences).
  bool usePagedKv(int blocks) override;
  void allocateKvBlocks(std::span<const int> blocks) override;
  size_t kvCacheBytes() const override;
  size_t kvBlockBytes() const override;
  // Throws std::out_of_range when a pass's blocks do not cover its positions or name a
  // block outside the pool.
  std::span<const float> forwardSequences(std::span<const SequencePass> passes) override;
  void copyKvBlock(int from, int to) override;
  // A CpuSession of the same model and KV format (its own cache and thread pool).
  std::unique_ptr<DecodeSession> spawn(int max_positions, int threads) const override;
  // `paged` must be a CpuSession with usePagedKv, of the same KV format and shape
  // (std::invalid_argument otherwise); std::out_of_range when the positions are outside
  // the table or this session's cache.
  void copyKvToBlocks(DecodeSession& paged, std::span<const int> table, int from, int to) override;
  void copyKvFromBlocks(DecodeSession& paged, std::span<const int> table, int from,
                        int to) override;
  const KvBlockPool* pagedPool() const { return paged_.get(); }
  int vocab() const override { return model_->config.vocab; }
  int maxPositions() const override { return max_positions_; }
  const KvCache& cache() const { return cache_; }

 private:
  // One sequence's rows of a pass: positions pos .. pos + count - 1 in `cache`, rows
  // [row, row + count) of the pass's activations.
  struct Segment {
    KvCache* cache;
    int pos, count, row;
    bool all_logits;
  };
  // The forward pass over every segment's tokens (tokens_ [rows]); logits of the wanted rows.
  std::span<const float> run(std::span<const Segment> segments);
  void attention(int layer, std::span<const Segment> segments);
  // out[count, w.rows()] = W · act, rows split over the pool when the product is large.
  void multiply(const QuantMatrix& w, float* out, const Activations& act);
  // Several products of one input (q, k, v; gate, up) as one job over all their rows: one
  // hand-off to the pool instead of one per matrix, and one long stream of weights.
  struct Product {
    const QuantMatrix* w;
    float* out;
  };
  void multiply(std::initializer_list<Product> products, const Activations& act);
  void parallel(int n, size_t work, const std::function<void(int, int)>& fn);
  // `paged`'s pool blocks `table` as a cache, checked for copyKvToBlocks / FromBlocks.
  KvCache pooledView(DecodeSession& paged, std::span<const int> table, int from, int to,
                     const char* what) const;

  std::shared_ptr<const Model> model_;
  int max_positions_;
  int written_ = 0;       // positions [0, written_) may hold KV rows
  bool quantize_inputs_;  // integer weights: activations go to int8 before each product
  bool k_inputs_;         // stored K-quants: and to Q8_K
  bool grouped_inputs_;   // stored Q4_0 with AVX-512: and regrouped (q_grouped)
  int tiled_from_;        // passes of this many positions on also tiled (q_tiles): the
                          // fewest of the matrices' tiledFrom()
  bool half_inputs_;      // stored F16: and rounded to f16
  bool f32_inputs_;       // some product, quantizeK or roundToHalf reads them as f32
  // act_ = x [count, width] in every form the model's matrices read.
  void prepareInput(const float* x, int count, int width);
  // fn(i) for each position i < count of a pass, `width` values each: shared by the threads
  // when there is enough work (parallel).
  void eachPosition(int count, size_t width, const std::function<void(int)>& fn);
  // Activations, [count, width] for a pass of `count` positions.
  ScratchBuffer<float> x_, xb_, xb2_, q_, k_, v_, hb_, hb2_, logits_;
  std::vector<int> tokens_, row_pos_, row_segment_;  // per row of a pass
  Activations act_;
  KvCache cache_;
  std::unique_ptr<KvBlockPool> paged_;  // usePagedKv
  std::unique_ptr<ThreadPool> pool_;    // null for one thread
  std::vector<float> alibi_slopes_;     // [n_heads] when the model uses ALiBi
};

// ALiBi head slopes as Baichuan-13B / llama.cpp compute them (max bias 8).

}  // namespace ts::engine
