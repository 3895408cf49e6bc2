// Owners of the CUDA runtime's other handles (DeviceBuffer owns device memory): a stream,
// pinned host memory, an instantiated graph. A Session whose constructor throws half-way
// gives back whatever it had created through these, its destructor never running.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "cuda/cuda_check.h"

namespace ts::cuda {

class StreamHandle {
 public:
  StreamHandle() = default;
  static StreamHandle nonBlocking() {
    StreamHandle h;
    TS_CUDA(cudaStreamCreateWithFlags(&h.stream_, cudaStreamNonBlocking));
    return h;
  }
  StreamHandle(StreamHandle&& o) noexcept : stream_(std::exchange(o.stream_, nullptr)) {}
  StreamHandle& operator=(StreamHandle&& o) noexcept {
    std::swap(stream_, o.stream_);
    return *this;
  }
  ~StreamHandle() {
    if (stream_) cudaStreamDestroy(stream_);
  }
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// Page-locked host memory (cudaMallocHost) of `count` T: what a graph's copies read and
// write, and what copies overlap with.
template <typename T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(size_t count) : count_(count) {
    if (count) TS_CUDA(cudaMallocHost(reinterpret_cast<void**>(&ptr_), count * sizeof(T)));
  }
  PinnedBuffer(PinnedBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    return *this;
  }
  ~PinnedBuffer() {
    if (ptr_) cudaFreeHost(ptr_);
  }
  T* get() const { return ptr_; }
  size_t count() const { return count_; }

 private:
  T* ptr_ = nullptr;
  size_t count_ = 0;
};

class GraphExec {
 public:
  GraphExec() = default;
  // Instantiates `graph` (which the caller still owns and destroys).
  explicit GraphExec(cudaGraph_t graph) { TS_CUDA(cudaGraphInstantiate(&exec_, graph, 0)); }
  GraphExec(GraphExec&& o) noexcept : exec_(std::exchange(o.exec_, nullptr)) {}
  GraphExec& operator=(GraphExec&& o) noexcept {
    std::swap(exec_, o.exec_);
    return *this;
  }
  ~GraphExec() {
    if (exec_) cudaGraphExecDestroy(exec_);
  }
  cudaGraphExec_t get() const { return exec_; }
  explicit operator bool() const { return exec_ != nullptr; }

 private:
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace ts::cuda
