// The connection doctor: runs, in order, (1) DNS + TCP/TLS connect, (2) a non-streaming
// request with max_tokens 16, (3) a streaming request, (4) GET /v1/models, and says for
// each step pass/fail, the HTTP status, the final URL and the fix in one sentence. It also
// finds out whether the provider accepts stream_options and sends a usage chunk.
#pragma once
#include <QObject>
#include <QPointer>
#include <QStringList>
#include <optional>

#include "inference/remote/openai_client.h"

class QNetworkReply;
class QTcpSocket;

namespace ts {

struct DoctorStep {
  QString name;  // "connect" | "non-streaming" | "streaming" | "models"
  bool ok = false;
  bool skipped = false;  // an earlier step made this one pointless
  int http_status = 0;
  QString final_url;
  QString message;  // what happened
  QString fix;      // one sentence; empty when ok
  qint64 elapsed_ms = 0;
};

struct DoctorReport {
  QList<DoctorStep> steps;
  std::optional<bool> accepts_stream_options;  // unknown until the streaming step ran
  std::optional<bool> sends_usage;
  QStringList models;
  bool ok() const;
};

class ConnectionDoctor : public QObject {
  Q_OBJECT
 public:
  explicit ConnectionDoctor(QObject* parent = nullptr);
  void start(const RemoteEndpoint& endpoint, const QString& model);
  bool isRunning() const { return running_; }
  const DoctorReport& report() const { return report_; }

  // available: the model ids the endpoint listed (for a model that was not found).
  static QString fixFor(FailureKind kind, const ResolvedKey& key, const QString& message,
                        const QStringList& available = {});

 signals:
  void stepFinished(const ts::DoctorStep& step);
  void finished();

 private:
  void runConnect();
  void runRequest(bool stream);
  void runModels();
  void record(DoctorStep step);
  void skipRest(const QString& why);
  void next();

  RemoteEndpoint endpoint_;
  QString model_;
  QString root_;
  DoctorReport report_;
  int step_ = 0;
  bool running_ = false;
  QElapsedTimer clock_;
  OpenAiClient* client_ = nullptr;
  QPointer<QTcpSocket> socket_;
};

}  // namespace ts
