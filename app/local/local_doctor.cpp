#include "app/local/local_doctor.h"

#include <httplib.h>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtConcurrent/QtConcurrentRun>

#include "app/local/local_engines.h"
#include "app/local/model_paths.h"
#include "inference/engine/backend/backend_loader.h"
#include "inference/engine/formats/model_info.h"

namespace ts {
namespace {

QString mib(qint64 bytes) {
  return QString::number(static_cast<double>(bytes) / (1 << 20), 'f', 1) + " MiB";
}

// The format the reader recognised (ModelConfig::source_format), as users name it.
QString formatOf(const std::string& source) {
  if (source == "gguf") return "GGUF";
  if (source == "llama2c") return "llama2.c";
  if (source == "safetensors") return LocalDoctor::tr("Hugging Face safetensors");
  if (source == "pytorch") return LocalDoctor::tr("PyTorch .bin");
  return QString::fromStdString(source);
}

DoctorStep step(const QString& name, bool ok, const QString& message, const QString& fix = {}) {
  DoctorStep s;
  s.name = name;
  s.ok = ok;
  s.message = message;
  s.fix = ok ? QString() : fix;
  return s;
}

// The backend the engine runs on, as the provider asks for it and the machine allows.
QString backendText(const LocalEngineSettings& settings, const LocalEngine& engine) {
  const QString cpu = LocalDoctor::tr("the CPU, %1 thread(s)").arg(engine.threads);
  if (!engine.backend_note.isEmpty())
    return cpu + LocalDoctor::tr(" (CUDA not used: %1)").arg(engine.backend_note);
  if (settings.backend == "cuda") return LocalDoctor::tr("CUDA (device %1)").arg(settings.device);
  if (settings.backend == "auto" && engine::probeCuda().usable) return LocalDoctor::tr("CUDA");
  return cpu;
}

}  // namespace

DoctorStep LocalDoctor::checkModelFile(const QString& path) {
  const QString name = tr("model file");
  const QString pick =
      tr("Pick the model again with Provider → Open a local model… (a GGUF "
         "file, a Hugging Face folder or a llama2.c checkpoint).");
  if (path.trimmed().isEmpty())
    return step(name, false, tr("The provider names no model file."), pick);
  if (path == demoModelPath() && !QFileInfo::exists(path))
    return step(name, true, tr("The demo model (random weights) is created at its first use."));
  const QFileInfo info(path);
  if (!info.exists())
    return step(name, false, tr("%1 does not exist.").arg(path),
                tr("Check the path (moved or deleted?). ") + pick);
  if (!info.isReadable())
    return step(name, false, tr("%1 cannot be read by this user.").arg(path),
                tr("Give your user read permission on it (chmod a+r), or copy it to a folder "
                   "of yours."));
  auto summary = engine::inspectModel(path.toStdString());
  if (!summary)
    return step(name, false,
                tr("%1 is not a model TokenScope reads: %2")
                    .arg(path, QString::fromStdString(summary.error())),
                tr("TokenScope reads GGUF files, Hugging Face folders (safetensors or .bin) and "
                   "llama2.c checkpoints; download the model again if the file is cut short."));
  const engine::ModelSummary& s = summary.value();
  QStringList types;
  for (const auto& [type, n] : s.stored_types) types << QString::fromStdString(type);
  return step(
      name, true,
      tr("%1 · %2 · %3 layers · vocabulary %4 · %5 on disk (%6)")
          .arg(formatOf(s.config.source_format), QString::fromStdString(s.config.architecture))
          .arg(s.config.n_layers)
          .arg(s.config.vocab)
          .arg(mib(static_cast<qint64>(s.file_bytes)), types.join(", ")));
}

DoctorStep LocalDoctor::checkEngine(const LocalEngineSpec& spec) {
  const QString name = tr("engine");
  QElapsedTimer clock;
  clock.start();
  QString error;
  std::shared_ptr<SharedEngine> engine = sharedLocalEngine(spec, error);
  if (!engine)
    return step(name, false, tr("The engine cannot run this model: %1").arg(error),
                tr("Try the CPU backend, other runtime weights or a shorter context in Provider "
                   "→ Open a local model…; a model too large for the memory needs a smaller "
                   "quantization."));
  DoctorStep s = step(name, true,
                      tr("The model loads and runs on %1 (%2 ms; shared with the chat and "
                         "Serve).")
                          .arg(backendText(spec.engine, *engine))
                          .arg(clock.elapsed()));
  s.elapsed_ms = clock.elapsed();
  return s;
}

DoctorStep LocalDoctor::checkServer(const ServedEndpoint& served) {
  const QString name = tr("server");
  DoctorStep s = step(name, false, {});
  s.final_url = QString("http://127.0.0.1:%1/v1/models").arg(served.port);
  httplib::Client client("127.0.0.1", served.port);
  client.set_connection_timeout(5);
  client.set_read_timeout(10);
  const auto health = client.Get("/health");
  if (!health || health->status != 200) {
    s.http_status = health ? health->status : 0;
    s.message = health ? tr("GET /health answered %1.").arg(health->status)
                       : tr("Nothing answers on port %1.").arg(served.port);
    s.fix =
        tr("Stop and start Provider → Serve the local model; if another program holds the "
           "port, the server takes the next free one.");
    return s;
  }
  const auto models = client.Get("/v1/models");
  s.http_status = models ? models->status : 0;
  if (served.requires_key) {
    s.ok = models && models->status == 401;
    s.message = s.ok
                    ? tr("The server answers on port %1 and, as Serve settings say, refuses "
                         "requests without the API key (401).")
                          .arg(served.port)
                    : tr("GET /v1/models without the key answered %1, not 401.").arg(s.http_status);
    s.fix = tr("Restart Serve: it must require the key Serve settings ask for.");
    return s;
  }
  QStringList ids;
  if (models && models->status == 200)
    for (const QJsonValue& m :
         QJsonDocument::fromJson(QByteArray::fromStdString(models->body))["data"].toArray())
      ids << m["id"].toString();
  s.ok = ids.contains(served.model);
  s.message = s.ok ? tr("The server answers on port %1 and lists the model id \"%2\" (clients "
                        "may also name \"local\").")
                         .arg(served.port)
                         .arg(served.model)
                   : tr("GET /v1/models answered %1 with %2, not the model id \"%3\".")
                         .arg(s.http_status)
                         .arg(ids.isEmpty() ? tr("no model") : ids.join(", "), served.model);
  s.fix = tr("Stop and start Provider → Serve the local model.");
  if (s.ok) s.fix.clear();
  return s;
}

LocalDoctor::LocalDoctor(QObject* parent) : QObject(parent) {}

bool LocalDoctor::ok() const {
  for (const DoctorStep& s : steps_)
    if (!s.ok && !s.skipped) return false;
  return !steps_.isEmpty();
}

void LocalDoctor::record(const DoctorStep& step) {
  steps_ << step;
  emit stepFinished(step);
}

DoctorStep LocalDoctor::skipped(const QString& name, const QString& why) {
  DoctorStep s = step(name, false, why);
  s.skipped = true;
  return s;
}

void LocalDoctor::later(std::function<DoctorStep()> work,
                        std::function<void(const DoctorStep&)> then) {
  auto* watcher = new QFutureWatcher<DoctorStep>(this);
  connect(watcher, &QFutureWatcher<DoctorStep>::finished, this,
          [this, watcher, generation = generation_, then = std::move(then)] {
            watcher->deleteLater();
            if (generation == generation_) then(watcher->result());  // else: started again
          });
  watcher->setFuture(QtConcurrent::run(std::move(work)));
}

void LocalDoctor::start(const LocalEngineSpec& spec, std::optional<ServedEndpoint> served) {
  ++generation_;
  steps_.clear();
  running_ = true;
  // Each step on a worker (a header read, a model load, HTTP), shown as it ends; the engine
  // is skipped when the file is not usable.
  const auto server = [this, served] {
    const auto done = [this](const DoctorStep& s) {
      record(s);
      running_ = false;
      emit finished();
    };
    if (!served)
      return done(skipped(tr("server"), tr("Not serving: Provider → Serve the local model starts "
                                           "the server, then this step checks it.")));
    later([served] { return checkServer(*served); }, done);
  };
  later([path = spec.model_path] { return checkModelFile(path); },
        [this, spec, server](const DoctorStep& file) {
          record(file);
          if (!file.ok) {
            record(skipped(tr("engine"), tr("Skipped: the model file is not usable.")));
            return server();
          }
          later([spec] { return checkEngine(spec); },
                [this, server](const DoctorStep& engine) {
                  record(engine);
                  server();
                });
        });
}

}  // namespace ts
