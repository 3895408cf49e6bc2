// GET {root}/v1/models: the ids an endpoint serves, for the model picker.
#pragma once
#include <QObject>
#include <QPointer>
#include <QStringList>

#include "inference/remote/openai_client.h"

class QNetworkAccessManager;
class QNetworkReply;

namespace ts {

class ModelListFetcher : public QObject {
  Q_OBJECT
 public:
  explicit ModelListFetcher(QObject* parent = nullptr);
  void start(const RemoteEndpoint& endpoint);

 signals:
  // ids empty and `error` set when the list could not be fetched.
  void finished(const QStringList& ids, const QString& error);

 private:
  QNetworkAccessManager* nam_;
  QPointer<QNetworkReply> reply_;
};

}  // namespace ts
