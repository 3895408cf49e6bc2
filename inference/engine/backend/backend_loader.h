// Finds and loads the CUDA plugin at run time (dlopen), so the app starts on machines
// without a CUDA driver and falls back to the CPU backend, saying why.
#pragma once
#include <string>
#include <vector>

struct TsCudaApi;

namespace ts::engine {

struct CudaDevice {
  std::string name;
  size_t total_bytes = 0;
  int compute_major = 0;
  int compute_minor = 0;
};

struct CudaAvailability {
  bool usable = false;
  std::string plugin_path;  // the file that was opened, empty when none was found
  std::string reason;       // why CUDA is not usable (empty when usable)
  int runtime_version = 0;  // e.g. 13000
  int driver_version = 0;   // 0 when no driver
  std::vector<CudaDevice> devices;
};

// Candidate plugin paths, in order: $TOKENSCOPE_CUDA_PLUGIN, next to the executable,
// ../lib/tokenscope/ relative to the executable, then the build tree's cuda/ folder.
std::vector<std::string> cudaPluginCandidates();

// The plugin's entry points, or null with the reason (not found, not loadable, wrong ABI).
struct CudaPlugin {
  const TsCudaApi* api = nullptr;
  std::string path;
  std::string reason;
};
// Opens the first candidate that exists (the handle stays open: kernels live in it).
CudaPlugin loadCudaPlugin();

// Opens the plugin and asks it for devices. Never throws.
CudaAvailability probeCuda();

}  // namespace ts::engine
