// GET {root}/v1/models: the ids an endpoint serves. Used by the model picker, by the
// connection doctor's last step, and by the client to list alternatives when a model is
// not found.
#pragma once
#include <QObject>
#include <QPointer>
#include <QStringList>

#include "inference/remote/openai_client.h"

class QNetworkAccessManager;
class QNetworkReply;

namespace ts {

struct ModelList {
  QStringList ids;
  int http_status = 0;     // 0 when no HTTP answer arrived
  QString url;             // the URL asked
  QString server_message;  // the error body's message, when the status was not 2xx
  QString error;           // empty on success, else what went wrong, in one sentence
  bool ok() const { return error.isEmpty(); }
};

class ModelListFetcher : public QObject {
  Q_OBJECT
 public:
  // Uses `nam` when given (not owned), else its own manager.
  explicit ModelListFetcher(QObject* parent = nullptr, QNetworkAccessManager* nam = nullptr);
  ~ModelListFetcher() override;
  void start(const RemoteEndpoint& endpoint);  // a running fetch is abandoned

 signals:
  void finished(const ts::ModelList& list);

 private:
  QNetworkAccessManager* nam_;
  QPointer<QNetworkReply> reply_;
};

}  // namespace ts
