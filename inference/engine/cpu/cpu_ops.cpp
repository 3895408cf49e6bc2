#include "inference/engine/cpu/cpu_ops.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "inference/engine/cpu/kernels/kernels.h"

namespace ts::engine {

void rmsnorm(float* out, const float* x, const float* w, int n, float eps) {
  // The squares summed in double as llama.cpp's CPU backend does, in eight interleaved sums
  // (one f32 chain of 4,096 dependent additions took 3 cycles a value: 1.5% of a
  // verification of five, on one thread), added in a fixed order.
  double part[8] = {};
  int i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j) part[j] += static_cast<double>(x[i + j] * x[i + j]);
  for (; i < n; ++i) part[i % 8] += static_cast<double>(x[i] * x[i]);
  const double ss =
      ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
  const float scale = 1.0f / std::sqrt(static_cast<float>(ss / n) + eps);
  for (int i = 0; i < n; ++i) out[i] = w[i] * (x[i] * scale);
}

void rope(float* x, int n_heads, int head_dim, int rope_dim, int pos, float theta) {
  // cos and sin of each pair's angle, once for all heads (per head they cost 4,096 pow and
  // sincos calls per layer of a 7B: 3 % of a decode step)
  thread_local std::vector<float> rotation;  // [rope_dim / 2][cos, sin]
  rotation.resize(rope_dim);
  for (int i = 0; i < rope_dim; i += 2) {
    const float freq = std::pow(theta, -static_cast<float>(i) / rope_dim);
    const float angle = pos * freq;
    rotation[i] = std::cos(angle);
    rotation[i + 1] = std::sin(angle);
  }
  for (int h = 0; h < n_heads; ++h) {
    float* v = x + h * head_dim;
    for (int i = 0; i < rope_dim; i += 2) {
      const float c = rotation[i], s = rotation[i + 1];
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

void swiglu(float* gate, const float* up, size_t n) {
  portableKernels().swiglu(gate, up, n);  // the std::exp form, defined once there
}

void attendHead(const KvCache& cache, int layer, const float* q, int at, int kv_head, int head_dim,
                float slope, float* scratch, float* out) {
  const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
  for (int t = 0; t <= at; ++t)
    scratch[t] = cache.dotKey(layer, t, kv_head, q) * scale + slope * static_cast<float>(t - at);
  softmax(scratch, at + 1);
  std::fill(out, out + head_dim, 0.f);
  for (int t = 0; t <= at; ++t) cache.addValue(layer, t, kv_head, scratch[t], out);
}

}  // namespace ts::engine
