// Streams one chat completion from an OpenAI-compatible endpoint (POST
// {root}/v1/chat/completions) and turns it into StreamEvents. Lives on one thread (the
// thread of its QNetworkAccessManager); every event is also kept in result().run.
#pragma once
#include <QByteArray>
#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QStringList>
#include <QTimer>

#include "inference/remote/api_key.h"
#include "inference/remote/sse_parser.h"
#include "inference/stream/generation_request.h"
#include "inference/stream/run_recorder.h"

class QNetworkAccessManager;
class QNetworkReply;

namespace ts {

class ModelListFetcher;

struct RemoteTimeouts {
  int connect_ms = 10'000;     // until the request is on the wire
  int first_byte_ms = 60'000;  // request sent -> first response byte
  int idle_ms = 30'000;        // longest silence between bytes while streaming (stall)
  int total_ms = 600'000;      // the whole run, retries included

  // From one user-facing limit S (a provider's timeout_seconds, the CLI's --timeout):
  // connect min(S, 10 s); first byte S; idle S; the whole run 10 S.
  static RemoteTimeouts fromLimitSeconds(double seconds);
};

struct RemoteEndpoint {
  QString provider_name;  // for messages and per-provider memory
  QString base_url;       // as the user typed it; normalised before use
  QString api_key_env;    // name of the environment variable holding the key
  QString api_key;        // an explicit key (keychain); never logged
  int max_retries = 2;    // extra attempts, only before the first content byte
  RemoteTimeouts timeouts;
};

struct RemoteResult {
  RecordedRun run;
  QString final_url;                     // the URL of the last attempt
  int attempts = 0;                      // HTTP requests made for this run
  bool stream_options_sent = false;      // on the attempt that produced the answer
  bool stream_options_rejected = false;  // the server answered 400 to it (then retried without)
  int malformed_lines = 0;               // `data:` payloads that were not valid JSON (skipped)
  QStringList warnings;                  // things the user should know that did not fail the run
  QStringList available_models;          // GET /v1/models, when the model was not found
  bool cancelled = false;
};

class OpenAiClient : public QObject {
  Q_OBJECT
 public:
  // Uses `nam` when given (not owned), else creates its own manager.
  explicit OpenAiClient(QObject* parent = nullptr, QNetworkAccessManager* nam = nullptr);
  ~OpenAiClient() override;

  void start(const RemoteEndpoint& endpoint, const GenerationRequest& request);
  // Stops now, keeps the partial answer, ends the run with finish reason "cancelled".
  void cancel();
  bool isRunning() const { return running_; }
  const RemoteResult& result() const { return result_; }

 signals:
  void eventReady(const ts::StreamEvent& event);  // every event, in order
  void runFinished();                             // after the Finished/Failed event

 private:
  enum class Phase { Connecting, AwaitingFirstByte, Streaming };
  enum class TimerCause { None, Connect, FirstByte, Idle, Total };

  void startAttempt();
  void onMetaData();
  void onReadyRead();
  void onReplyFinished();
  void onTimer(TimerCause cause);
  void handleHttpError(int status, const QByteArray& body);
  void handleNetworkError(int qt_error, const QString& error_string);
  void processSse(const std::vector<SseEvent>& events, int64_t t_ns);
  void finishStream(int64_t t_ns);
  bool retryLater(int delay_ms, const QString& why);
  void fetchModelsThenFail(const QString& server_message);
  void fail(FailureKind kind, int http_status, const QString& message);
  void finishOk(const std::string& reason);
  void terminate(StreamEvent end);
  void emitEvent(StreamEvent event);
  void dropReply();
  QString urlForMessages() const;
  RemoteEndpoint endpointWithKey() const;  // the endpoint with the resolved key filled in
  QString memoryKey() const;

  QNetworkAccessManager* nam_;
  RemoteEndpoint endpoint_;
  GenerationRequest request_;
  ResolvedKey key_;
  QString root_;
  RunRecorder recorder_;
  RemoteResult result_;
  bool running_ = false;

  // per attempt
  QPointer<QNetworkReply> reply_;
  Phase phase_ = Phase::Connecting;
  TimerCause timer_cause_ = TimerCause::None;
  SseParser parser_;
  QByteArray error_body_;
  QByteArray whole_body_;  // non-streaming (or a server that ignored stream=true)
  bool send_stream_options_ = true;
  bool retried_without_stream_options_ = false;
  bool content_seen_ = false;  // a content token arrived: never replay from here on
  bool done_seen_ = false;
  bool body_is_sse_ = true;
  std::string finish_reason_;
  int retries_used_ = 0;

  QPointer<ModelListFetcher> models_;  // lists alternatives when the model is not found
  QTimer phase_timer_;                 // connect / first byte / idle, one at a time
  QTimer total_timer_;
  QTimer retry_timer_;
};

}  // namespace ts
