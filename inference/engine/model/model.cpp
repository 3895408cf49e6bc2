#include "inference/engine/model/model.h"

#include <cmath>
#include <map>
#include <string>

namespace ts::engine {

float unitRowScale(const float* row, int cols) {
  double ss = 0;
  for (int c = 0; c < cols; ++c) ss += static_cast<double>(row[c]) * row[c];
  const double norm = std::sqrt(ss);
  return norm > 1e-12 ? static_cast<float>(1.0 / norm) : 1.f;  // normalize's eps
}

void normalizeRows(WeightBuffer<float>& w, int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    float* row = w.data() + static_cast<size_t>(r) * cols;
    const float scale = unitRowScale(row, cols);
    for (int c = 0; c < cols; ++c) row[c] *= scale;
  }
}

std::string ModelConfig::describe() const {
  return architecture + " (" + source_format + "): " + std::to_string(n_layers) +
         " layers, width " + std::to_string(dim) + ", " + std::to_string(n_heads) + " heads / " +
         std::to_string(n_kv_heads) + " KV heads of " + std::to_string(head_dim) + ", FFN " +
         std::to_string(ffn_dim) + ", vocab " + std::to_string(vocab) + ", context " +
         std::to_string(context) + ", " + (positional == Positional::Rope ? "RoPE" : "ALiBi") +
         (norm_head ? ", NormHead" : "");
}

size_t Model::weight_bytes() const {
  size_t n = classifier.bytes();
  for (const auto& l : layers)
    for (const QuantMatrix* m : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down})
      n += m->bytes();
  return n;
}

std::string Model::weightSummary() const {
  std::map<std::string, int> counts;
  ++counts[classifier.formatName()];
  for (const auto& l : layers)
    for (const QuantMatrix* m : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down})
      ++counts[m->formatName()];
  std::string s;
  for (const auto& [name, n] : counts)
    s += (s.empty() ? "" : ", ") + name + " x" + std::to_string(n);
  return s;
}

}  // namespace ts::engine
