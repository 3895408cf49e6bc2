// `tokenscope-cli serve` from inside the app, for other tools: the current local
// provider's model behind the OpenAI-compatible server on 127.0.0.1 (port 8080, or the
// next free one up to 8099), loaded on a worker thread, until stopped or the app quits.
// It runs on the provider's shared engine (local_engines.h): the chat's requests and the
// served ones are batched by one scheduler.
#pragma once
#include <QFutureWatcher>
#include <QObject>
#include <memory>

#include "app/local/local_engine_worker.h"
#include "app/local/local_engines.h"

namespace ts {
namespace server {
class LocalServer;
}

class LocalServing : public QObject {
  Q_OBJECT
 public:
  explicit LocalServing(QObject* parent = nullptr);
  ~LocalServing() override;
  void start(const LocalEngineSpec& spec, const QString& model_name);
  void stop();
  bool isServing() const { return server_ != nullptr; }
  int port() const { return port_; }

 signals:
  void started(const QString& url);
  void stopped();
  void failed(const QString& message);

 private:
  std::shared_ptr<SharedEngine> engine_;  // held while serving
  std::unique_ptr<server::LocalServer> server_;
  int port_ = -1;
  bool starting_ = false;
  bool stop_when_loaded_ = false;  // stop() came while the model was loading
};

}  // namespace ts
