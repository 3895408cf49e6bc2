// Loading a model on a machine with less memory than its weights need: loadModel returns
// "not enough memory to load <file>: ..." (what to choose instead) as a value, and the
// process goes on: with the memory there again, the same model loads. The memory is the
// process's address-space limit (RLIMIT_AS, what `ulimit -v` sets), set a little above what
// the process maps now plus the file and the loading threads' stacks: the Baichuan2-7B-shaped
// bf16 checkpoint (35 MB) converted to f32 needs 71 MB more, and every allocation past the
// limit fails as it would on a machine out of memory.
#include <malloc.h>
#include <sys/resource.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "inference/engine/core/thread_pool.h"
#include "inference/engine/formats/model_loader.h"
#include "tests/inference/engine/check.h"
#include "tests/inference/engine/expect_error.h"

using namespace ts::engine;
using ts::testing::check;
using ts::testing::errorOf;
namespace fs = std::filesystem;

namespace {

// The process's mapped bytes now (VmSize).
size_t mappedBytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmSize:", 0) == 0) return std::stoull(line.substr(7)) * 1024;  // kB
  return 0;
}

// A thread's stack as glibc sizes it (RLIMIT_STACK; 32 MiB when unlimited).
size_t stackBytes() {
  rlimit stack{};
  getrlimit(RLIMIT_STACK, &stack);
  return stack.rlim_cur == RLIM_INFINITY ? size_t{32} << 20 : stack.rlim_cur;
}

// loadModel with at most `headroom` bytes mapped beyond what is mapped now.
Result<std::shared_ptr<Model>> loadWithin(const std::string& path, size_t headroom) {
  LoadOptions options;
  options.weights = WeightFormat::F32;
  options.cache = false;  // convert now, write nothing
  rlimit before{};
  getrlimit(RLIMIT_AS, &before);
  rlimit limited = before;
  limited.rlim_cur = mappedBytes() + headroom;
  setrlimit(RLIMIT_AS, &limited);
  auto model = loadModel(path, options);
  setrlimit(RLIMIT_AS, &before);
  return model;
}

}  // namespace

int main() {
  const char* shared = std::getenv("TOKENSCOPE_SHARED_DIR");
  const fs::path folder = fs::path(shared ? shared : "../shared") / "models/baichuan2-tiny/7b-bf16";
  if (!fs::exists(folder / "pytorch_model.bin")) {
    std::printf("SKIP %s not found: the baichuan2-tiny fixtures are absent\n",
                folder.string().c_str());
    return ts::testing::finish();
  }
  mallopt(M_ARENA_MAX, 1);  // the loading threads allocate from one heap: no 64 MiB arenas each
  const size_t file = fs::file_size(folder / "pytorch_model.bin");
  // Room to map the file and start the loading threads, 16 MiB more: not the 71 MB of f32.
  const size_t threads = static_cast<size_t>(ThreadPool::defaultThreads()) + 1;
  const size_t headroom = file + threads * stackBytes() + (size_t{16} << 20);
  const auto refused = loadWithin(folder.string(), headroom);
  const std::string want = "not enough memory to load " + folder.string() +
                           ": its weights as f32 need more memory than is free; choose a smaller "
                           "weight format (int4, q8_0, or auto: as the file stores them), or "
                           "close other programs";
  check(!refused && errorOf(refused) == want,
        "a load past the memory there is an error value: '" + errorOf(refused) + "'");
  const auto loaded = loadWithin(folder.string(), headroom + (size_t{512} << 20));
  check(
      loaded.ok() && loaded.value()->config.n_layers == 32 &&
          loaded.value()->weight_format == WeightFormat::F32,
      "the process goes on: with the memory there, the same model loads (" + errorOf(loaded) + ")");
  return ts::testing::finish();
}
