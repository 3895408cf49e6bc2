#include "inference/engine/cpu_forward.h"

#include <algorithm>
#include <cmath>

namespace ts::engine {
namespace {

// out = x * w / sqrt(mean(x^2) + eps);  x, w, out: [n]
void rmsnorm(float* out, const float* x, const float* w, int n, float eps) {
  float ss = 0.f;
  for (int i = 0; i < n; ++i) ss += x[i] * x[i];
  const float scale = 1.0f / std::sqrt(ss / n + eps);
  for (int i = 0; i < n; ++i) out[i] = w[i] * (x[i] * scale);
}

// Rotates adjacent pairs (x[2i], x[2i+1]) of each head by pos * theta^(-2i/rope_dim);
// the form GGUF llama/baichuan files and llama2.c checkpoints are stored for.
void rope(float* x, int n_heads, int head_dim, int rope_dim, int pos, float theta) {
  for (int h = 0; h < n_heads; ++h) {
    float* v = x + h * head_dim;
    for (int i = 0; i < rope_dim; i += 2) {
      const float freq = std::pow(theta, -static_cast<float>(i) / rope_dim);
      const float angle = pos * freq;
      const float c = std::cos(angle), s = std::sin(angle);
      const float a = v[i], b = v[i + 1];
      v[i] = a * c - b * s;
      v[i + 1] = a * s + b * c;
    }
  }
}

void softmax(float* x, int n) {
  const float max = *std::max_element(x, x + n);
  float sum = 0.f;
  for (int i = 0; i < n; ++i) {
    x[i] = std::exp(x[i] - max);
    sum += x[i];
  }
  for (int i = 0; i < n; ++i) x[i] /= sum;
}

}  // namespace

std::vector<float> alibiSlopes(int n_heads) {
  const int floor_pow2 = 1 << static_cast<int>(std::floor(std::log2(n_heads)));
  const float m0 = std::pow(2.0f, -8.0f / floor_pow2);
  const float m1 = std::pow(2.0f, -4.0f / floor_pow2);
  std::vector<float> slopes(n_heads);
  for (int h = 0; h < n_heads; ++h)
    slopes[h] = h < floor_pow2 ? std::pow(m0, h + 1) : std::pow(m1, 2 * (h - floor_pow2) + 1);
  return slopes;
}

CpuSession::CpuSession(std::shared_ptr<const Model> model, int max_positions, KvFormat kv_format,
                       int threads)
    : model_(std::move(model)),
      max_positions_(max_positions),
      cache_(model_->config.n_layers, max_positions, model_->config.n_kv_heads,
             model_->config.head_dim, kv_format),
      pool_(threads > 1 ? std::make_unique<ThreadPool>(threads) : nullptr) {
  const ModelConfig& c = model_->config;
  const size_t kv_dim = static_cast<size_t>(c.n_kv_heads) * c.head_dim;
  const size_t q_dim = static_cast<size_t>(c.n_heads) * c.head_dim;
  x_.resize(c.dim);
  xb_.resize(std::max<size_t>(c.dim, q_dim));
  xb2_.resize(c.dim);
  q_.resize(q_dim);
  k_.resize(kv_dim);
  v_.resize(kv_dim);
  att_.resize(static_cast<size_t>(c.n_heads) * max_positions);
  hb_.resize(c.ffn_dim);
  hb2_.resize(c.ffn_dim);
  logits_.resize(c.vocab);
  if (c.positional == Positional::Alibi) alibi_slopes_ = alibiSlopes(c.n_heads);
}

void CpuSession::matvec(const QuantMatrix& w, float* out, const float* x) {
  // Waking threads costs microseconds: small matrices are faster on the calling thread.
  constexpr size_t kMinParallelElements = 1 << 18;
  if (!pool_ || static_cast<size_t>(w.rows()) * w.cols() < kMinParallelElements)
    return w.matvec(out, x);
  pool_->parallelFor(w.rows(), [&](int begin, int end) { w.matvecRows(out, x, begin, end); });
}

void CpuSession::attention(int layer, int pos) {
  const ModelConfig& c = model_->config;
  const int group = c.n_heads / c.n_kv_heads;  // query heads per KV head
  const float scale = 1.0f / std::sqrt(static_cast<float>(c.head_dim));
  for (int h = 0; h < c.n_heads; ++h) {
    const float* q = q_.data() + h * c.head_dim;
    float* att = att_.data() + static_cast<size_t>(h) * max_positions_;
    const int kv_head = h / group;
    for (int t = 0; t <= pos; ++t) {
      float score = cache_.dotKey(layer, t, kv_head, q) * scale;
      if (!alibi_slopes_.empty()) score += alibi_slopes_[h] * static_cast<float>(t - pos);
      att[t] = score;
    }
    softmax(att, pos + 1);
    float* out = xb_.data() + h * c.head_dim;
    std::fill(out, out + c.head_dim, 0.f);
    for (int t = 0; t <= pos; ++t) cache_.addValue(layer, t, kv_head, att[t], out);
  }
}

std::span<const float> CpuSession::forward(int token, int pos) {
  const Model& m = *model_;
  const ModelConfig& c = m.config;
  const int D = c.dim, F = c.ffn_dim;
  std::copy_n(m.token_embd.data() + static_cast<size_t>(token) * D, D, x_.data());
  for (int l = 0; l < c.n_layers; ++l) {
    const LayerWeights& w = m.layers[l];
    rmsnorm(xb_.data(), x_.data(), w.attn_norm.data(), D, c.rms_eps);
    matvec(w.wq, q_.data(), xb_.data());
    matvec(w.wk, k_.data(), xb_.data());
    matvec(w.wv, v_.data(), xb_.data());
    if (c.positional == Positional::Rope) {
      rope(q_.data(), c.n_heads, c.head_dim, c.rope_dim, pos, c.rope_theta);
      rope(k_.data(), c.n_kv_heads, c.head_dim, c.rope_dim, pos, c.rope_theta);
    }
    cache_.store(l, pos, k_.data(), v_.data());
    attention(l, pos);
    matvec(w.wo, xb2_.data(), xb_.data());
    for (int i = 0; i < D; ++i) x_[i] += xb2_[i];

    rmsnorm(xb_.data(), x_.data(), w.ffn_norm.data(), D, c.rms_eps);
    matvec(w.w_gate, hb_.data(), xb_.data());
    matvec(w.w_up, hb2_.data(), xb_.data());
    for (int i = 0; i < F; ++i) {
      const float g = hb_[i];
      hb_[i] = g / (1.0f + std::exp(-g)) * hb2_[i];  // SwiGLU: silu(gate) * up
    }
    matvec(w.w_down, xb2_.data(), hb_.data());
    for (int i = 0; i < D; ++i) x_[i] += xb2_[i];
  }
  rmsnorm(x_.data(), x_.data(), m.output_norm.data(), D, c.rms_eps);
  matvec(m.classifier, logits_.data(), x_.data());
  return logits_;
}

}  // namespace ts::engine
