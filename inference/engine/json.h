// A small strict JSON reader (RFC 8259) for the files models come with: config.json,
// model.safetensors.index.json and safetensors headers. Pure: text in, value or error out.
// Integers without fraction or exponent stay exact int64 (safetensors offsets).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "inference/engine/result.h"

namespace ts::engine {

struct JsonValue;
using JsonArray = std::vector<JsonValue>;
using JsonObject = std::vector<std::pair<std::string, JsonValue>>;  // in file order

struct JsonValue {
  std::variant<std::nullptr_t, bool, int64_t, double, std::string, std::shared_ptr<JsonArray>,
               std::shared_ptr<JsonObject>>
      v = nullptr;

  std::optional<int64_t> asInt() const;  // an integer, or a double with no fraction
  std::optional<double> asNumber() const;
  std::optional<bool> asBool() const;
  const std::string* asString() const;
  const JsonArray* asArray() const;
  const JsonObject* asObject() const;
  const JsonValue* find(std::string_view key) const;  // objects only; the first match
  std::string typeName() const;                       // "null", "object", ... for errors
};

// Errors say what was expected and what was found, with the byte offset.
Result<JsonValue> parseJson(std::string_view text);

}  // namespace ts::engine
