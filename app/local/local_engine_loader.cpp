#include "app/local/local_engine_loader.h"

#include <QCoreApplication>

#include "app/local/demo_model.h"
#include "app/local/loaded_models.h"
#include "inference/engine/core/thread_pool.h"
#include "inference/engine/decode/open_session.h"
#include "inference/engine/formats/model_loader.h"

namespace ts {

LocalEngineSpec localSpecFor(const ProviderSettings& provider) {
  return {QString::fromStdString(provider.base_url), provider.local};
}

std::shared_ptr<engine::Model> loadLocalModel(const LocalEngineSpec& spec, QString& error,
                                              const engine::LoadProgress& progress) {
  if (spec.model_path.trimmed().isEmpty()) {
    error = QCoreApplication::translate(
        "ts::LocalEngineWorker",
        "This local provider names no model: edit it and give a GGUF file, a Hugging Face "
        "folder or a llama2.c checkpoint.");
    return nullptr;
  }
  if (spec.model_path == demoModelPath())  // the ready default, made at its first use
    if (const QString made = ensureDemoModel(spec.model_path); !made.isEmpty()) {
      error = QCoreApplication::translate("ts::LocalEngineWorker",
                                          "the demo model could not be created: ") +
              made;
      return nullptr;
    }
  const QString weights_name = QString::fromStdString(spec.engine.weights);
  if (auto shared = LoadedModels::find(spec.model_path, weights_name)) {
    if (progress) progress(1.0);
    return shared;
  }
  auto weights = engine::parseWeightFormat(spec.engine.weights);
  if (!weights) {
    error = QString::fromStdString(weights.error());
    return nullptr;
  }
  engine::LoadOptions options;
  options.weights = weights.value();
  options.progress = progress;
  auto model = engine::loadModel(spec.model_path.toStdString(), options);
  if (!model) {
    error = QString::fromStdString(model.error());
    return nullptr;
  }
  LoadedModels::countLoadFromFile();
  LoadedModels::add(spec.model_path, weights_name, model.value());
  return model.value();
}

engine::BackendRequest backendRequestFor(const LocalEngineSettings& settings) {
  engine::BackendRequest request;
  request.name = settings.backend;
  request.threads = settings.threads > 0 ? settings.threads : engine::ThreadPool::defaultThreads();
  request.cuda.device = settings.device;
  return request;
}

QString loadLocalEngine(const LocalEngineSpec& spec, LocalEngine& out,
                        std::unique_ptr<engine::DecodeSession>& session,
                        const engine::LoadProgress& progress) {
  auto kv = engine::parseKvFormat(spec.engine.kv);
  if (!kv) return QString::fromStdString(kv.error());
  QString error;
  auto model = loadLocalModel(spec, error, progress);
  if (!model) return error;
  const engine::BackendRequest request = backendRequestFor(spec.engine);
  const int positions =
      spec.engine.context > 0 ? spec.engine.context : engine::defaultPositions(model->config);
  auto opened = engine::openSession(model, positions, kv.value(), request);
  if (!opened) return QString::fromStdString(opened.error());
  out.model = model;
  session = std::move(opened.value().session);
  out.kv = kv.value();
  out.threads = request.threads;
  out.backend = QString::fromStdString(opened.value().backend);
  out.backend_note = QString::fromStdString(opened.value().note);
  return {};
}

}  // namespace ts
