#include "app/local_serving.h"

#include <QtConcurrent/QtConcurrentRun>

#include "app/server/local_server.h"

namespace ts {
namespace {

// The provider's model and session, or why not (on a worker thread).
struct Loaded {
  LocalEngine engine;
  QString error;
};

std::shared_ptr<Loaded> load(const LocalEngineSpec& spec) {
  auto out = std::make_shared<Loaded>();
  out->error = loadLocalEngine(spec, out->engine);
  return out;
}

}  // namespace

LocalServing::LocalServing(QObject* parent) : QObject(parent) {}

LocalServing::~LocalServing() {
  stop();
}

void LocalServing::start(const LocalEngineSpec& spec, const QString& model_name) {
  if (server_ || starting_) return;
  starting_ = true;
  auto* watcher = new QFutureWatcher<std::shared_ptr<Loaded>>(this);
  connect(watcher, &QFutureWatcher<std::shared_ptr<Loaded>>::finished, this,
          [this, watcher, model_name] {
            watcher->deleteLater();
            starting_ = false;
            std::shared_ptr<Loaded> loaded = watcher->result();
            if (!loaded->error.isEmpty())
              return emit failed(tr("The model cannot be served: ") + loaded->error);
            server::ServerOptions options;
            options.model_name = model_name.toStdString();
            options.chat = server::isChatModel(*loaded->engine.model);
            std::vector<std::unique_ptr<engine::DecodeSession>> sessions;
            sessions.push_back(std::move(loaded->engine.session));
            server_ = std::make_unique<server::LocalServer>(loaded->engine.model,
                                                            std::move(sessions), options);
            for (int port = 8080; port < 8100 && port_ < 0; ++port)
              port_ = server_->bind("127.0.0.1", port);
            if (port_ < 0) {
              server_.reset();
              return emit failed(tr("No free port between 8080 and 8099 on 127.0.0.1."));
            }
            thread_ = std::thread([server = server_.get()] { server->listen(); });
            emit started(QString("http://127.0.0.1:%1/v1").arg(port_));
          });
  watcher->setFuture(QtConcurrent::run(load, spec));
}

void LocalServing::stop() {
  if (!server_) return;
  server_->stop();
  if (thread_.joinable()) thread_.join();
  server_.reset();
  port_ = -1;
  emit stopped();
}

}  // namespace ts
