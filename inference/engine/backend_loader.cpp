#include "inference/engine/backend_loader.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>

#include "cuda/plugin_abi.h"

namespace ts::engine {
namespace {

std::string executableDir() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

}  // namespace

std::vector<std::string> cudaPluginCandidates() {
  std::vector<std::string> out;
  if (const char* env = std::getenv("TOKENSCOPE_CUDA_PLUGIN"); env && *env) {
    out.emplace_back(env);
    return out;  // an explicit choice is the only one tried, so errors name it
  }
  const std::string dir = executableDir();
  if (!dir.empty()) {
    out.push_back(dir + "/" TOKENSCOPE_CUDA_PLUGIN_NAME);
    out.push_back(dir + "/../cuda/" TOKENSCOPE_CUDA_PLUGIN_NAME);
    out.push_back(dir + "/../lib/tokenscope/" TOKENSCOPE_CUDA_PLUGIN_NAME);
  }
  return out;
}

CudaAvailability probeCuda() {
  CudaAvailability result;
  const auto candidates = cudaPluginCandidates();
  std::string path;
  for (const auto& c : candidates) {
    if (std::filesystem::exists(c)) {
      path = c;
      break;
    }
  }
  if (path.empty()) {
    result.reason = "CUDA plugin " TOKENSCOPE_CUDA_PLUGIN_NAME " not found (looked in: ";
    for (size_t i = 0; i < candidates.size(); ++i) result.reason += (i ? ", " : "") + candidates[i];
    result.reason += "); this build has no CUDA backend, using the CPU backend";
    return result;
  }
  result.plugin_path = path;
  // The handle stays open for the life of the process: kernels live in it.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* err = dlerror();
    result.reason = "cannot load CUDA plugin " + path + ": " + (err ? err : "unknown error") +
                    " (is the CUDA runtime installed?); using the CPU backend";
    return result;
  }
  auto probe_fn = reinterpret_cast<TsCudaProbeFn>(dlsym(handle, TOKENSCOPE_CUDA_PROBE_SYMBOL));
  if (!probe_fn) {
    result.reason = "CUDA plugin " + path + " has no symbol " TOKENSCOPE_CUDA_PROBE_SYMBOL;
    return result;
  }
  auto probe = std::make_unique<TsCudaProbe>();
  const int rc = probe_fn(probe.get());
  result.runtime_version = probe->runtime_version;
  result.driver_version = probe->driver_version;
  if (probe->abi_version != TOKENSCOPE_CUDA_ABI_VERSION) {
    result.reason = "CUDA plugin " + path + " speaks ABI " + std::to_string(probe->abi_version) +
                    ", expected " + std::to_string(TOKENSCOPE_CUDA_ABI_VERSION);
    return result;
  }
  for (int i = 0; i < probe->device_count && i < 8; ++i) {
    const auto& d = probe->devices[i];
    result.devices.push_back({d.name, d.total_bytes, d.compute_major, d.compute_minor});
  }
  if (rc != 0 || result.devices.empty()) {
    result.reason =
        std::string("no usable CUDA device: ") + probe->error + "; using the CPU backend";
    return result;
  }
  result.usable = true;
  return result;
}

}  // namespace ts::engine
