#include "inference/engine/formats/checkpoint_tensor.h"

namespace ts::engine {

std::optional<TensorType> CheckpointTensor::type() const {
  if (dtype == "F32") return TensorType::F32;
  if (dtype == "F16") return TensorType::F16;
  if (dtype == "BF16") return TensorType::BF16;
  return std::nullopt;
}

const CheckpointTensor* CheckpointFile::tensor(const std::string& name) const {
  for (const auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

}  // namespace ts::engine
