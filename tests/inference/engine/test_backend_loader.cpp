// CUDA plugin discovery: a missing plugin, a file that is not a plugin, and (when the
// plugin was built) the real plugin, which either finds a device or says why not.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "tests/inference/engine/check.h"

#include "inference/engine/backend_loader.h"

using ts::testing::check;

namespace {
bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}
}  // namespace

int main() {
  using ts::engine::probeCuda;

  setenv("TOKENSCOPE_CUDA_PLUGIN", "/nonexistent/libtokenscope_cuda.so", 1);
  auto missing = probeCuda();
  check(!missing.usable, "missing plugin is not usable");
  check(contains(missing.reason, "not found") &&
            contains(missing.reason, "/nonexistent/libtokenscope_cuda.so") &&
            contains(missing.reason, "CPU backend"),
        "missing plugin: reason names the path and the fallback: " + missing.reason);

  const std::string junk = "/tmp/tokenscope_test_not_a_plugin.so";
  std::ofstream(junk) << "this is not an ELF file";
  setenv("TOKENSCOPE_CUDA_PLUGIN", junk.c_str(), 1);
  auto bad = probeCuda();
  check(
      !bad.usable && contains(bad.reason, "cannot load CUDA plugin") && contains(bad.reason, junk),
      "unloadable plugin: reason says so: " + bad.reason);
  std::remove(junk.c_str());

  if (const char* real = std::getenv("TOKENSCOPE_TEST_CUDA_PLUGIN")) {
    setenv("TOKENSCOPE_CUDA_PLUGIN", real, 1);
    auto cuda = probeCuda();
    check(cuda.plugin_path == real, "real plugin is the one opened");
    check(cuda.runtime_version > 0,
          "real plugin reports its runtime version " + std::to_string(cuda.runtime_version));
    if (cuda.usable)
      check(!cuda.devices.empty() && !cuda.devices[0].name.empty(),
            "device found: " + cuda.devices[0].name);
    else
      check(contains(cuda.reason, "cudaGetDeviceCount"),
            "no device: the runtime's error is shown: " + cuda.reason);
  } else {
    std::printf("SKIP real plugin: not built (no CUDA compiler)\n");
  }
  return ts::testing::finish();
}
