// One tensor of a checkpoint file (safetensors or a PyTorch .bin), as the parsers find it:
// its name, element type, shape and where its bytes lie in the file. Both readers check
// every range against the file, so a caller may read [offset, offset + bytes) as it is.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "inference/engine/core/tensor_types.h"

namespace ts::engine {

struct CheckpointTensor {
  std::string name;
  std::string dtype;            // safetensors' names: "F32", "F16", "BF16", "I64", ...
  std::vector<uint64_t> shape;  // row-major, outermost first: [out, in] for a matrix
  uint64_t offset = 0;          // from the start of the file
  uint64_t bytes = 0;
  // The engine's element type for dtype, or nullopt for one it does not read.
  std::optional<TensorType> type() const;
};

struct CheckpointFile {
  std::vector<CheckpointTensor> tensors;
  const CheckpointTensor* tensor(const std::string& name) const;
};

}  // namespace ts::engine
