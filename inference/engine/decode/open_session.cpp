#include "inference/engine/decode/open_session.h"

#include <algorithm>

#include "inference/engine/backend/backend_loader.h"
#include "inference/engine/cpu/cpu_forward.h"

namespace ts::engine {

int defaultPositions(const ModelConfig& config) {
  return std::min(config.context > 0 ? config.context : 2048, 4096);
}

Result<std::string> parseBackend(const std::string& name) {
  if (name == "cpu" || name == "cuda" || name == "auto") return name;
  return fail("expected cpu, cuda or auto, found '" + name + "'");
}

Result<OpenedSession> openSession(std::shared_ptr<const Model> model, int max_positions,
                                  KvFormat kv, const BackendRequest& request) {
  auto name = parseBackend(request.name);
  if (!name) return fail(name.error());
  OpenedSession opened;
  if (request.name != "cpu") {
    const CudaAvailability cuda = probeCuda();
    if (cuda.usable && request.cuda.device >= static_cast<int>(cuda.devices.size()))
      return fail("CUDA device " + std::to_string(request.cuda.device) + " does not exist (" +
                  std::to_string(cuda.devices.size()) + " found)");
    if (cuda.usable) {
      auto session = CudaSession::create(CudaModelView(*model), model->config.vocab, max_positions,
                                         kv, request.cuda);
      if (session) {
        opened.session = std::move(session.value());
        opened.backend = "cuda";
        opened.device = cuda.devices[request.cuda.device].name;
        return opened;
      }
      if (request.name == "cuda") return fail(session.error());
      opened.note = session.error() + "; using the CPU backend";
    } else {
      opened.note = cuda.reason;
    }
  }
  const int threads = std::max(1, request.threads);
  opened.session = std::make_unique<CpuSession>(model, max_positions, kv, threads);
  opened.backend = "cpu";
  opened.device = "CPU, " + std::to_string(threads) + (threads == 1 ? " thread" : " threads");
  return opened;
}

}  // namespace ts::engine
