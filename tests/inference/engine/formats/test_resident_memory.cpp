// Memory close to the file: a Q4_0 GGUF of the Baichuan-7B layout (cut to width 1,024 and
// 2 layers so that it is written in a second), and the same model as a folder of BF16
// safetensors, loaded with the defaults: the weights as stored (repacked where the
// kernels read panels, the mapped pages they came from released), the resident set grows by
// at most 1.1 x the files + the KV cache written + 64 MiB, nothing is written beside the
// model or to the conversion cache, and a second session on the same model adds only its own
// KV cache. Converted at load (--weights int4, the cache off), the folder's pages are released
// too: the resident set grows by the converted weights (and the embedding table, read as
// stored), not by the files as well.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "tests/inference/engine/check.h"
#include "tests/inference/engine/temp_dir.h"
#include "tests/support/resident_memory.h"

#include "inference/engine/cpu/cpu_forward.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/formats/model_writer.h"
#include "inference/engine/model/random_model.h"

using namespace ts::engine;
using ts::testing::check;
namespace fs = std::filesystem;

namespace {

double residentMiB() {
  return ts::testing::statusMiB("VmRSS:");
}

}  // namespace

namespace {

// Loads `path` (with the defaults unless `options` say otherwise), prefills 100 positions on
// a 4,096-position session and a second one: the resident set grows by at most 1.1 x the
// weights the model holds (as stored: their bytes on disk) + the KV cache written + 64 MiB,
// and the second session adds only its KV cache.
void checkResident(const std::string& path, double file_mib, const std::string& summary,
                   const LoadOptions& options = {}) {
  const double before = residentMiB();
  auto model = loadModel(path, options);
  check(model.ok(), summary + ": it loads");
  if (!model) return;
  check(model.value()->weightSummary() == summary &&
            model.value()->token_embd.format() == WeightFormat::Stored,
        "weights " + model.value()->weightSummary() + ", the embedding table as stored");
  const double held_mib =
      options.weights == WeightFormat::Stored
          ? file_mib
          : static_cast<double>(model.value()->weight_bytes() + model.value()->token_embd.bytes()) /
                (1 << 20);
  CpuSession session(model.value(), 4096, KvFormat::F16, 2);
  std::vector<int> prompt(100);
  for (int i = 0; i < 100; ++i) prompt[i] = (i * 37 + 1) % 16000;
  session.forwardBatch(prompt, 0);
  const double kv_mib = static_cast<double>(session.cache().bytes()) / (1 << 20);
  const double grown = residentMiB() - before;
  std::printf(
      "  %s: files %.1f MiB, weights held %.1f MiB, KV cache %.1f MiB written (of %.1f "
      "reserved), resident +%.1f MiB\n",
      summary.c_str(), file_mib, held_mib, kv_mib,
      static_cast<double>(session.cache().capacityBytes()) / (1 << 20), grown);
  check(grown <= 1.1 * held_mib + kv_mib + 64,
        summary + ": the resident set grows by " + std::to_string(grown) + " MiB <= 1.1 x " +
            std::to_string(held_mib) + " MiB of weights + " + std::to_string(kv_mib) +
            " MiB KV cache + 64 MiB");
  check(session.cache().bytes() < session.cache().capacityBytes() / 10,
        "the 4,096-position KV cache holds only the blocks written");
  const double one = residentMiB();
  CpuSession second(model.value(), 4096, KvFormat::F16, 2);
  second.forwardBatch(prompt, 0);
  check(residentMiB() - one <= kv_mib + 16,
        "a second session adds its KV cache, not another copy of the weights (+" +
            std::to_string(residentMiB() - one) + " MiB)");
}

double sizeMiB(const fs::path& path) {  // a file, or every file of a folder
  uintmax_t bytes = 0;
  if (fs::is_directory(path))
    for (const auto& e : fs::directory_iterator(path)) bytes += fs::file_size(e.path());
  else
    bytes = fs::file_size(path);
  return static_cast<double>(bytes) / (1 << 20);
}

}  // namespace

int main() {
  ts::testing::TempDir dir("tokenscope-resident");
  setenv("XDG_CACHE_HOME", (dir / "cache").c_str(), 1);
  const std::string path = dir / "b7-small-q4_0.gguf", folder = dir / "b7-small-bf16";
  {
    ModelConfig c = shapeConfig("baichuan-7b", 2).value();
    c.dim = 1024;
    c.n_heads = c.n_kv_heads = 8;
    c.head_dim = c.rope_dim = 128;
    c.ffn_dim = 2816;
    c.vocab = 16000;
    const auto model = randomModel(c, WeightFormat::F32, 5);
    check(writeGguf(*model, path, TensorType::Q4_0, true).ok(),
          "a Q4_0 GGUF of the Baichuan-7B layout is written");
    // the same as a Hugging Face folder of BF16 safetensors (how Baichuan2 ships): its rows,
    // repacked at load, must not stay resident in the mapped file as well (one shard: the
    // embedding table, read as stored, keeps the whole mapping)
    HfWriteOptions bf16;
    bf16.dtype = "BF16";
    check(writeHfFolder(*model, folder, bf16).ok(), "and as a folder of BF16 safetensors");
  }
  checkResident(path, sizeMiB(path), "Q4_0 x15");
  checkResident(folder, sizeMiB(folder), "BF16 x15");
  LoadOptions int4;
  int4.weights = WeightFormat::Int4;
  int4.cache = false;
  checkResident(folder, sizeMiB(folder), "int4 x15", int4);
  size_t beside = 0;
  for (const auto& e : fs::directory_iterator(dir.path()))
    beside += e.path() != path && e.path() != folder;
  check(beside == 0 && !fs::exists(dir / "cache/tokenscope"),
        "nothing is written beside the models or to the conversion cache");
  return ts::testing::finish();
}
