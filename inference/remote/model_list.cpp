#include "inference/remote/model_list.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>

#include "inference/remote/api_key.h"
#include "inference/remote/base_url.h"
#include "inference/remote/chat_json.h"

namespace ts {

ModelListFetcher::ModelListFetcher(QObject* parent)
    : QObject(parent), nam_(new QNetworkAccessManager(this)) {}

void ModelListFetcher::start(const RemoteEndpoint& endpoint) {
  if (reply_) reply_->abort();
  const NormalizedBaseUrl n = normalizeBaseUrl(endpoint.base_url);
  if (!n.ok()) {
    emit finished({}, n.error);
    return;
  }
  QNetworkRequest req(modelsUrl(n.root));
  const ResolvedKey key = resolveApiKey(endpoint.api_key, endpoint.api_key_env);
  if (key.state == KeyState::Present) req.setRawHeader("Authorization", "Bearer " + key.key);
  req.setTransferTimeout(endpoint.timeouts.first_byte_ms);
  QNetworkReply* reply = nam_->get(req);
  reply_ = reply;
  connect(reply, &QNetworkReply::finished, this, [this, reply, key] {
    reply->deleteLater();
    if (reply->error() == QNetworkReply::OperationCanceledError && reply != reply_) return;
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QByteArray body = reply->readAll();
    if (reply->error() != QNetworkReply::NoError) {
      QString error =
          status ? tr("GET %1 answered HTTP %2: %3")
                       .arg(reply->url().toString())
                       .arg(status)
                       .arg(apiErrorMessage(body))
                 : tr("GET %1 failed: %2").arg(reply->url().toString(), reply->errorString());
      if (status == 401 || status == 403) error += " " + authFixHint(key);
      emit finished({}, error);
      return;
    }
    const QStringList ids = parseModelIds(body);
    emit finished(ids,
                  ids.isEmpty()
                      ? tr("GET %1 listed no models; type a model id").arg(reply->url().toString())
                      : QString());
  });
}

}  // namespace ts
