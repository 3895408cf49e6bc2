// Errors inside the plugin: every CUDA / cuBLAS call and every kernel launch is checked
// and turned into a CudaError carrying where and what; the C entry points catch it and
// copy the message into the caller's error buffer.
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace ts::cuda {

struct CudaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline void check(cudaError_t err, const char* what, const char* file, int line) {
  if (err != cudaSuccess)
    throw CudaError(std::string(what) + ": " + cudaGetErrorString(err) + " (CUDA error " +
                    std::to_string(static_cast<int>(err)) + " at " + file + ":" +
                    std::to_string(line) + ")");
}
inline void check(cublasStatus_t status, const char* what, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw CudaError(std::string(what) + ": " + cublasGetStatusString(status) + " (at " + file +
                    ":" + std::to_string(line) + ")");
}

// TOKENSCOPE_CUDA_SYNC=1: every launch is followed by a device synchronize, so a kernel
// that faults (an illegal address) is named by its own check instead of surfacing at the
// pass's final synchronize; sessions then run without graphs (a capture cannot
// synchronize). Slow: for pinpointing a failure, never for measuring.
inline bool syncChecking() {
  static const bool on = [] {
    const char* v = std::getenv("TOKENSCOPE_CUDA_SYNC");
    return v && *v && std::string(v) != "0";
  }();
  return on;
}

inline void launched(const char* name, const char* file, int line) {
  check(cudaGetLastError(), name, file, line);
  if (syncChecking())  // never while capturing: Session turns graphs off in this mode
    check(cudaDeviceSynchronize(), (std::string(name) + " (TOKENSCOPE_CUDA_SYNC)").c_str(), file,
          line);
}

}  // namespace ts::cuda

#define TS_CUDA(call) ::ts::cuda::check((call), #call, __FILE__, __LINE__)
// After a <<<...>>> launch: the launch configuration's error (not the kernel's result,
// which the next synchronising call reports, unless TOKENSCOPE_CUDA_SYNC is set).
#define TS_CUDA_LAUNCHED(name) ::ts::cuda::launched(name, __FILE__, __LINE__)
