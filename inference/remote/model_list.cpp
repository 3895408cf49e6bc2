#include "inference/remote/model_list.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>

#include "inference/remote/api_key.h"
#include "inference/remote/base_url.h"
#include "inference/remote/chat_json.h"

namespace ts {

ModelListFetcher::ModelListFetcher(QObject* parent, QNetworkAccessManager* nam)
    : QObject(parent), nam_(nam ? nam : new QNetworkAccessManager(this)) {}

ModelListFetcher::~ModelListFetcher() {
  if (reply_) {
    reply_->disconnect(this);
    reply_->abort();
    reply_->deleteLater();
  }
}

void ModelListFetcher::start(const RemoteEndpoint& endpoint) {
  if (reply_) {
    reply_->disconnect(this);
    reply_->abort();
    reply_->deleteLater();
  }
  const NormalizedBaseUrl n = normalizeBaseUrl(endpoint.base_url);
  if (!n.ok()) {
    ModelList list;
    list.error = n.error;
    emit finished(list);
    return;
  }
  QNetworkRequest req(modelsUrl(n.root));
  const ResolvedKey key = resolveApiKey(endpoint.api_key, endpoint.api_key_env);
  if (key.state == KeyState::Present) req.setRawHeader("Authorization", "Bearer " + key.key);
  req.setTransferTimeout(endpoint.timeouts.connect_ms + endpoint.timeouts.first_byte_ms);
  QNetworkReply* reply = nam_->get(req);
  reply_ = reply;
  connect(reply, &QNetworkReply::finished, this, [this, reply, key] {
    reply->deleteLater();
    ModelList list;
    list.url = reply->url().toString();
    list.http_status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QByteArray body = reply->readAll();
    if (reply->error() != QNetworkReply::NoError) {
      if (list.http_status) {
        list.server_message = apiErrorMessage(body);
        list.error = tr("GET %1 answered HTTP %2: %3")
                         .arg(list.url)
                         .arg(list.http_status)
                         .arg(list.server_message);
        if (list.http_status == 401 || list.http_status == 403)
          list.error += " " + authFixHint(key);
      } else {
        list.error = tr("GET %1 failed: %2").arg(list.url, reply->errorString());
      }
    } else {
      list.ids = parseModelIds(body);
      if (list.ids.isEmpty())
        list.error = tr("GET %1 listed no models; type a model id").arg(list.url);
    }
    emit finished(list);
  });
}

}  // namespace ts
