// Hugging Face safetensors: an 8-byte little-endian header length, a JSON header naming
// each tensor's dtype, shape and [begin, end) byte range in the data that follows, then
// the data. A pure parser over the file's bytes; every range is checked against the file.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "inference/engine/core/result.h"
#include "inference/engine/core/tensor_types.h"

namespace ts::engine {

struct SafetensorsTensor {
  std::string name;
  std::string dtype;            // "F32", "F16", "BF16", ... as written
  std::vector<uint64_t> shape;  // row-major, outermost first: [out, in] for a matrix
  uint64_t offset = 0;          // from the start of the file
  uint64_t bytes = 0;
  // The engine's element type for dtype, or nullopt for one it does not read.
  std::optional<TensorType> type() const;
};

struct SafetensorsFile {
  std::vector<SafetensorsTensor> tensors;
  const SafetensorsTensor* tensor(const std::string& name) const;
};

Result<SafetensorsFile> parseSafetensors(std::span<const uint8_t> bytes);

}  // namespace ts::engine
