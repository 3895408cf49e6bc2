// JSON as model files carry it (config.json, model.safetensors.index.json, safetensors
// headers), parsed by nlohmann-json into a value that keeps the file's key order. Pure:
// text in, value or error out; nothing throws out of here (nlohmann's exceptions become
// Results that name the byte offset).
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "inference/engine/core/result.h"

namespace ts::engine {

using Json = nlohmann::ordered_json;  // objects in file order

// Deeper nesting than this is not a model file: refused before it is built.
constexpr int kMaxJsonDepth = 64;

// Errors: "expected valid JSON, found <what> at byte N" (N counted from 1, as
// nlohmann-json reports it).
Result<Json> parseJson(std::string_view text);

// A JSON file's value; errors name the file ("config.json: expected ...").
Result<Json> readJsonFile(const std::string& path);

// Member `key` of an object, or null when `value` is no object or has no such member.
const Json* jsonFind(const Json& value, std::string_view key);
// An integer, or a floating-point number without a fraction (as Python's json writes 1e3).
std::optional<int64_t> jsonInt(const Json& value);
std::optional<double> jsonNumber(const Json& value);

}  // namespace ts::engine
