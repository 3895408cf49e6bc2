#include "app/local/local_engines.h"

#include <QFileInfo>
#include <map>
#include <mutex>

#include "app/server/model_server.h"

namespace ts {
namespace {

std::mutex g_mutex;  // held while an engine is made: a second asker waits for the first
std::map<QString, std::weak_ptr<SharedEngine>> g_engines;

QString keyOf(const LocalEngineSpec& spec) {
  const QString canonical = QFileInfo(spec.model_path).canonicalFilePath();
  const LocalEngineSettings& e = spec.engine;
  return QString("%1\n%2 %3 %4 %5 %6 %7")
      .arg(canonical.isEmpty() ? spec.model_path : canonical, QString::fromStdString(e.weights),
           QString::fromStdString(e.kv), QString::fromStdString(e.backend))
      .arg(e.device)
      .arg(e.threads)
      .arg(e.context);
}

}  // namespace

std::shared_ptr<SharedEngine> sharedLocalEngine(const LocalEngineSpec& spec, QString& error,
                                                const engine::LoadProgress& progress) {
  std::lock_guard lock(g_mutex);
  const QString key = keyOf(spec);
  if (auto running = g_engines[key].lock()) {
    if (progress) progress(1.0);
    return running;
  }
  auto out = std::make_shared<SharedEngine>();
  std::unique_ptr<engine::DecodeSession> session;
  error = loadLocalEngine(spec, *out, session, progress);
  if (!error.isEmpty()) return nullptr;
  // the KV pool sized by the memory available now (at most half of it by default)
  const auto scheduling = server::sizedKvPool(*out->model, out->kv, session->maxPositions(),
                                              engine::SchedulerOptions{});
  if (!scheduling) {
    error = QString::fromStdString(scheduling.error());
    return nullptr;
  }
  engine::SchedulerOptions options = scheduling.value();
  options.reopen = server::reopenerFor(out->model, session->maxPositions(), out->kv,
                                       backendRequestFor(spec.engine));
  out->scheduler = std::make_shared<engine::Scheduler>(
      std::move(session), engine::Tokenizer(server::servedVocabulary(*out->model)), options);
  for (auto it = g_engines.begin(); it != g_engines.end();)  // forget engines nobody holds
    it = it->second.expired() ? g_engines.erase(it) : std::next(it);
  g_engines[key] = out;
  return out;
}

}  // namespace ts
