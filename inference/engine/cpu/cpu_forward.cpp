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

// Position pos + i of the pass attends to positions 0 ..= pos + i (causal): each query head
// with all the pass's positions, in tiles (cpu_attention.h).
void CpuSession::attention(int layer, int pos, int count) {
  const ModelConfig& c = model_->config;
  const int group = c.n_heads / c.n_kv_heads;  // query heads per KV head
  const size_t q_dim = static_cast<size_t>(c.n_heads) * c.head_dim;
  const size_t work = static_cast<size_t>(count) * c.n_heads * (pos + count) * c.head_dim;
  parallel(c.n_heads, work, [&](int begin, int end) {
    for (int h = begin; h < end; ++h)
      attendTiled(cache_, layer, h / group, c.head_dim,
                  alibi_slopes_.empty() ? 0.f : alibi_slopes_[h], q_.data() + h * c.head_dim, q_dim,
                  pos, count, xb_.data() + h * c.head_dim, q_dim);
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
  const Model& m = *model_;
  const ModelConfig& c = m.config;
  const int n = static_cast<int>(tokens.size());
  if (n == 0 || pos < 0 || pos + n > max_positions_)
    throw std::out_of_range("forward: positions " + std::to_string(pos) + ".." +
                            std::to_string(pos + n - 1) + " outside the KV cache of " +
                            std::to_string(max_positions_));
  written_ = std::max(written_, pos + n);
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
    // 6 ms of a 128-position pass on one thread, the store 1% of it): the cache's blocks
    // allocated first, here, so that the threads only write rows
    cache_.reserve(pos, pos + n);
    eachPosition(n, Q + 2 * KV, [&](int i) {
      if (c.positional == Positional::Rope) {
        rope(q_.data() + i * Q, c.n_heads, c.head_dim, c.rope_dim, pos + i, c.rope_theta);
        rope(k_.data() + i * KV, c.n_kv_heads, c.head_dim, c.rope_dim, pos + i, c.rope_theta);
      }
      cache_.store(l, pos + i, k_.data() + i * KV, v_.data() + i * KV);
    });
    attention(l, pos, n);
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
  const int first = all_logits ? 0 : n - 1;  // only the positions whose logits are wanted
  for (int i = first; i < n; ++i)
    rmsnorm(x_.data() + i * D, x_.data() + i * D, m.output_norm.data(), c.dim, c.rms_eps);
  prepareInput(x_.data() + first * D, n - first, c.dim);
  logits_.resize(static_cast<size_t>(n - first) * c.vocab);
  multiply(m.classifier, logits_.data(), act_);
  return logits_;
}

}  // namespace ts::engine
