// Device discovery entry point of the CUDA plugin (see plugin_abi.h).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

#include "inference/engine/backend/plugin_abi.h"

extern "C" __attribute__((visibility("default"))) int tokenscope_cuda_probe(TsCudaProbe* probe) {
  std::memset(probe, 0, sizeof(*probe));
  probe->abi_version = TOKENSCOPE_CUDA_ABI_VERSION;
  cudaRuntimeGetVersion(&probe->runtime_version);
  cudaDriverGetVersion(&probe->driver_version);  // leaves 0 when no driver is installed
  int count = 0;
  // Without a driver this returns cudaErrorInsufficientDriver (35) and count 0.
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    std::snprintf(probe->error, sizeof(probe->error), "cudaGetDeviceCount: %s (error %d)",
                  err == cudaSuccess ? "no devices" : cudaGetErrorString(err),
                  static_cast<int>(err));
    return 1;
  }
  probe->device_count = count < 8 ? count : 8;
  for (int i = 0; i < probe->device_count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
    std::snprintf(probe->devices[i].name, sizeof(probe->devices[i].name), "%s", prop.name);
    probe->devices[i].total_bytes = prop.totalGlobalMem;
    probe->devices[i].compute_major = prop.major;
    probe->devices[i].compute_minor = prop.minor;
  }
  return 0;
}
