#include "app/server/model_server.h"

namespace ts::server {

engine::Result<ServedModel> serveModel(std::shared_ptr<engine::Model> model, int context,
                                       engine::KvFormat kv, const engine::BackendRequest& backend,
                                       int parallel, ServerOptions options) {
  ServedModel out;
  out.positions = context > 0 ? context : engine::defaultPositions(model->config);
  std::vector<std::unique_ptr<engine::DecodeSession>> sessions;
  for (int i = 0; i < parallel; ++i) {
    auto opened = engine::openSession(model, out.positions, kv, backend);
    if (!opened) return engine::fail(opened.error());
    if (i == 0) out.note = opened.value().note;
    out.backend = opened.value().backend + " (" + opened.value().device + ")";
    sessions.push_back(std::move(opened.value().session));
  }
  out.server = std::make_unique<LocalServer>(model, std::move(sessions), std::move(options));
  return out;
}

}  // namespace ts::server
