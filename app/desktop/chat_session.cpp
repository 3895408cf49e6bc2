#include "app/desktop/chat_session.h"

namespace ts {

void GenerationWorker::start(const RemoteEndpoint& endpoint, const GenerationRequest& request) {
  if (!client_) {
    client_ = new OpenAiClient(this);
    connect(client_, &OpenAiClient::eventReady, this, [this](const StreamEvent& e) {
      emit eventReady(e);
      if (cancel_flag_->load() && client_->isRunning()) client_->cancel();
    });
    connect(client_, &OpenAiClient::runFinished, this,
            [this] { emit runFinished(client_->result()); });
  }
  client_->start(endpoint, request);
}

void GenerationWorker::cancel() {
  if (client_ && client_->isRunning()) client_->cancel();
}

ChatSession::ChatSession(QObject* parent) : QObject(parent) {
  qRegisterMetaType<ts::StreamEvent>();
  qRegisterMetaType<ts::RemoteResult>();
  worker_ = new GenerationWorker(&cancel_flag_);
  worker_->moveToThread(&thread_);
  connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
  connect(worker_, &GenerationWorker::eventReady, this, &ChatSession::eventReady,
          Qt::QueuedConnection);
  connect(worker_, &GenerationWorker::runFinished, this, &ChatSession::runFinished,
          Qt::QueuedConnection);
  local_ = new LocalEngineWorker(&cancel_flag_);
  local_->moveToThread(&thread_);
  connect(&thread_, &QThread::finished, local_, &QObject::deleteLater);
  connect(local_, &LocalEngineWorker::eventReady, this, &ChatSession::eventReady,
          Qt::QueuedConnection);
  connect(local_, &LocalEngineWorker::runFinished, this, &ChatSession::runFinished,
          Qt::QueuedConnection);
  connect(local_, &LocalEngineWorker::loadProgress, this, &ChatSession::localLoadProgress,
          Qt::QueuedConnection);
  connect(local_, &LocalEngineWorker::backendNote, this, &ChatSession::localBackendNote,
          Qt::QueuedConnection);
  connect(local_, &LocalEngineWorker::localPreparing, this, &ChatSession::localPreparing,
          Qt::QueuedConnection);
  thread_.setObjectName("generation");
  thread_.start();
}

ChatSession::~ChatSession() {
  cancel();
  thread_.quit();
  thread_.wait();
}

void ChatSession::start(const RemoteEndpoint& endpoint, const GenerationRequest& request) {
  cancel_flag_ = false;
  QMetaObject::invokeMethod(
      worker_, [w = worker_, endpoint, request] { w->start(endpoint, request); },
      Qt::QueuedConnection);
}

void ChatSession::startLocal(const LocalEngineSpec& spec, const GenerationRequest& request) {
  cancel_flag_ = false;
  QMetaObject::invokeMethod(
      local_, [w = local_, spec, request] { w->start(spec, request); }, Qt::QueuedConnection);
}

void ChatSession::cancel() {
  cancel_flag_ = true;
  QMetaObject::invokeMethod(
      worker_, [w = worker_] { w->cancel(); }, Qt::QueuedConnection);
}

}  // namespace ts
