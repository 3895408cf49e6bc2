#include "app/local/local_serving.h"

#include <QFileInfo>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include "app/server/local_server.h"
#include "inference/engine/tokenizer/chat_template.h"

namespace ts {
namespace {

// The provider's shared engine, or why not (on a worker thread).
struct Loaded {
  std::shared_ptr<SharedEngine> engine;
  QString error;
};

std::shared_ptr<Loaded> loadEngine(const LocalEngineSpec& spec) {
  auto out = std::make_shared<Loaded>();
  out->engine = sharedLocalEngine(spec, out->error);
  return out;
}

constexpr int kFirstPort = 8080, kLastPort = 8099;

QList<const LocalServing*>& instances() {  // GUI thread only
  static QList<const LocalServing*> list;
  return list;
}

QString canonical(const QString& path) {
  const QString c = QFileInfo(path).canonicalFilePath();
  return c.isEmpty() ? path : c;
}

}  // namespace

bool LocalServing::isLoopbackHost(const QString& host) {
  return server::isLoopbackHost(host.toStdString());
}

bool LocalServing::isExposed(const QString& host, bool has_key) {
  return !server::exposureWarning(host.toStdString(), has_key).empty();
}

LocalServing::LocalServing(QObject* parent) : QObject(parent) {
  stop_pool_.setMaxThreadCount(1);
  instances() << this;
}

std::optional<ServedEndpoint> LocalServing::servedEndpoint(const LocalEngineSpec& spec) {
  for (const LocalServing* s : instances())
    if (s->isServing() && canonical(s->model_path_) == canonical(spec.model_path))
      return ServedEndpoint{s->port_, s->model_name_, s->requires_key_};
  return std::nullopt;
}

LocalServing::~LocalServing() {
  instances().removeAll(this);
  start_after_stop_.reset();
  stop();                          // cancels every request, stops on the pool's thread
  stop_future_.waitForFinished();  // within a step: nothing runs any more
}

LocalServing::State LocalServing::state() const {
  if (server_) return State::Serving;
  if (starting_) return stop_when_loaded_ ? State::Stopping : State::Starting;
  if (stopping_ && start_after_stop_) return State::Starting;
  if (stopping_) return State::Stopping;
  return State::Off;
}

void LocalServing::start(const LocalEngineSpec& spec, const QString& model_name,
                         const ServeOptions& options) {
  stop_when_loaded_ = false;
  if (server_) return;
  if (starting_) {  // its settings (host, key) may have changed since: the load uses these
    latest_while_loading_ = PendingStart{spec, model_name, options};
    return;
  }
  if (stopping_) {  // the old server still holds its port: start once it has gone
    start_after_stop_ = PendingStart{spec, model_name, options};
    return;
  }
  load({spec, model_name, options});
}

void LocalServing::load(const PendingStart& what) {
  starting_ = true;
  auto* watcher = new QFutureWatcher<std::shared_ptr<Loaded>>(this);
  connect(watcher, &QFutureWatcher<std::shared_ptr<Loaded>>::finished, this, [this, watcher, what] {
    watcher->deleteLater();
    starting_ = false;
    if (stop_when_loaded_) {  // switched off while loading: never serve
      stop_when_loaded_ = false;
      latest_while_loading_.reset();
      return emit stopped();
    }
    PendingStart chosen = what;
    if (latest_while_loading_) {  // switched off and on again while it loaded
      chosen = *latest_while_loading_;
      latest_while_loading_.reset();
      if (!(chosen.spec == what.spec)) return load(chosen);  // another model by now
    }
    std::shared_ptr<Loaded> loaded = watcher->result();
    if (!loaded->error.isEmpty())
      return emit failed(tr("The model cannot be served: ") + loaded->error);
    serveLoaded(loaded->engine, chosen);
  });
  watcher->setFuture(QtConcurrent::run(loadEngine, what.spec));
}

void LocalServing::serveLoaded(const std::shared_ptr<SharedEngine>& engine,
                               const PendingStart& what) {
  server::ServerOptions options;
  options.model_name = what.model_name.toStdString();
  options.chat =
      engine::isChatModel(engine->model->config.architecture, engine->model->config.vocab);
  options.api_key = what.options.api_key.toStdString();
  options.aliases = {kAlias};
  // Posted to this object's thread; dropped if it is gone by then (the destructor waits for
  // the server's stop, so none is posted after it).
  options.on_request = [this, model = what.model_name](const server::ServedRequest& r) {
    QMetaObject::invokeMethod(
        this, [this, run = servedRun(r, model)] { emit requestServed(run); }, Qt::QueuedConnection);
  };
  auto server = std::make_unique<server::LocalServer>(engine->model, engine->scheduler, options);
  const std::string host = what.options.host.toStdString();
  int port = -1;
  for (int p = kFirstPort; p <= kLastPort && port < 0; ++p) port = server->bind(host, p);
  if (port < 0 || !server->start())
    return emit failed(tr("No free port between %1 and %2 on %3.")
                           .arg(kFirstPort)
                           .arg(kLastPort)
                           .arg(what.options.host));
  engine_ = engine;
  server_ = std::move(server);
  port_ = port;
  host_ = what.options.host;
  model_name_ = what.model_name;
  model_path_ = what.spec.model_path;
  requires_key_ = !what.options.api_key.isEmpty();
  // Every network: other tools on this computer still reach it on the loopback address.
  const QString shown = server::isLoopbackHost(host) ? what.options.host : QString("127.0.0.1");
  emit started(QString("http://%1:%2/v1").arg(shown).arg(port_));
}

std::optional<engine::SchedulerMetrics> LocalServing::metrics() const {
  if (!engine_ || !engine_->scheduler) return std::nullopt;
  return engine_->scheduler->metrics();
}

void LocalServing::stop() {
  start_after_stop_.reset();  // a start queued behind a stop is withdrawn too
  latest_while_loading_.reset();
  if (starting_) stop_when_loaded_ = true;
  if (!server_) return;
  server_->cancelAll();  // every request ends within a step; returns at once
  // The server's stop waits for its threads, and the engine's release may free the model:
  // neither on this thread.
  std::shared_ptr<server::LocalServer> server = std::move(server_);
  std::shared_ptr<SharedEngine> engine = std::move(engine_);
  port_ = -1;
  host_.clear();
  model_name_.clear();
  model_path_.clear();
  requires_key_ = false;
  stopping_ = true;
  stop_future_ = QtConcurrent::run(
      &stop_pool_, [server = std::move(server), engine = std::move(engine)]() mutable {
        server->stop();
        server.reset();
        engine.reset();
      });
  auto* watcher = new QFutureWatcher<void>(this);
  connect(watcher, &QFutureWatcher<void>::finished, this, [this, watcher] {
    watcher->deleteLater();
    stopFinished();
  });
  watcher->setFuture(stop_future_);
}

void LocalServing::stopFinished() {
  stopping_ = false;
  if (start_after_stop_) {  // switched on again meanwhile: serve anew
    const PendingStart what = *start_after_stop_;
    start_after_stop_.reset();
    return load(what);
  }
  emit stopped();
}

}  // namespace ts
