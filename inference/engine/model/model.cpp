#include "inference/engine/model/model.h"

#include <cmath>
#include <map>
#include <string>

namespace ts::engine {

void normalizeRows(WeightBuffer<float>& w, int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    float* row = w.data() + static_cast<size_t>(r) * cols;
    double ss = 0;
    for (int c = 0; c < cols; ++c) ss += static_cast<double>(row[c]) * row[c];
    const double norm = std::sqrt(ss);
    if (norm > 1e-12)  // torch.nn.functional.normalize's eps
      for (int c = 0; c < cols; ++c) row[c] = static_cast<float>(row[c] / norm);
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
