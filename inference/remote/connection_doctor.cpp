#include "inference/remote/connection_doctor.h"

#include <QHostInfo>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSslSocket>
#include <QTimer>

#include "inference/remote/base_url.h"
#include "inference/remote/chat_json.h"
#include "inference/remote/model_list.h"
#include "inference/remote/provider_memory.h"
#include "inference/stream/metrics.h"

namespace ts {
namespace {
const char* const kStepNames[] = {"connect", "non-streaming", "streaming", "models"};
}

bool DoctorReport::ok() const {
  return !steps.isEmpty() &&
         std::all_of(steps.begin(), steps.end(), [](const DoctorStep& s) { return s.ok; });
}

ConnectionDoctor::ConnectionDoctor(QObject* parent) : QObject(parent) {}

QString ConnectionDoctor::fixFor(FailureKind kind, const ResolvedKey& key, const QString& message,
                                 const QStringList& available) {
  switch (kind) {
    case FailureKind::Auth:
      return authFixHint(key);
    case FailureKind::NotFound:
      return tr(
          "Set the base URL to the part before /v1/chat/completions (for example "
          "https://taotoken.net/api): look for a missing path prefix, a trailing path or a "
          "duplicated /v1.");
    case FailureKind::ModelNotFound:
      return available.isEmpty()
                 ? tr("Pick a model id the endpoint serves.")
                 : tr("Pick a model id the endpoint lists: %1.").arg(available.join(", "));
    case FailureKind::RateLimited:
      return tr("Wait before retrying, or lower the request rate.");
    case FailureKind::Server:
      return tr("The provider has a problem on its side: try again later.");
    case FailureKind::BadRequest:
      return tr("The server refused the request as sent: ") + message;
    case FailureKind::Connection:
      return tr("Check the host and port in the base URL and that the server is running.");
    case FailureKind::Reset:
      return tr("The connection dropped mid-answer: check proxies and the server's logs.");
    case FailureKind::Timeout:
    case FailureKind::Stall:
      return tr(
          "This step hung: the server accepted the connection but did not answer in time; "
          "check its load, or raise the provider's timeout.");
    case FailureKind::Protocol:
      return tr("The endpoint does not speak the OpenAI chat completions API at this URL.");
    case FailureKind::Device:
      return tr("The local engine's GPU failed: run the provider on the CPU.");
    case FailureKind::None:
      break;
  }
  return {};
}

void ConnectionDoctor::start(const RemoteEndpoint& endpoint, const QString& model) {
  endpoint_ = endpoint;
  endpoint_.max_retries = 0;  // the doctor reports the first answer, it does not hide it
  model_ = model;
  report_ = DoctorReport{};
  step_ = 0;
  running_ = true;
  const NormalizedBaseUrl n = normalizeBaseUrl(endpoint.base_url);
  if (!n.ok()) {
    record({"connect", false, false, 0, endpoint.base_url, n.error,
            tr("Enter the base URL as https://host/path, for example https://taotoken.net/api."),
            0});
    skipRest(tr("the base URL is not usable"));
    return;
  }
  root_ = n.root;
  QTimer::singleShot(0, this, &ConnectionDoctor::next);
}

void ConnectionDoctor::next() {
  clock_.start();
  switch (step_) {
    case 0:
      runConnect();
      break;
    case 1:
      runRequest(false);
      break;
    case 2:
      runRequest(true);
      break;
    case 3:
      runModels();
      break;
    default:
      running_ = false;
      emit finished();
  }
}

void ConnectionDoctor::record(DoctorStep step) {
  step.elapsed_ms = clock_.isValid() ? clock_.elapsed() : 0;
  report_.steps.append(step);
  emit stepFinished(step);
  ++step_;
}

void ConnectionDoctor::skipRest(const QString& why) {
  while (step_ < 4) {
    DoctorStep s;
    s.name = kStepNames[step_];
    s.skipped = true;
    s.message = tr("skipped: ") + why;
    record(s);
  }
  running_ = false;
  emit finished();
}

void ConnectionDoctor::runConnect() {
  const QUrl url(root_);
  const bool tls = url.scheme() == "https";
  const quint16 port = static_cast<quint16>(url.port(tls ? 443 : 80));
  const QString where = QString("%1:%2").arg(url.host()).arg(port);
  QSslSocket* socket = new QSslSocket(this);
  socket_ = socket;
  auto done = std::make_shared<bool>(false);
  auto finish = [this, socket, where, done](bool ok, const QString& message, const QString& fix) {
    if (*done) return;
    *done = true;
    socket->disconnect(this);
    socket->abort();
    socket->deleteLater();
    record({"connect", ok, false, 0, where, message, fix, 0});
    if (ok)
      QTimer::singleShot(0, this, &ConnectionDoctor::next);
    else
      skipRest(tr("could not connect"));
  };
  connect(socket, tls ? &QSslSocket::encrypted : &QAbstractSocket::connected, this,
          [finish, where, tls] {
            finish(true, tr("connected to %1%2").arg(where, tls ? tr(" (TLS handshake ok)") : ""),
                   {});
          });
  connect(socket, &QAbstractSocket::errorOccurred, this,
          [finish, socket, where, url](QAbstractSocket::SocketError e) {
            if (e == QAbstractSocket::HostNotFoundError)
              finish(false, tr("DNS lookup of '%1' failed").arg(url.host()),
                     tr("Check the host name in the base URL (and your DNS / proxy settings)."));
            else if (e == QAbstractSocket::ConnectionRefusedError)
              finish(false, tr("%1 refused the connection").arg(where),
                     tr("Check the port in the base URL and that the server is running."));
            else
              finish(false, QString("%1: %2").arg(where, socket->errorString()),
                     tr("Check the base URL's scheme (http/https), host and port."));
          });
  QTimer::singleShot(endpoint_.timeouts.connect_ms, socket, [finish, where, this] {
    finish(false,
           tr("no connection to %1 within %2 ms").arg(where).arg(endpoint_.timeouts.connect_ms),
           tr("The host does not answer: check the address, a firewall or a proxy."));
  });
  if (tls)
    socket->connectToHostEncrypted(url.host(), port);
  else
    socket->connectToHost(url.host(), port);
}

void ConnectionDoctor::runRequest(bool stream) {
  if (!client_) client_ = new OpenAiClient(this);
  if (stream)  // learn afresh whether stream_options is accepted
    ProviderMemory::setRejectsStreamOptions(endpoint_.provider_name + "|" + root_, false);
  GenerationRequest request;
  request.model = model_.toStdString();
  request.provider = endpoint_.provider_name.toStdString();
  request.messages = {{"user", "Say OK."}};
  request.params.max_tokens = 16;
  request.params.temperature = 0;
  request.params.stream = stream;
  client_->disconnect(this);
  connect(client_, &OpenAiClient::runFinished, this, [this, stream] {
    const RemoteResult& r = client_->result();
    const StreamEvent* end = r.run.terminal();
    DoctorStep s;
    s.name = stream ? "streaming" : "non-streaming";
    s.final_url = r.final_url;
    if (end && end->kind == EventKind::Finished) {
      const RunMetrics m = computeMetrics(r.run);
      s.ok = true;
      s.http_status = 200;
      s.message = tr("answered %1 token(s) (%2), finish_reason %3")
                      .arg(m.output_tokens)
                      .arg(tokenCountSourceName(m.output_tokens_source))
                      .arg(QString::fromStdString(end->text));
      if (stream) {
        const bool rejected = r.stream_options_rejected;
        report_.accepts_stream_options = !rejected;
        report_.sends_usage = m.output_tokens_source == TokenCountSource::Usage;
        s.message +=
            tr("; stream_options %1; usage chunk %2")
                .arg(rejected ? tr("rejected (HTTP 400), retried without it") : tr("accepted"),
                     *report_.sends_usage ? tr("sent") : tr("not sent"));
      }
    } else if (end) {
      s.http_status = end->http_status;
      s.message = QString::fromStdString(end->text);
      s.fix = fixFor(end->failure, resolveApiKey(endpoint_.api_key, endpoint_.api_key_env),
                     s.message, r.available_models);
    }
    record(s);
    QTimer::singleShot(0, this, &ConnectionDoctor::next);
  });
  client_->start(endpoint_, request);
}

void ConnectionDoctor::runModels() {
  auto* fetcher = new ModelListFetcher(this);
  connect(fetcher, &ModelListFetcher::finished, this, [this, fetcher](const ModelList& list) {
    fetcher->deleteLater();
    DoctorStep s;
    s.name = "models";
    s.http_status = list.http_status;
    s.final_url = list.url;
    report_.models = list.ids;
    if (!list.ids.isEmpty()) {
      s.ok = true;
      s.message = tr("available: ") + list.ids.join(", ");
      if (!list.ids.contains(model_)) {
        // Gateways may serve ids they do not list: only a failed request makes it an error.
        const bool requests_ok = report_.steps.size() > 2 && report_.steps[1].ok;
        s.ok = requests_ok;
        s.message = tr("'%1' is not among the listed models (%2)%3")
                        .arg(model_, list.ids.join(", "),
                             requests_ok ? tr("; the requests above worked anyway") : "");
        if (!requests_ok)
          s.fix = tr("Use one of the listed ids as the model, or check the model's spelling.");
      }
    } else if (list.http_status >= 200 && list.http_status < 300) {
      s.ok = true;
      s.message = tr("the endpoint lists no models");
    } else {
      s.message = list.error;
      s.fix = list.http_status == 401 || list.http_status == 403
                  ? authFixHint(resolveApiKey(endpoint_.api_key, endpoint_.api_key_env))
              : list.http_status == 404
                  ? tr("This endpoint has no /v1/models; enter model ids by hand "
                       "(everything else can still work).")
                  : tr("Check the base URL and that the server is running.");
    }
    record(s);
    QTimer::singleShot(0, this, &ConnectionDoctor::next);
  });
  fetcher->start(endpoint_);
}

}  // namespace ts
