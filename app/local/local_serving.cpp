#include "app/local/local_serving.h"

#include <QtConcurrent/QtConcurrentRun>

#include "app/server/local_server.h"

namespace ts {
namespace {

// The provider's shared engine, or why not (on a worker thread).
struct Loaded {
  std::shared_ptr<SharedEngine> engine;
  QString error;
};

std::shared_ptr<Loaded> load(const LocalEngineSpec& spec) {
  auto out = std::make_shared<Loaded>();
  out->engine = sharedLocalEngine(spec, out->error);
  return out;
}

}  // namespace

LocalServing::LocalServing(QObject* parent) : QObject(parent) {}

LocalServing::~LocalServing() {
  stop();
}

void LocalServing::start(const LocalEngineSpec& spec, const QString& model_name) {
  stop_when_loaded_ = false;
  if (server_ || starting_) return;
  starting_ = true;
  auto* watcher = new QFutureWatcher<std::shared_ptr<Loaded>>(this);
  connect(watcher, &QFutureWatcher<std::shared_ptr<Loaded>>::finished, this,
          [this, watcher, model_name] {
            watcher->deleteLater();
            starting_ = false;
            if (stop_when_loaded_) {  // switched off while loading: never serve
              stop_when_loaded_ = false;
              return emit stopped();
            }
            std::shared_ptr<Loaded> loaded = watcher->result();
            if (!loaded->error.isEmpty())
              return emit failed(tr("The model cannot be served: ") + loaded->error);
            server::ServerOptions options;
            options.model_name = model_name.toStdString();
            options.chat = server::isChatModel(*loaded->engine->model);
            engine_ = loaded->engine;
            server_ =
                std::make_unique<server::LocalServer>(engine_->model, engine_->scheduler, options);
            for (int port = 8080; port < 8100 && port_ < 0; ++port)
              port_ = server_->bind("127.0.0.1", port);
            if (port_ < 0 || !server_->start()) {
              server_.reset();
              engine_.reset();
              port_ = -1;
              return emit failed(tr("No free port between 8080 and 8099 on 127.0.0.1."));
            }
            emit started(QString("http://127.0.0.1:%1/v1").arg(port_));
          });
  watcher->setFuture(QtConcurrent::run(load, spec));
}

void LocalServing::stop() {
  if (starting_) stop_when_loaded_ = true;
  if (!server_) return;
  server_->stop();
  server_.reset();
  engine_.reset();
  port_ = -1;
  emit stopped();
}

}  // namespace ts
