// CUDA plugin discovery: a missing plugin, a file that is not a plugin, and (when the
// plugin was built) the real plugin, which either finds a device or says why not.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "tests/inference/engine/check.h"

#include "inference/engine/backend/backend_loader.h"
#include "inference/engine/decode/open_session.h"
#include "inference/engine/model/random_model.h"

using ts::testing::check;

namespace {
bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}
// Opening a session by backend name with the plugin TOKENSCOPE_CUDA_PLUGIN names: "cuda"
// and "auto" run on the device when one is usable, else on the CPU with the reason.
void sessionFallback(bool device_usable) {
  using namespace ts::engine;
  auto model = randomModel(shapeConfig("llama-tiny", 1).value(), WeightFormat::F32, 3);
  BackendRequest request;
  request.name = "gpu";
  auto bad = openSession(model, 16, KvFormat::F32, request);
  check(!bad && contains(bad.error(), "expected cpu, cuda or auto, found 'gpu'"),
        "unknown backend name is refused: " + (bad ? std::string() : bad.error()));
  for (const char* name : {"cpu", "cuda", "auto"}) {
    request.name = name;
    auto opened = openSession(model, 16, KvFormat::F32, request);
    check(opened.ok(), std::string(name) + ": a session opens");
    if (!opened) continue;
    const OpenedSession& s = opened.value();
    const bool on_device = device_usable && std::string(name) != "cpu";
    check(s.backend == (on_device ? "cuda" : "cpu"), std::string(name) + ": runs on " + s.backend);
    if (std::string(name) == "cpu" || on_device)
      check(s.note.empty(), std::string(name) + ": no fallback note");
    else
      check(contains(s.note, "CPU backend") && !s.note.empty(),
            std::string(name) + ": falls back saying why: " + s.note);
    const int token = 5;
    check(s.session->forwardBatch({&token, 1}, 0, false).size() == 4096,
          std::string(name) + ": the session produces logits over the vocabulary");
  }
  auto direct = CudaSession::create(CudaModelView(*model), 4096, 16, KvFormat::F32);
  if (!device_usable)
    check(!direct && contains(direct.error(), "CUDA"),
          "a CUDA session without a device fails with the reason: " +
              (direct ? std::string() : direct.error()));
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
    sessionFallback(cuda.usable);
  } else {
    std::printf("SKIP real plugin: not built (no CUDA compiler)\n");
  }
  setenv("TOKENSCOPE_CUDA_PLUGIN", "/nonexistent/libtokenscope_cuda.so", 1);
  sessionFallback(false);
  return ts::testing::finish();
}
