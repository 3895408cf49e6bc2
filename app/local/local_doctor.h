// The connection doctor for a local provider (a model file, not a URL): (1) the model file
// -- it exists, can be read, is a format the engine reads (GGUF, a Hugging Face folder, a
// llama2.c checkpoint), and its shape and size; (2) the engine -- the model loads with the
// provider's settings, on which backend, in how long; (3) while Provider → Serve runs it,
// the app's own server -- real HTTP requests to GET /health and GET /v1/models on its port,
// which must list the model id clients name. Each step says PASS or FAIL and what to do,
// as DoctorStep rows like the remote doctor's. The file and engine steps run off the
// calling thread.
#pragma once
#include <QObject>
#include <functional>
#include <optional>

#include "app/local/local_engine_loader.h"
#include "inference/remote/connection_doctor.h"

namespace ts {

// The app's server for the provider, when it serves it.
struct ServedEndpoint {
  int port = 0;
  QString model;              // the id /v1/models must list
  bool requires_key = false;  // then /v1/models must answer 401 without one
};

class LocalDoctor : public QObject {
  Q_OBJECT
 public:
  explicit LocalDoctor(QObject* parent = nullptr);
  void start(const LocalEngineSpec& spec, std::optional<ServedEndpoint> served);
  bool isRunning() const { return running_; }
  const QList<DoctorStep>& steps() const { return steps_; }
  bool ok() const;  // every step that ran passed

  // The three checks, callable on any thread (start() runs them on a worker).
  static DoctorStep checkModelFile(const QString& path);
  static DoctorStep checkEngine(const LocalEngineSpec& spec);
  static DoctorStep checkServer(const ServedEndpoint& served);

 signals:
  void stepFinished(const ts::DoctorStep& step);
  void finished();

 private:
  void record(const DoctorStep& step);
  static DoctorStep skipped(const QString& name, const QString& why);
  // Runs `work` on a worker, then `then` here (dropped when start() came again meanwhile).
  void later(std::function<DoctorStep()> work, std::function<void(const DoctorStep&)> then);

  QList<DoctorStep> steps_;
  bool running_ = false;
  int generation_ = 0;  // a start while running drops the older run's results
};

}  // namespace ts
