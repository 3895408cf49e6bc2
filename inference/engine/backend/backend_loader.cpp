#include "inference/engine/backend/backend_loader.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>

#include "inference/engine/backend/plugin_abi.h"

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
#ifdef TOKENSCOPE_BUILD_PLUGIN_DIR
  // Test and benchmark programs deeper in the build tree than the plugin's folder; only
  // they: an installed binary never loads a plugin from the folder it was built in.
  if (dir.rfind(TOKENSCOPE_BUILD_ROOT, 0) == 0)
    out.push_back(TOKENSCOPE_BUILD_PLUGIN_DIR "/" TOKENSCOPE_CUDA_PLUGIN_NAME);
#endif
  return out;
}

CudaPlugin loadCudaPlugin() {
  CudaPlugin plugin;
  const auto candidates = cudaPluginCandidates();
  for (const auto& c : candidates) {
    if (std::filesystem::exists(c)) {
      plugin.path = c;
      break;
    }
  }
  if (plugin.path.empty()) {
    plugin.reason = "CUDA plugin " TOKENSCOPE_CUDA_PLUGIN_NAME " not found (looked in: ";
    for (size_t i = 0; i < candidates.size(); ++i) plugin.reason += (i ? ", " : "") + candidates[i];
    plugin.reason += "); this build has no CUDA backend, using the CPU backend";
    return plugin;
  }
  void* handle = dlopen(plugin.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* err = dlerror();
    plugin.reason = "cannot load CUDA plugin " + plugin.path + ": " +
                    (err ? err : "unknown error") +
                    " (are the CUDA runtime and cuBLAS installed?); using the CPU backend";
    return plugin;
  }
  auto api_fn = reinterpret_cast<TsCudaApiFn>(dlsym(handle, TOKENSCOPE_CUDA_API_SYMBOL));
  if (!api_fn) {
    plugin.reason = "CUDA plugin " + plugin.path +
                    " has no symbol " TOKENSCOPE_CUDA_API_SYMBOL
                    " (built for another TokenScope version?); using the CPU backend";
    return plugin;
  }
  const TsCudaApi* api = api_fn();
  if (!api || api->abi_version != TOKENSCOPE_CUDA_ABI_VERSION) {
    plugin.reason = "CUDA plugin " + plugin.path + " speaks ABI " +
                    std::to_string(api ? api->abi_version : 0) + ", expected " +
                    std::to_string(TOKENSCOPE_CUDA_ABI_VERSION) + "; using the CPU backend";
    return plugin;
  }
  plugin.api = api;
  return plugin;
}

CudaAvailability probeCuda() {
  CudaAvailability result;
  const CudaPlugin plugin = loadCudaPlugin();
  result.plugin_path = plugin.path;
  if (!plugin.api) {
    result.reason = plugin.reason;
    return result;
  }
  auto probe = std::make_unique<TsCudaProbe>();
  const int rc = plugin.api->probe(probe.get());
  result.runtime_version = probe->runtime_version;
  result.driver_version = probe->driver_version;
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
