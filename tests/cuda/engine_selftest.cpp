// engine-selftest [--models DIR]
// The CUDA backend against the CPU backend: the CPU-side checks always (weight layouts,
// memory estimate, CPU twins), then with a device every op and whole models (see
// selftest_*.cpp). One line per check, then "N passed, N failed". Without a device it
// says why and exits 0 after the CPU-side checks. No Qt: builds engine-only, for GPU
// machines that have only the CUDA toolkit. The plugin is found as the engine finds it
// (TOKENSCOPE_CUDA_PLUGIN, beside the executable, ../cuda/, ../lib/tokenscope/).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "inference/engine/backend/backend_loader.h"
#include "inference/engine/backend/plugin_abi.h"
#include "tests/cuda/selftest.h"

int main(int argc, char** argv) {
  const char* shared = std::getenv("TOKENSCOPE_SHARED_DIR");
  std::string models = std::string(shared ? shared : "../shared") + "/models";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--models" && i + 1 < argc) {
      models = argv[++i];
    } else {
      std::fprintf(stderr, "engine-selftest: unknown option '%s' (expected --models DIR)\n",
                   a.c_str());
      return 2;
    }
  }
  ts::selftest::Report report;
  const ts::engine::CudaAvailability cuda = ts::engine::probeCuda();
  report.note("plugin: " + (cuda.plugin_path.empty() ? std::string("none") : cuda.plugin_path) +
              ", CUDA runtime " + std::to_string(cuda.runtime_version) + ", driver " +
              std::to_string(cuda.driver_version));
  for (const auto& d : cuda.devices)
    report.note("device: " + d.name + " (" + std::to_string(d.total_bytes >> 20) + " MiB, sm_" +
                std::to_string(d.compute_major) + std::to_string(d.compute_minor) + ")");
  ts::selftest::cpuChecks(report, models);
  if (const ts::engine::CudaPlugin plugin = ts::engine::loadCudaPlugin(); plugin.api)
    ts::selftest::abiChecks(report, *plugin.api);
  else
    report.note("the plugin's argument checks skipped: " + plugin.reason);
  if (cuda.usable) {
    const ts::engine::CudaPlugin plugin = ts::engine::loadCudaPlugin();
    ts::selftest::opChecks(report, *plugin.api);
    ts::selftest::modelChecks(report, models);
  } else {
    report.note("no CUDA device: " + cuda.reason + " -- ran the CPU-side checks only");
  }
  std::printf("%d passed, %d failed\n", report.passed(), report.failed());
  return report.failed() == 0 ? 0 : 1;
}
