#include "inference/engine/model/random_model.h"

#include <random>

namespace ts::engine {

Result<ModelConfig> shapeConfig(const std::string& shape, int layers) {
  ModelConfig c;
  c.source_format = "random";
  c.rms_eps = 1e-6f;
  // name: architecture, layers, width, heads, FFN, vocab, positional
  if (shape == "baichuan-7b")
    c = {"baichuan", "random", 32,   4096,  32,      32,  128,
         11008,      64000,    4096, 1e-6f, 10000.f, 128, Positional::Rope};
  else if (shape == "baichuan-13b")
    c = {"baichuan", "random", 40,   5120,  40,      40,  128,
         13696,      64000,    4096, 1e-6f, 10000.f, 128, Positional::Alibi};
  else if (shape == "baichuan2-7b")
    c = {"baichuan", "random", 32,   4096,  32,      32,  128,
         11008,      125696,   4096, 1e-6f, 10000.f, 128, Positional::Rope};
  else if (shape == "baichuan2-13b")
    c = {"baichuan", "random", 40,   5120,  40,      40,  128,
         13696,      125696,   4096, 1e-6f, 10000.f, 128, Positional::Alibi};
  else if (shape == "llama-tiny")
    c = {"llama", "random", 4, 256, 8, 4, 32, 688, 4096, 512, 1e-5f, 10000.f, 32, Positional::Rope};
  else
    return fail("unknown shape '" + shape +
                "': expected baichuan-7b, baichuan-13b, baichuan2-7b, baichuan2-13b or llama-tiny");
  if (layers > 0) c.n_layers = layers;
  c.norm_head = c.architecture == "baichuan" && c.vocab == kBaichuan2Vocab;
  return c;
}

std::shared_ptr<Model> randomModel(const ModelConfig& config, WeightFormat weights, uint64_t seed) {
  auto model = std::make_shared<Model>();
  model->config = config;
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.f, 0.02f);
  // f32 values: "auto" keeps them as they are
  const bool keep = weights == WeightFormat::F32 || weights == WeightFormat::Stored;
  const auto random = [&](int rows, int cols) {
    WeightBuffer<float> w(static_cast<size_t>(rows) * cols);
    for (float& v : w) v = normal(rng);
    QuantMatrix m = QuantMatrix::fromF32(std::move(w), rows, cols);
    return keep ? m : m.converted(weights, 128);
  };
  const int D = config.dim, F = config.ffn_dim, Q = config.n_heads * config.head_dim,
            KV = config.n_kv_heads * config.head_dim;
  WeightBuffer<float> embd(static_cast<size_t>(config.vocab) * D);
  for (float& v : embd) v = normal(rng);
  model->token_embd = QuantMatrix::fromF32(std::move(embd), config.vocab, D);
  model->output_norm.assign(D, 1.f);
  if (config.norm_head) {  // Baichuan2: unit-length classifier rows, as loadModel leaves them
    WeightBuffer<float> head(static_cast<size_t>(config.vocab) * D);
    for (float& v : head) v = normal(rng);
    normalizeRows(head, config.vocab, D);
    const QuantMatrix m = QuantMatrix::fromF32(std::move(head), config.vocab, D);
    model->classifier = keep ? m : m.converted(weights, 128);
  } else {
    model->classifier = random(config.vocab, D);
  }
  model->layers.resize(config.n_layers);
  for (auto& l : model->layers) {
    l.attn_norm.assign(D, 1.f);
    l.ffn_norm.assign(D, 1.f);
    l.wq = random(Q, D);
    l.wk = random(KV, D);
    l.wv = random(KV, D);
    l.wo = random(D, Q);
    l.w_gate = random(F, D);
    l.w_up = random(F, D);
    l.w_down = random(D, F);
  }
  model->weight_format = keep ? WeightFormat::F32 : weights;
  return model;
}

}  // namespace ts::engine
