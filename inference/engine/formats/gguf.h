// GGUF v2/v3: a pure parser over the file's bytes. Metadata of every value type, tensor
// directory with types, shapes and offsets, checked against the buffer's size.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "inference/engine/core/result.h"
#include "inference/engine/core/tensor_types.h"

namespace ts::engine {

struct GgufValue;
using GgufArray = std::vector<GgufValue>;

// uint64 holds every unsigned type, int64 every signed one, double both float types.
struct GgufValue {
  std::variant<uint64_t, int64_t, double, bool, std::string, std::shared_ptr<GgufArray>> v;

  std::optional<int64_t> asInt() const;
  std::optional<double> asFloat() const;
  const std::string* asString() const;
  const GgufArray* asArray() const;
};

struct GgufTensor {
  std::string name;
  TensorType type;
  std::vector<uint64_t> dims;  // ggml order: dims[0] is the row length (innermost)
  uint64_t offset = 0;         // from the start of the file
  uint64_t bytes = 0;
  uint64_t elements() const;
};

struct GgufFile {
  uint32_t version = 0;
  std::map<std::string, GgufValue> metadata;
  std::vector<GgufTensor> tensors;
  uint64_t alignment = 32;

  const GgufValue* find(const std::string& key) const;
  const GgufTensor* tensor(const std::string& name) const;
};

// Never reads past `bytes`; every malformed input gives an error naming what was
// expected and what was found.
Result<GgufFile> parseGguf(std::span<const uint8_t> bytes);

}  // namespace ts::engine
