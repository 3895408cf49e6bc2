#include "inference/engine/formats/json_reader.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ts::engine {
namespace {

struct TooDeep {};  // thrown by the parser callback, caught below

// nlohmann's messages start with "[json.exception.parse_error.101] parse error at line 1,
// column 6: "; what follows says what was expected and what was found.
std::string reason(const nlohmann::json::parse_error& e) {
  std::string what = e.what();
  const size_t colon = what.find(": ");
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

}  // namespace

Result<Json> parseJson(std::string_view text) {
  const Json::parser_callback_t depth_limit = [](int depth, Json::parse_event_t event, Json&) {
    if ((event == Json::parse_event_t::object_start || event == Json::parse_event_t::array_start) &&
        depth >= kMaxJsonDepth)
      throw TooDeep{};
    return true;
  };
  try {
    return Json::parse(text.begin(), text.end(), depth_limit);
  } catch (const nlohmann::json::parse_error& e) {
    return fail("expected valid JSON, found an error at byte " + std::to_string(e.byte) + ": " +
                reason(e));
  } catch (const TooDeep&) {
    return fail("expected JSON of at most " + std::to_string(kMaxJsonDepth) +
                " nested levels, found deeper nesting");
  } catch (const std::exception& e) {  // e.g. out of memory on a huge header
    return fail(std::string("expected valid JSON, found: ") + e.what());
  }
}

const Json* jsonFind(const Json& value, std::string_view key) {
  if (!value.is_object()) return nullptr;
  const auto it = value.find(key);
  return it == value.end() ? nullptr : &*it;
}

std::optional<int64_t> jsonInt(const Json& value) {
  if (value.is_number_integer()) {
    if (value.is_number_unsigned() && value.get<uint64_t>() > uint64_t{INT64_MAX})
      return std::nullopt;
    return value.get<int64_t>();
  }
  if (value.is_number_float()) {
    const double d = value.get<double>();
    if (std::isfinite(d) && std::floor(d) == d && std::abs(d) < 9.2e18)
      return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

std::optional<double> jsonNumber(const Json& value) {
  if (value.is_number()) return value.get<double>();
  return std::nullopt;
}

Result<Json> readJsonFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  auto json = parseJson(text.str());
  if (!json) return fail(std::filesystem::path(path).filename().string() + ": " + json.error());
  return json;
}

}  // namespace ts::engine
