// The C ABI between the engine and the CUDA plugin (libtokenscope_cuda.so).
// Plain C types only: the engine includes this without any CUDA header.
#pragma once
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TOKENSCOPE_CUDA_ABI_VERSION 1

typedef struct TsCudaDeviceInfo {
  char name[256];
  size_t total_bytes;  // device memory, bytes
  int compute_major;
  int compute_minor;
} TsCudaDeviceInfo;

typedef struct TsCudaProbe {
  int abi_version;      // out: TOKENSCOPE_CUDA_ABI_VERSION of the plugin
  int runtime_version;  // out: cudaRuntimeGetVersion, e.g. 13000
  int driver_version;   // out: cudaDriverGetVersion, 0 when no driver
  int device_count;     // out: usable devices (at most 8 described)
  TsCudaDeviceInfo devices[8];
  char error[512];  // out: the runtime's error string when device_count == 0
} TsCudaProbe;

// Fills *probe. Returns 0 when at least one device is usable, else non-zero.
typedef int (*TsCudaProbeFn)(TsCudaProbe* probe);
#define TOKENSCOPE_CUDA_PROBE_SYMBOL "tokenscope_cuda_probe"

#ifdef __cplusplus
}
#endif
