// Errors inside the plugin: every CUDA / cuBLAS call and every kernel launch is checked
// and turned into a CudaError carrying where and what; the C entry points catch it and
// copy the message into the caller's error buffer.
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>

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

}  // namespace ts::cuda

#define TS_CUDA(call) ::ts::cuda::check((call), #call, __FILE__, __LINE__)
// After a <<<...>>> launch: the launch configuration's error (not the kernel's result,
// which the next synchronising call reports).
#define TS_CUDA_LAUNCHED(name) ::ts::cuda::check(cudaGetLastError(), name, __FILE__, __LINE__)
