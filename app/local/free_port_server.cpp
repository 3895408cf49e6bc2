#include "app/local/free_port_server.h"

#include <QCoreApplication>

#include "app/server/model_server.h"
#include "inference/engine/tokenizer/chat_template.h"

namespace ts {

engine::Result<std::unique_ptr<FreePortServer>> FreePortServer::start(
    const FreePortServeSpec& spec) {
  server::ServerOptions options;
  options.model_name = spec.model_name;
  options.chat = engine::isChatModel(spec.model->config.architecture, spec.model->config.vocab);
  options.max_queue = spec.max_queue;
  auto served =
      server::serveModel(spec.model, spec.context, spec.kv, spec.backend, spec.scheduling, options);
  if (!served) return engine::fail(served.error());
  std::unique_ptr<FreePortServer> out(
      new FreePortServer(std::make_unique<server::ServedModel>(std::move(served.value()))));
  out->port_ = out->served_->server->bind("127.0.0.1", 0);
  if (out->port_ < 0 || !out->served_->server->start())
    return engine::fail(QCoreApplication::translate(
                            "ts::FreePortServer", "cannot listen on 127.0.0.1 for the local model")
                            .toStdString());
  return out;
}

FreePortServer::FreePortServer(std::unique_ptr<server::ServedModel> served)
    : served_(std::move(served)) {}

FreePortServer::~FreePortServer() {
  cancelAll();  // so that stop() need not wait for requests still running
  stop();
}

QString FreePortServer::baseUrl() const {
  return QString("http://127.0.0.1:%1").arg(port_);
}

const std::string& FreePortServer::backend() const {
  return served_->backend;
}

const std::string& FreePortServer::note() const {
  return served_->note;
}

std::string FreePortServer::scheduling() const {
  return server::describeScheduling(*served_->scheduler);
}

int FreePortServer::completedRequests() const {
  return served_->server->completedRequests();
}

void FreePortServer::cancelAll() {
  served_->server->cancelAll();
}

void FreePortServer::stop() {
  served_->server->stop();
}

}  // namespace ts
