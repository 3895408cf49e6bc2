#include "inference/engine/cpu/cpu_forward.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>

#include "inference/engine/cpu/cpu_attention.h"
#include "inference/engine/cpu/cpu_ops.h"
#include "inference/engine/model/positional.h"

namespace ts::engine {
namespace {

// Every multiplied matrix of the model (formats may differ per tensor).
void eachMatrix(const Model& m, const std::function<void(const QuantMatrix&)>& fn) {
  fn(m.classifier);
  for (const auto& l : m.layers)
    for (const QuantMatrix* w : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down}) fn(*w);
}

bool anyMatrix(const Model& m, const std::function<bool(const QuantMatrix&)>& test) {
  bool any = false;
  eachMatrix(m, [&](const QuantMatrix& w) { any = any || test(w); });
  return any;
}

// The fewest positions from which some matrix's passes read Activations' tiles.
int fewestTiledPositions(const Model& m) {
  int fewest = QuantMatrix::kNeverTiled;
  eachMatrix(m, [&](const QuantMatrix& w) { fewest = std::min(fewest, w.tiledFrom()); });
  return fewest;
}

}  // namespace

void CpuSession::prepareInput(const float* x, int count, int width) {
  // Copied, quantized and tiled by the threads, a share of the positions each: on one thread
  // this was a tenth of a 128-position pass's time while the other thread waited.
  const bool tiled = count >= tiled_from_;
  act_.shape(count, width, quantize_inputs_, f32_inputs_);
  if (tiled) act_.shapeTiles();
  // Tiled, in whole chunks of the tiles (Activations::kTileChunk positions): a thread's cells
  // are then one run of writes, where positions shared out one by one wrote lines the other
  // thread was writing too.
  const int unit = tiled ? Activations::kTileChunk : 1, units = (count + unit - 1) / unit;
  parallel(units, static_cast<size_t>(count) * width, [&](int first, int last) {
    const int begin = first * unit, end = std::min(last * unit, count);
    act_.setRows(x, begin, end);
    if (tiled) act_.tileRows(begin, end);
  });
  if (k_inputs_) act_.quantizeK();
  if (grouped_inputs_) act_.groupForQ4_0();
  if (half_inputs_) act_.roundToHalf();
}

void CpuSession::eachPosition(int count, size_t width, const std::function<void(int)>& fn) {
  parallel(count, count * width, [&](int begin, int end) {
    for (int i = begin; i < end; ++i) fn(i);
  });
}

CpuSession::CpuSession(std::shared_ptr<const Model> model, int max_positions, KvFormat kv_format,
                       int threads)
    : model_(std::move(model)),
      max_positions_(max_positions),
      quantize_inputs_(anyMatrix(*model_, std::mem_fn(&QuantMatrix::needsQuantizedInput))),
      k_inputs_(anyMatrix(*model_, std::mem_fn(&QuantMatrix::needsKInput))),
      grouped_inputs_(anyMatrix(*model_, std::mem_fn(&QuantMatrix::needsGroupedInput))),
      tiled_from_(fewestTiledPositions(*model_)),
      half_inputs_(anyMatrix(*model_, std::mem_fn(&QuantMatrix::needsHalfInput))),
      f32_inputs_(k_inputs_ || half_inputs_ ||
                  anyMatrix(*model_, std::mem_fn(&QuantMatrix::needsF32Input))),
      cache_(model_->config.n_layers, max_positions, model_->config.n_kv_heads,
             model_->config.head_dim, kv_format),
      pool_(threads > 1 ? std::make_unique<ThreadPool>(threads) : nullptr) {
  if (model_->config.positional == Positional::Alibi)
    alibi_slopes_ = alibiSlopes(model_->config.n_heads);
}

void CpuSession::parallel(int n, size_t work, const std::function<void(int, int)>& fn) {
  // Waking threads costs microseconds: small jobs are faster on the calling thread.
  constexpr size_t kMinParallelWork = 1 << 18;
  if (!pool_ || work < kMinParallelWork || n < 2) return fn(0, n);
  // Shrinking chunks: the first ones long (a quarter of a matrix's rows on two threads:
  // long weight streams), the last ones short (1/64 of a thread's share), so the threads
  // finish together even when one of them was slowed.
  pool_->parallelGuided(n, std::max(1, n / (64 * pool_->threads())), fn);
}

void CpuSession::multiply(const QuantMatrix& w, float* out, const Activations& act) {
  multiply({{&w, out}}, act);
}

void CpuSession::multiply(std::initializer_list<Product> products, const Activations& act) {
  // Work in units of each matrix's splitRows() (a panelled matrix's products take whole
  // slabs or super-panels); a matrix's last unit may be shorter.
  const auto units = [](const QuantMatrix& w) {
    return (w.rows() + w.splitRows() - 1) / w.splitRows();
  };
  int total = 0, rows = 0;
  for (const Product& p : products) total += units(*p.w), rows += p.w->rows();
  const size_t work = static_cast<size_t>(rows) * products.begin()->w->cols() * act.count;
  // Units [begin, end) of the stacked matrices, cut at the boundaries between them.
  parallel(total, work, [&](int begin, int end) {
    int first = 0;  // stacked index of the current matrix's unit 0
    for (const Product& p : products) {
      const int n = units(*p.w), from = std::max(begin, first), to = std::min(end, first + n);
      const int unit = p.w->splitRows();
      if (from < to)
        p.w->multiplyRows(p.out, p.w->rows(), act, (from - first) * unit,
                          std::min((to - first) * unit, p.w->rows()));
      first += n;
    }
  });
}

// Position pos + i of a segment attends to its positions 0 ..= pos + i (causal): each query
// head with all the segment's positions, in tiles (cpu_attention.h); segment by segment and
// head by head over the threads.
void CpuSession::attention(int layer, std::span<const Segment> segments) {
  const ModelConfig& c = model_->config;
  const int group = c.n_heads / c.n_kv_heads;  // query heads per KV head
  const size_t q_dim = static_cast<size_t>(c.n_heads) * c.head_dim;
  size_t work = 0;
  for (const Segment& s : segments)
    work += static_cast<size_t>(s.count) * c.n_heads * (s.pos + s.count) * c.head_dim;
  const int units = static_cast<int>(segments.size()) * c.n_heads;
  parallel(units, work, [&](int begin, int end) {
    for (int u = begin; u < end; ++u) {
      const Segment& s = segments[u / c.n_heads];
      const int h = u % c.n_heads;
      const size_t at = s.row * q_dim + h * c.head_dim;
      attendTiled(*s.cache, layer, h / group, c.head_dim,
                  alibi_slopes_.empty() ? 0.f : alibi_slopes_[h], q_.data() + at, q_dim, s.pos,
                  s.count, xb_.data() + at, q_dim);
    }
  });
}

void CpuSession::truncate(int length) {
  if (length < written_) cache_.clear(length, written_);
  written_ = std::min(written_, std::max(0, length));
}

std::span<const float> CpuSession::forward(int token, int pos) {
  return forwardBatch(std::span<const int>(&token, 1), pos);
}

std::span<const float> CpuSession::forwardBatch(std::span<const int> tokens, int pos,
                                                bool all_logits) {
  const int n = static_cast<int>(tokens.size());
  if (n == 0 || pos < 0 || pos + n > max_positions_)
    throw std::out_of_range("forward: positions " + std::to_string(pos) + ".." +
                            std::to_string(pos + n - 1) + " outside the KV cache of " +
                            std::to_string(max_positions_));
  written_ = std::max(written_, pos + n);
  tokens_.assign(tokens.begin(), tokens.end());
  const Segment segment{&cache_, pos, n, 0, all_logits};
  cache_.reserve(pos, pos + n);
  return run({&segment, 1});
}

bool CpuSession::usePagedKv(int blocks) {
  const ModelConfig& c = model_->config;
  paged_ =
      std::make_unique<KvBlockPool>(blocks, c.n_layers, c.n_kv_heads, c.head_dim, cache_.format());
  return true;
}

void CpuSession::allocateKvBlocks(std::span<const int> blocks) {
  if (!paged_) throw std::logic_error("allocateKvBlocks: usePagedKv was not called");
  paged_->allocate(blocks);
}

size_t CpuSession::kvCacheBytes() const {
  return paged_ ? paged_->bytes() : cache_.bytes();
}

size_t CpuSession::kvBlockBytes() const {
  return paged_ ? paged_->blockBytes() : 0;
}

void CpuSession::copyKvBlock(int from, int to) {
  if (!paged_) throw std::logic_error("copyKvBlock: usePagedKv was not called");
  if (from < 0 || to < 0 || from >= paged_->size() || to >= paged_->size())
    throw std::out_of_range("copyKvBlock: blocks " + std::to_string(from) + " -> " +
                            std::to_string(to) + " outside the pool of " +
                            std::to_string(paged_->size()));
  paged_->copy(from, to);
}

std::unique_ptr<DecodeSession> CpuSession::spawn(int max_positions, int threads) const {
  return std::make_unique<CpuSession>(model_, max_positions, cache_.format(), threads);
}

KvCache CpuSession::pooledView(DecodeSession& paged, std::span<const int> table, int from, int to,
                               const char* what) const {
  auto* other = dynamic_cast<CpuSession*>(&paged);
  if (!other || !other->paged_)
    throw std::invalid_argument(std::string(what) + ": the other session has no CPU KV pool");
  if (other->model_->config.n_layers != model_->config.n_layers ||
      other->paged_->kvHeads() != model_->config.n_kv_heads ||
      other->paged_->headDim() != model_->config.head_dim ||
      other->paged_->format() != cache_.format())
    throw std::invalid_argument(std::string(what) +
                                ": the sessions' KV caches differ in shape or format");
  if (from < 0 || from > to || to > static_cast<int>(table.size()) * kKvBlock ||
      to > max_positions_)
    throw std::out_of_range(std::string(what) + ": positions " + std::to_string(from) + ".." +
                            std::to_string(to - 1) + " outside " + std::to_string(table.size()) +
                            " KV blocks or the cache of " + std::to_string(max_positions_));
  for (int b : table)
    if (b < 0 || b >= other->paged_->size())
      throw std::out_of_range(std::string(what) + ": KV block " + std::to_string(b) +
                              " outside the pool of " + std::to_string(other->paged_->size()));
  return KvCache(*other->paged_, table);
}

void CpuSession::copyKvToBlocks(DecodeSession& paged, std::span<const int> table, int from,
                                int to) {
  KvCache view = pooledView(paged, table, from, to, "copyKvToBlocks");
  view.copyRows(cache_, from, to);
}

void CpuSession::copyKvFromBlocks(DecodeSession& paged, std::span<const int> table, int from,
                                  int to) {
  const KvCache view = pooledView(paged, table, from, to, "copyKvFromBlocks");
  cache_.copyRows(view, from, to);
  written_ = std::max(written_, to);
}

std::span<const float> CpuSession::forwardSequences(std::span<const SequencePass> passes) {
  if (!paged_) throw std::logic_error("forwardSequences: usePagedKv was not called");
  std::vector<KvCache> views;  // each pass's blocks as a cache
  std::vector<Segment> segments;
  views.reserve(passes.size());
  tokens_.clear();
  for (const SequencePass& p : passes) {
    const int n = static_cast<int>(p.tokens.size());
    const int covered = static_cast<int>(p.blocks.size()) * kKvBlock;
    if (n == 0 || p.pos < 0 || p.pos + n > covered)
      throw std::out_of_range("forwardSequences: positions " + std::to_string(p.pos) + ".." +
                              std::to_string(p.pos + n - 1) + " outside the sequence's " +
                              std::to_string(p.blocks.size()) + " KV blocks");
    for (int b : p.blocks)
      if (b < 0 || b >= paged_->size())
        throw std::out_of_range("forwardSequences: KV block " + std::to_string(b) +
                                " outside the pool of " + std::to_string(paged_->size()));
    views.emplace_back(*paged_, p.blocks);
    segments.push_back({&views.back(), p.pos, n, static_cast<int>(tokens_.size()), p.all_logits});
    tokens_.insert(tokens_.end(), p.tokens.begin(), p.tokens.end());
  }
  if (segments.empty()) return {};
  return run(segments);
}

std::span<const float> CpuSession::run(std::span<const Segment> segments) {
  const Model& m = *model_;
  const ModelConfig& c = m.config;
  const int n = static_cast<int>(tokens_.size());
  const std::vector<int>& tokens = tokens_;
  row_pos_.resize(n);
  row_segment_.resize(n);
  for (size_t s = 0; s < segments.size(); ++s)
    for (int i = 0; i < segments[s].count; ++i) {
      row_pos_[segments[s].row + i] = segments[s].pos + i;
      row_segment_[segments[s].row + i] = static_cast<int>(s);
    }
  const size_t D = c.dim, F = c.ffn_dim, Q = static_cast<size_t>(c.n_heads) * c.head_dim,
               KV = static_cast<size_t>(c.n_kv_heads) * c.head_dim;
  x_.resize(n * D);
  xb_.resize(n * std::max(D, Q));
  xb2_.resize(n * D);
  q_.resize(n * Q);
  k_.resize(n * KV);
  v_.resize(n * KV);
  hb_.resize(n * F);
  hb2_.resize(n * F);
  eachPosition(n, D, [&](int i) { m.token_embd.rowF32(tokens[i], x_.data() + i * D); });
  const auto norm_all = [&](const WeightBuffer<float>& weight) {
    eachPosition(n, D, [&](int i) {
      rmsnorm(xb_.data() + i * D, x_.data() + i * D, weight.data(), c.dim, c.rms_eps);
    });
  };
  const auto add_residual = [&] {  // x += xb2
    eachPosition(n, D, [&](int i) {
      for (size_t j = i * D; j < (i + 1) * D; ++j) x_[j] += xb2_[j];
    });
  };
  for (int l = 0; l < c.n_layers; ++l) {
    const LayerWeights& w = m.layers[l];
    norm_all(w.attn_norm);
    prepareInput(xb_.data(), n, c.dim);
    multiply({{&w.wq, q_.data()}, {&w.wk, k_.data()}, {&w.wv, v_.data()}}, act_);
    // RoPE and the KV rows' store by position on the threads (RoPE's sines and powers took
    // 6 ms of a 128-position pass on one thread, the store 1% of it): the caches' blocks
    // were allocated before the pass, so that the threads only write rows
    eachPosition(n, Q + 2 * KV, [&](int i) {
      const int at = row_pos_[i];
      if (c.positional == Positional::Rope) {
        rope(q_.data() + i * Q, c.n_heads, c.head_dim, c.rope_dim, at, c.rope_theta);
        rope(k_.data() + i * KV, c.n_kv_heads, c.head_dim, c.rope_dim, at, c.rope_theta);
      }
      segments[row_segment_[i]].cache->store(l, at, k_.data() + i * KV, v_.data() + i * KV);
    });
    attention(l, segments);
    prepareInput(xb_.data(), n, static_cast<int>(Q));
    multiply(w.wo, xb2_.data(), act_);
    add_residual();

    norm_all(w.ffn_norm);
    prepareInput(xb_.data(), n, c.dim);
    multiply({{&w.w_gate, hb_.data()}, {&w.w_up, hb2_.data()}}, act_);
    const Kernels& kernels = activeKernels();
    eachPosition(n, F, [&](int i) {  // silu(gate) * up
      kernels.swiglu(hb_.data() + i * F, hb2_.data() + i * F, F);
    });
    prepareInput(hb_.data(), n, c.ffn_dim);
    multiply(w.w_down, xb2_.data(), act_);
    add_residual();
  }
  // Only the rows whose logits are wanted, gathered in order when they are not one run
  // already (several segments), into xb_.
  int wanted = 0, first = n;
  for (const Segment& s : segments) {
    const int from = s.all_logits ? s.row : s.row + s.count - 1;
    first = std::min(first, from);
    wanted += s.row + s.count - from;
  }
  float* rows = x_.data() + first * D;
  if (first + wanted != n) {
    rows = xb_.data();
    int at = 0;
    for (const Segment& s : segments)
      for (int i = s.all_logits ? s.row : s.row + s.count - 1; i < s.row + s.count; ++i)
        std::copy(x_.data() + i * D, x_.data() + (i + 1) * D, rows + D * at++);
  }
  for (int i = 0; i < wanted; ++i)
    rmsnorm(rows + i * D, rows + i * D, m.output_norm.data(), c.dim, c.rms_eps);
  prepareInput(rows, wanted, c.dim);
  logits_.resize(static_cast<size_t>(wanted) * c.vocab);
  multiply(m.classifier, logits_.data(), act_);
  return logits_;
}

}  // namespace ts::engine
