#include "app/local_engine_loader.h"

#include <QCoreApplication>

#include "app/demo_model.h"
#include "inference/engine/open_session.h"
#include "inference/engine/thread_pool.h"

namespace ts {

LocalEngineSpec localSpecFor(const ProviderSettings& provider) {
  LocalEngineSpec spec;
  spec.model_path = QString::fromStdString(provider.base_url);
  return spec;
}

QString loadLocalEngine(const LocalEngineSpec& spec, LocalEngine& out) {
  if (spec.model_path.trimmed().isEmpty())
    return QCoreApplication::translate(
        "ts::LocalEngineWorker",
        "This local provider names no model: edit it and give a GGUF file, a Hugging Face "
        "folder or a llama2.c checkpoint.");
  if (spec.model_path == demoModelPath())  // the ready default, made at its first use
    if (const QString error = ensureDemoModel(spec.model_path); !error.isEmpty())
      return QCoreApplication::translate("ts::LocalEngineWorker",
                                         "the demo model could not be created: ") +
             error;
  auto weights = engine::parseWeightFormat(spec.weights.toStdString());
  auto kv = engine::parseKvFormat(spec.kv.toStdString());
  if (!weights || !kv) return QString::fromStdString(!weights ? weights.error() : kv.error());
  engine::LoadOptions options;
  options.weights = weights.value();
  auto model = engine::loadModel(spec.model_path.toStdString(), options);
  if (!model) return QString::fromStdString(model.error());
  engine::BackendRequest request;
  request.name = spec.backend.toStdString();
  request.threads = spec.threads > 0 ? spec.threads : engine::ThreadPool::defaultThreads();
  const int positions =
      spec.context > 0 ? spec.context : engine::defaultPositions(model.value()->config);
  auto opened = engine::openSession(model.value(), positions, kv.value(), request);
  if (!opened) return QString::fromStdString(opened.error());
  out.model = model.value();
  out.session = std::move(opened.value().session);
  out.kv = kv.value();
  out.threads = request.threads;
  out.backend_note = QString::fromStdString(opened.value().note);
  return {};
}

}  // namespace ts
