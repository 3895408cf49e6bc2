// Owning device allocations (cudaMalloc / cudaFree) with their size, and host <-> device
// copies of typed arrays.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "cuda/cuda_check.h"

namespace ts::cuda {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) {
    if (bytes) TS_CUDA(cudaMalloc(&ptr_, bytes));
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  ~DeviceBuffer() {
    if (ptr_) cudaFree(ptr_);
  }
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  void* get() const { return ptr_; }
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

// cudaMemcpy from pageable memory may return before the DMA lands, and the plugin's
// streams do not wait for the legacy default stream: synchronise before any kernel reads.
template <typename T>
DeviceBuffer upload(const T* host, size_t count) {
  DeviceBuffer d(count * sizeof(T));
  if (count) {
    TS_CUDA(cudaMemcpy(d.get(), host, count * sizeof(T), cudaMemcpyHostToDevice));
    TS_CUDA(cudaDeviceSynchronize());
  }
  return d;
}

template <typename T>
void download(T* host, const void* device, size_t count) {
  if (count) TS_CUDA(cudaMemcpy(host, device, count * sizeof(T), cudaMemcpyDeviceToHost));
}

// Fills `bytes` with 0xFF: NaN for f32 and f16, so an op that skips an output is caught.
inline void poison(void* device, size_t bytes) {
  TS_CUDA(cudaMemset(device, 0xFF, bytes));
  TS_CUDA(cudaDeviceSynchronize());
}

}  // namespace ts::cuda
