// `tokenscope-cli serve` from inside the app, for other tools: the current local
// provider's model behind the OpenAI-compatible server on 127.0.0.1 (or every network, as
// Serve settings say; port 8080, or the next free one up to 8099), loaded on a worker
// thread, until stopped or the app quits. It runs on the provider's shared engine
// (local_engines.h): the chat's requests and the served ones are batched by one scheduler.
//
// Stopping never blocks the calling (GUI) thread: stop() cancels every running and waiting
// request at once (each ends within a scheduler step), then the server is stopped and
// destroyed, and the engine released, on a thread of its own; stopped() follows. A start()
// while that runs begins once it has ended (the port is free then); the destructor cancels
// and waits for it (bounded: nothing runs any more).
#pragma once
#include <QFuture>
#include <QObject>
#include <QThreadPool>
#include <memory>
#include <optional>

#include "app/local/local_doctor.h"
#include "app/local/local_engine_worker.h"
#include "app/local/local_engines.h"
#include "app/local/served_run.h"
#include "inference/engine/serving/scheduler.h"

namespace ts {
namespace server {
class LocalServer;
}

// Where and how to serve. The key is never logged, shown in the status bar or written to
// a file by this class.
struct ServeOptions {
  QString host = "127.0.0.1";  // "0.0.0.0": every network
  QString api_key;             // empty: no key (requests need no Authorization header)
};

class LocalServing : public QObject {
  Q_OBJECT
 public:
  enum class State { Off, Starting, Serving, Stopping };
  Q_ENUM(State)

  explicit LocalServing(QObject* parent = nullptr);
  // Whether `host` is this computer only (127.0.0.1, ::1, localhost), and whether serving
  // on it without a key reaches other machines (the server's rules, for the app).
  static bool isLoopbackHost(const QString& host);
  static bool isExposed(const QString& host, bool has_key);
  ~LocalServing() override;
  void start(const LocalEngineSpec& spec, const QString& model_name,
             const ServeOptions& options = {});
  void stop();
  State state() const;
  bool isServing() const { return server_ != nullptr; }
  // A stop is finishing on its thread (the old server may still hold its port).
  bool isStopping() const { return stopping_; }
  int port() const { return port_; }
  QString host() const { return host_; }
  bool requiresKey() const { return requires_key_; }
  // The model id clients name ("" when not serving); the server also answers to kAlias.
  QString modelName() const { return model_name_; }
  static constexpr const char* kAlias = "local";
  // The engine's scheduler now (running, waiting, tokens generated); nullopt when not
  // serving. The chat's requests on the same model count too: they share the engine.
  std::optional<engine::SchedulerMetrics> metrics() const;
  // Where the app serves the model file of `spec` now (any LocalServing of this process; GUI
  // thread), for the doctor; nullopt when none serves it.
  static std::optional<ServedEndpoint> servedEndpoint(const LocalEngineSpec& spec);

 signals:
  void started(const QString& url);  // the base URL other tools use (…/v1)
  void stopped();  // nothing serves and nothing is about to (a queued start runs instead)
  void failed(const QString& message);
  // A chat completion the server admitted has ended (answered, cancelled or failed): the
  // client's parameters, tokens and times; delivered on this object's thread.
  void requestServed(const ts::ServedRun& request);

 private:
  struct PendingStart {
    LocalEngineSpec spec;
    QString model_name;
    ServeOptions options;
  };
  void load(const PendingStart& what);
  void serveLoaded(const std::shared_ptr<SharedEngine>& engine, const PendingStart& what);
  void stopFinished();

  std::shared_ptr<SharedEngine> engine_;  // held while serving
  std::unique_ptr<server::LocalServer> server_;
  int port_ = -1;
  QString host_;
  QString model_name_;
  QString model_path_;  // the file or folder served
  bool requires_key_ = false;
  bool starting_ = false;
  bool stop_when_loaded_ = false;  // stop() came while the model was loading
  bool stopping_ = false;
  std::optional<PendingStart> start_after_stop_;      // start() came while stopping
  std::optional<PendingStart> latest_while_loading_;  // start() came again while loading
  QThreadPool stop_pool_;                             // the background stop (not the global pool,
                                                      // which model loads may fill)
  QFuture<void> stop_future_;
};

}  // namespace ts
