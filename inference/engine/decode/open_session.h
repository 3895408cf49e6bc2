// Picks the backend for a decoding session: "cpu", "cuda" or "auto" (CUDA when a device
// is usable, else CPU). Without a plugin, a driver or a device, CUDA falls back to the
// CPU backend and says why; a CUDA session that cannot be created (not enough device
// memory, unsupported shape) is an error when CUDA was asked for by name.
#pragma once
#include <memory>
#include <string>

#include "inference/engine/backend/cuda_session.h"
#include "inference/engine/backend/decode_session.h"

namespace ts::engine {

struct BackendRequest {
  std::string name = "cpu";  // cpu | cuda | auto
  int threads = 1;           // CPU threads
  CudaOptions cuda;
};

struct OpenedSession {
  std::unique_ptr<DecodeSession> session;
  std::string backend;  // "cpu" | "cuda": what runs
  std::string device;   // "CPU, N threads" | the GPU's name
  std::string note;     // why CPU runs when CUDA was asked for (empty otherwise)
};

// KV positions a session gets when the user names none: the model's trained context
// (2048 when the file does not say), at most 4096.
int defaultPositions(const ModelConfig& config);

// Checks the name ("expected cpu, cuda or auto").
Result<std::string> parseBackend(const std::string& name);

Result<OpenedSession> openSession(std::shared_ptr<const Model> model, int max_positions,
                                  KvFormat kv, const BackendRequest& request);

}  // namespace ts::engine
