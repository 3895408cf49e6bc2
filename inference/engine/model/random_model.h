// Models with seeded random weights in a named shape, for tests and benchmarks (no file).
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "inference/engine/model/model.h"

namespace ts::engine {

// shape: baichuan-7b, baichuan-13b, baichuan2-7b, baichuan2-13b or llama-tiny; layers > 0
// cuts the model to that many layers.
Result<ModelConfig> shapeConfig(const std::string& shape, int layers = 0);
// Weights ~ N(0, 0.02) (norms 1), quantized to `weights` (int4 groups of 128).
std::shared_ptr<Model> randomModel(const ModelConfig& config, WeightFormat weights, uint64_t seed);

}  // namespace ts::engine
