// The conversion cache in the user's cache directory: written on the first quantized load,
// read on the next (same logits, bit for bit), keyed by the settings and the source's
// content, rebuilt when it is damaged, kept within its size limit (least recently used
// first); a cache that cannot be written never fails the load.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "inference/engine/cpu/cpu_forward.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/formats/model_writer.h"
#include "inference/engine/formats/quant_cache_limit.h"
#include "inference/engine/model/random_model.h"
#include "tests/inference/engine/check.h"
#include "tests/inference/engine/temp_dir.h"

using namespace ts::engine;
using ts::testing::check;
namespace fs = std::filesystem;

namespace {

std::vector<float> logitsOf(const std::shared_ptr<const Model>& m) {
  CpuSession s(m, 8);
  const std::vector<int> tokens = {1, 2, 3, 4};
  auto l = s.forwardBatch(tokens, 0, true);
  return {l.begin(), l.end()};
}

std::string pathIn(const std::string& note) {  // "hit: PATH" / "written: PATH ..." -> PATH
  const size_t colon = note.find(": ");
  const size_t end = note.find_first_of(" ;", colon + 2);
  return note.substr(colon + 2, end == std::string::npos ? end : end - colon - 2);
}

}  // namespace

int main() {
  ts::testing::TempDir dir("tokenscope-quant-cache");
  const std::string cache_home = dir / "xdg-cache";
  setenv("XDG_CACHE_HOME", cache_home.c_str(), 1);  // the user's cache directory, here
  auto config = shapeConfig("llama-tiny", 2);
  const std::string model_path = dir / "tiny.gguf";
  check(writeGguf(*randomModel(config.value(), WeightFormat::F32, 1), model_path).ok(),
        "a random llama-tiny GGUF is written");
  for (WeightFormat format : {WeightFormat::Int8, WeightFormat::Int4, WeightFormat::F16}) {
    const std::string name = weightFormatName(format);
    LoadOptions options;
    options.weights = format;
    auto first = loadModel(model_path, options);
    if (!first) return check(false, first.error()), ts::testing::finish();
    const std::string note = first.value()->cache_note;
    check(note.rfind("written: " + cache_home + "/tokenscope/tiny.gguf-" + name, 0) == 0,
          name + ": the first load writes the cache under $XDG_CACHE_HOME: " + note);
    check(!fs::exists(model_path + ".tokenscope-cache") &&
              std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()) == 2,
          name + ": nothing is written beside the model");
    const std::string cache = pathIn(note);
    check(fs::exists(cache) && fs::file_size(cache) > first.value()->weight_bytes(),
          name + ": the cache file holds the quantized weights (" +
              std::to_string(fs::exists(cache) ? fs::file_size(cache) : 0) + " bytes)");
    auto second = loadModel(model_path, options);
    check(second.ok() && second.value()->cache_note == "hit: " + cache,
          name + ": the second load reads it: " + second.value()->cache_note);
    check(logitsOf(second.value()) == logitsOf(first.value()) &&
              second.value()->config.describe() == first.value()->config.describe() &&
              second.value()->weight_format == format,
          name + ": a cached model gives bit-identical logits");
  }
  LoadOptions int8;
  int8.weights = WeightFormat::Int8;
  const std::string cache = pathIn(loadModel(model_path, int8).value()->cache_note);
  // A damaged cache is replaced, and the load still succeeds.
  fs::resize_file(cache, fs::file_size(cache) / 2);
  auto rebuilt = loadModel(model_path, int8);
  check(rebuilt.ok() && rebuilt.value()->cache_note.find("written: " + cache + " (replacing " +
                                                         cache + ": unusable cache (") == 0,
        "a truncated cache is rebuilt: " + rebuilt.value()->cache_note);
  check(loadModel(model_path, int8).value()->cache_note == "hit: " + cache,
        "and the rebuilt cache is read next time");
  // Another model in the same file name: another key.
  check(writeGguf(*randomModel(config.value(), WeightFormat::F32, 2), model_path).ok(),
        "the GGUF is replaced by other weights");
  auto changed = loadModel(model_path, int8);
  check(changed.ok() && changed.value()->cache_note.rfind("written: ", 0) == 0 &&
            pathIn(changed.value()->cache_note) != cache,
        "changed weights get a new cache entry: " + changed.value()->cache_note);
  // Opting out touches nothing.
  LoadOptions off = int8;
  off.cache = false;
  check(loadModel(model_path, off).value()->cache_note == "off", "cache = false: 'off'");
  // The cache folder cannot be created (a file is in the way): the load still works.
  const std::string other_home = dir / "blocked-cache";
  std::ofstream(other_home) << "in the way";
  setenv("XDG_CACHE_HOME", other_home.c_str(), 1);
  auto blocked = loadModel(model_path, int8);
  check(blocked.ok() && blocked.value()->cache_note.rfind("not written: cannot create", 0) == 0,
        "an unwritable cache is reported, not fatal: " + blocked.value()->cache_note);
  // No cache directory at all: said so, and the load still works.
  unsetenv("XDG_CACHE_HOME");
  const std::string home = getenv("HOME") ? getenv("HOME") : "";
  unsetenv("HOME");
  auto homeless = loadModel(model_path, int8);
  check(homeless.ok() &&
            homeless.value()->cache_note.rfind("not written: no cache directory", 0) == 0,
        "no $XDG_CACHE_HOME nor $HOME: " + homeless.value()->cache_note);
  if (!home.empty()) setenv("HOME", home.c_str(), 1);
  LoadOptions f32;
  f32.weights = WeightFormat::F32;
  check(loadModel(model_path, f32).value()->cache_note == "not used for f32 weights",
        "f32 weights need no cache");
  check(loadModel(model_path, LoadOptions{}).value()->cache_note == "not used: weights as stored",
        "weights as stored (the default) need no cache");

  // The size limit: least recently used files go first; a hit counts as a use.
  const std::string limited = dir / "limited-cache";
  setenv("XDG_CACHE_HOME", limited.c_str(), 1);
  std::vector<std::string> paths;
  for (WeightFormat format : {WeightFormat::Int8, WeightFormat::Int4, WeightFormat::F16}) {
    LoadOptions options;
    options.weights = format;
    paths.push_back(pathIn(loadModel(model_path, options).value()->cache_note));
  }
  const QuantCacheUsage all = quantCacheUsage();
  check(
      all.files == 3 && all.dir == limited + "/tokenscope" &&
          all.bytes == fs::file_size(paths[0]) + fs::file_size(paths[1]) + fs::file_size(paths[2]),
      "the usage counts the three cache files (" + std::to_string(all.bytes) + " bytes)");
  check(loadModel(model_path, int8).value()->cache_note.rfind("hit: ", 0) == 0,
        "a hit on the int8 file makes it the most recently used");
  // Room for the largest file and a little: the f16 conversion is written anew and the
  // least recently used (int4, then f16's predecessor) go.
  fs::remove(paths[2]);
  const uint64_t limit = fs::file_size(paths[0]) + fs::file_size(paths[1]) / 2;
  setenv("TOKENSCOPE_CACHE_LIMIT_MB", "0", 1);
  check(quantCacheLimit() == 0, "TOKENSCOPE_CACHE_LIMIT_MB sets the limit");
  unsetenv("TOKENSCOPE_CACHE_LIMIT_MB");
  check(quantCacheLimit() == uint64_t{20} << 30, "the limit is 20 GiB by default");
  check(pruneQuantCache(limit) == 1 && !fs::exists(paths[1]) && fs::exists(paths[0]),
        "pruning to the limit removes the least recently used file (int4) and keeps int8");
  LoadOptions f16;
  f16.weights = WeightFormat::F16;
  setenv("TOKENSCOPE_CACHE_LIMIT_MB", "0", 1);  // nothing fits: only the new file stays
  const std::string note = loadModel(model_path, f16).value()->cache_note;
  unsetenv("TOKENSCOPE_CACHE_LIMIT_MB");
  check(note.find("1 least recently used file(s) removed") != std::string::npos &&
            fs::exists(pathIn(note)) && !fs::exists(paths[0]),
        "a write over the limit removes older files, never the one just written: " + note);
  check(clearQuantCache() == 1 && quantCacheUsage().files == 0, "clearing empties the cache");
  return ts::testing::finish();
}
