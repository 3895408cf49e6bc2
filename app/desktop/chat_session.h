// Runs remote generations on a worker thread, like Qt's mandelbrot RenderThread:
// requests go in as values, events come out as queued signals carrying values, and a
// cancel sets an atomic flag checked on every event as well as posting a cancel.
#pragma once
#include <QObject>
#include <QThread>
#include <atomic>

#include "app/local/local_engine_worker.h"
#include "inference/remote/openai_client.h"

namespace ts {

// Lives on the worker thread; owns the client (and its QNetworkAccessManager) there.
class GenerationWorker : public QObject {
  Q_OBJECT
 public:
  explicit GenerationWorker(std::atomic<bool>* cancel_flag) : cancel_flag_(cancel_flag) {}
  void start(const RemoteEndpoint& endpoint, const GenerationRequest& request);
  void cancel();

 signals:
  void eventReady(const ts::StreamEvent& event);
  void runFinished(const ts::RemoteResult& result);

 private:
  std::atomic<bool>* cancel_flag_;
  OpenAiClient* client_ = nullptr;  // created on the worker thread at the first start
};

class ChatSession : public QObject {
  Q_OBJECT
 public:
  explicit ChatSession(QObject* parent = nullptr);
  ~ChatSession() override;
  void start(const RemoteEndpoint& endpoint, const GenerationRequest& request);
  // The in-process engine on the same thread, with the same events and result.
  void startLocal(const LocalEngineSpec& spec, const GenerationRequest& request);
  void cancel();

 signals:
  void eventReady(const ts::StreamEvent& event);
  void runFinished(const ts::RemoteResult& result);
  void localLoadProgress(int percent);         // a local provider's model loading, 0..100
  void localBackendNote(const QString& note);  // LocalEngineWorker::backendNote
  // A long first-use preparation in a local run (the speculative draft's conversion): what
  // happens and its percent (-1 unknown); what "" when done (LocalEngineWorker::localPreparing).
  void localPreparing(const QString& what, int percent);

 private:
  QThread thread_;
  std::atomic<bool> cancel_flag_{false};
  GenerationWorker* worker_;
  LocalEngineWorker* local_;
};

}  // namespace ts
