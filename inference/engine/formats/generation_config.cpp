#include "inference/engine/formats/generation_config.h"

#include <filesystem>

#include "inference/engine/formats/json_reader.h"
#include "inference/engine/formats/model_config_readers.h"

namespace ts::engine {
namespace {

const char* kFile = "generation_config.json";

std::string range(double lo, double hi) {
  char text[64];
  std::snprintf(text, sizeof text, "a number from %g to %g", lo, hi);
  return text;
}

// Key `key` as a number in [lo, hi] into `out` (absent or null: left unset).
template <class T>
std::optional<Error> number(const Json& j, const char* key, double lo, double hi,
                            std::optional<T>& out) {
  const Json* v = jsonFind(j, key);
  if (!v || v->is_null()) return std::nullopt;
  const auto n = jsonNumber(*v);
  const bool whole = !std::is_integral_v<T> || jsonInt(*v);
  if (!n || !whole || *n < lo || *n > hi)
    return fail(std::string(kFile) + ": \"" + key + "\": expected " +
                (std::is_integral_v<T> ? "a whole " : "") + range(lo, hi) + ", found " +
                v->dump().substr(0, 40));
  out = static_cast<T>(*n);
  return std::nullopt;
}

}  // namespace

Result<GenerationDefaults> readGenerationConfig(const std::string& path) {
  namespace fs = std::filesystem;
  const std::string folder = hfFolderOf(path);
  GenerationDefaults d;
  if (folder.empty() || !fs::exists(fs::path(folder) / kFile)) return d;
  auto json = readJsonFile((fs::path(folder) / kFile).string());
  if (!json) return fail(json.error());
  const Json& j = json.value();
  if (!j.is_object())
    return fail(std::string(kFile) + ": expected an object, found " + j.type_name());
  for (auto e : {number(j, "temperature", 0, 100, d.temperature), number(j, "top_p", 0, 1, d.top_p),
                 number(j, "top_k", 0, 1 << 22, d.top_k),
                 number(j, "repetition_penalty", 0.01, 100, d.repetition_penalty),
                 number(j, "max_new_tokens", 1, 1 << 24, d.max_new_tokens),
                 number(j, "user_token_id", 0, 1 << 24, d.user_token),
                 number(j, "assistant_token_id", 0, 1 << 24, d.assistant_token)})
    if (e) return *e;
  if (const Json* sample = jsonFind(j, "do_sample");
      sample && sample->is_boolean() && !sample->get<bool>())
    d.temperature = 0.0;  // transformers then decodes greedily, whatever temperature says
  return d;
}

}  // namespace ts::engine
