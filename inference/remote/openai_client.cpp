#include "inference/remote/openai_client.h"

#include <QDateTime>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <algorithm>

#include "inference/remote/base_url.h"
#include "inference/remote/chat_json.h"
#include "inference/remote/model_list.h"
#include "inference/remote/provider_memory.h"

namespace ts {
namespace {

constexpr qsizetype kMaxErrorBody = 64 * 1024;
constexpr int kMaxRetryAfterMs = 60'000;

int backoffMs(int retry_index) {
  return std::min(8000, 250 << std::min(retry_index, 5));
}

QString seconds(int ms) {
  return QString::number(ms / 1000.0, 'g', 3) + " s";
}

// Retry-After is either delta-seconds or an HTTP date; -1 when absent or unreadable.
int retryAfterMs(const QByteArray& header) {
  if (header.isEmpty()) return -1;
  bool ok = false;
  const int secs = header.trimmed().toInt(&ok);
  if (ok) return std::max(0, secs) * 1000;
  const auto when = QDateTime::fromString(QString::fromLatin1(header.trimmed()), Qt::RFC2822Date);
  if (!when.isValid()) return -1;
  return static_cast<int>(std::max<qint64>(0, QDateTime::currentDateTimeUtc().msecsTo(when)));
}

// A chunk's usage as an event (cached_tokens when the server reports them).
StreamEvent usageEvent(int64_t t_ns, const ChatBody& c) {
  StreamEvent e =
      StreamEvent::usage(t_ns, c.prompt_tokens.value_or(-1), c.completion_tokens.value_or(-1));
  e.cached_tokens = c.cached_tokens.value_or(-1);
  return e;
}

}  // namespace

RemoteTimeouts RemoteTimeouts::fromLimitSeconds(double seconds) {
  const double ms = std::clamp(seconds * 1000.0, 1.0, 2.0e8);
  return {static_cast<int>(std::min(ms, 10'000.0)), static_cast<int>(ms), static_cast<int>(ms),
          static_cast<int>(ms * 10)};
}

OpenAiClient::OpenAiClient(QObject* parent, QNetworkAccessManager* nam)
    : QObject(parent), nam_(nam ? nam : new QNetworkAccessManager(this)) {
  for (QTimer* t : {&phase_timer_, &total_timer_, &retry_timer_}) {
    t->setSingleShot(true);
    t->setTimerType(Qt::PreciseTimer);
  }
  connect(&phase_timer_, &QTimer::timeout, this, [this] { onTimer(timer_cause_); });
  connect(&total_timer_, &QTimer::timeout, this, [this] { onTimer(TimerCause::Total); });
  connect(&retry_timer_, &QTimer::timeout, this, &OpenAiClient::startAttempt);
}

OpenAiClient::~OpenAiClient() {
  dropReply();
}

void OpenAiClient::start(const RemoteEndpoint& endpoint, const GenerationRequest& request) {
  if (running_) cancel();
  endpoint_ = endpoint;
  request_ = request;
  recorder_.clear();
  result_ = RemoteResult{};
  running_ = true;
  retries_used_ = 0;
  content_seen_ = false;
  retried_without_stream_options_ = false;
  emitEvent(StreamEvent::started(monotonicNowNs()));

  const NormalizedBaseUrl norm = normalizeBaseUrl(endpoint.base_url);
  if (!norm.ok()) {
    fail(FailureKind::Connection, 0, tr("Invalid base URL: ") + norm.error + ".");
    return;
  }
  root_ = norm.root;
  for (const QString& note : norm.notes) result_.warnings << tr("base URL: ") + note;
  key_ = resolveApiKey(endpoint.api_key, endpoint.api_key_env);
  if (key_.had_whitespace)
    result_.warnings << tr("the API key had white space around it; it was trimmed before sending");
  send_stream_options_ =
      request.params.stream && !ProviderMemory::rejectsStreamOptions(memoryKey());
  total_timer_.start(endpoint.timeouts.total_ms);
  startAttempt();
}

void OpenAiClient::startAttempt() {
  if (!running_) return;
  ++result_.attempts;
  parser_ = SseParser{};
  error_body_.clear();
  whole_body_.clear();
  done_seen_ = false;
  body_is_sse_ = request_.params.stream;
  finish_reason_.clear();

  QNetworkRequest req(chatCompletionsUrl(root_));
  result_.final_url = req.url().toString();
  req.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
  req.setRawHeader("Accept", request_.params.stream ? "text/event-stream" : "application/json");
  if (key_.state == KeyState::Present) req.setRawHeader("Authorization", "Bearer " + key_.key);
  req.setAttribute(QNetworkRequest::CacheLoadControlAttribute, QNetworkRequest::AlwaysNetwork);
  result_.stream_options_sent = send_stream_options_;

  reply_ = nam_->post(req, buildChatRequestBody(request_, send_stream_options_));
  phase_ = Phase::Connecting;
  timer_cause_ = TimerCause::Connect;
  phase_timer_.start(endpoint_.timeouts.connect_ms);
  connect(reply_, &QNetworkReply::requestSent, this, [this] {
    if (phase_ != Phase::Connecting) return;
    phase_ = Phase::AwaitingFirstByte;
    timer_cause_ = TimerCause::FirstByte;
    phase_timer_.start(endpoint_.timeouts.first_byte_ms);
  });
  connect(reply_, &QNetworkReply::metaDataChanged, this, &OpenAiClient::onMetaData);
  connect(reply_, &QNetworkReply::readyRead, this, &OpenAiClient::onReadyRead);
  connect(reply_, &QNetworkReply::finished, this, &OpenAiClient::onReplyFinished);
}

void OpenAiClient::onMetaData() {
  if (!reply_) return;
  const int status = reply_->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
  if (phase_ == Phase::Connecting) {  // headers prove the request went out
    phase_ = Phase::AwaitingFirstByte;
    timer_cause_ = TimerCause::FirstByte;
    phase_timer_.start(endpoint_.timeouts.first_byte_ms);
  }
  if (status >= 200 && status < 300) {
    if (retried_without_stream_options_ && !send_stream_options_)
      ProviderMemory::setRejectsStreamOptions(memoryKey(), true);
    const QString type = reply_->header(QNetworkRequest::ContentTypeHeader).toString();
    if (request_.params.stream && !type.isEmpty() && !type.contains("event-stream")) {
      body_is_sse_ = false;
      result_.warnings << QString(tr("the server answered a streaming request with one %1 body; "
                                     "TTFT then equals E2E"))
                              .arg(type);
    }
  }
}

void OpenAiClient::onReadyRead() {
  if (!reply_) return;
  const int64_t t = monotonicNowNs();  // where the bytes are parsed, not where they are painted
  const int status = reply_->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
  const QByteArray bytes = reply_->readAll();
  if (status >= 300) {
    if (error_body_.size() < kMaxErrorBody) error_body_ += bytes.left(kMaxErrorBody);
    return;
  }
  if (!body_is_sse_) {
    whole_body_ += bytes;
    return;
  }
  std::vector<SseEvent> events;
  parser_.feed(std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())), events);
  processSse(events, t);
  if (running_ && content_seen_) {  // after the first token, silence means a stall
    phase_ = Phase::Streaming;
    timer_cause_ = TimerCause::Idle;
    phase_timer_.start(endpoint_.timeouts.idle_ms);
  }
}

void OpenAiClient::processSse(const std::vector<SseEvent>& events, int64_t t_ns) {
  for (const SseEvent& e : events) {
    if (!running_) return;
    if (e.data == "[DONE]") {
      done_seen_ = true;
      continue;
    }
    const ChatBody c = parseChatChunk(e.data);
    if (!c.valid_json) {
      if (result_.malformed_lines++ == 0)
        result_.warnings << tr("skipped a data line that is not valid JSON (%1): %2")
                                .arg(c.parse_error, QString::fromStdString(e.data.substr(0, 120)));
      continue;
    }
    if (!c.api_error.isEmpty()) {
      fail(FailureKind::Server, 200,
           tr("The server reported an error in the middle of the stream: ") + c.api_error +
               tr(". The partial answer is kept."));
      return;
    }
    if (!c.content.empty()) {
      content_seen_ = true;
      emitEvent(StreamEvent::chunk(t_ns, c.content));
    }
    if (!c.finish_reason.empty()) finish_reason_ = c.finish_reason;
    if (c.prompt_tokens || c.completion_tokens) emitEvent(usageEvent(t_ns, c));
  }
}

void OpenAiClient::onReplyFinished() {
  QNetworkReply* reply = reply_;
  if (!reply || sender() != reply) return;
  onReadyRead();  // bytes that arrived together with the end
  if (!running_) return;
  const int64_t t = monotonicNowNs();
  const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
  const auto error = reply->error();
  const QString error_string = reply->errorString();
  const QByteArray retry_after = reply->rawHeader("Retry-After");
  dropReply();

  if (status >= 300) {
    if (status == 429) {
      const int wait = retryAfterMs(retry_after);
      if (retryLater(wait >= 0 ? std::min(wait, kMaxRetryAfterMs) : backoffMs(retries_used_),
                     tr("HTTP 429")))
        return;
      QString msg = tr("Rate limited (HTTP 429) at %1 after %2 attempt(s): %3.")
                        .arg(urlForMessages())
                        .arg(result_.attempts)
                        .arg(apiErrorMessage(error_body_));
      if (wait >= 0) msg += tr(" The server asks to wait %1 before retrying.").arg(seconds(wait));
      fail(FailureKind::RateLimited, status, msg);
      return;
    }
    handleHttpError(status, error_body_);
    return;
  }
  if (error != QNetworkReply::NoError) {
    handleNetworkError(error, error_string);
    return;
  }
  finishStream(t);
}

void OpenAiClient::handleHttpError(int status, const QByteArray& body) {
  const QString server = apiErrorMessage(body);
  const QString url = urlForMessages();
  if (status == 400 && send_stream_options_ && !retried_without_stream_options_ && !content_seen_) {
    retried_without_stream_options_ = true;
    send_stream_options_ = false;
    result_.stream_options_rejected = true;
    result_.warnings << tr(
        "the server rejected stream_options (HTTP 400); retried without it and "
        "will not send it to this provider again");
    retry_timer_.start(0);
    return;
  }
  if ((status == 404 || status == 400 || status == 422) && bodySaysModelNotFound(body)) {
    fetchModelsThenFail(server);
    return;
  }
  if (status == 401 || status == 403) {
    fail(FailureKind::Auth, status,
         tr("Authentication failed (HTTP %1) at %2: %3. %4")
             .arg(status)
             .arg(url, server, authFixHint(key_)));
    return;
  }
  if (status == 404) {
    fail(FailureKind::NotFound, status,
         tr("Not found (HTTP 404) at %1. The base URL must be the part before "
            "/v1/chat/completions (for example https://taotoken.net/api); it is now '%2'. "
            "Check for a missing path prefix or a duplicated /v1.%3")
             .arg(url, root_, server.isEmpty() ? QString() : tr(" Server said: ") + server));
    return;
  }
  if (status >= 500) {
    if (retryLater(backoffMs(retries_used_), tr("HTTP %1").arg(status))) return;
    fail(FailureKind::Server, status,
         tr("Server error (HTTP %1) at %2 after %3 attempt(s): %4. This is the "
            "provider's side; try again later or another provider.")
             .arg(status)
             .arg(url)
             .arg(result_.attempts)
             .arg(server));
    return;
  }
  fail(FailureKind::BadRequest, status,
       tr("The server refused the request (HTTP %1) at %2: %3").arg(status).arg(url, server));
}

void OpenAiClient::handleNetworkError(int qt_error, const QString& error_string) {
  const QUrl root(root_);
  const QString host =
      QString("%1:%2").arg(root.host()).arg(root.port(root.scheme() == "https" ? 443 : 80));
  if (content_seen_) {
    fail(FailureKind::Reset, 200,
         tr("The connection to %1 was lost in the middle of the answer (%2). The partial "
            "answer is kept; it was not replayed.")
             .arg(host, error_string));
    return;
  }
  QString message;
  switch (qt_error) {
    case QNetworkReply::ConnectionRefusedError:
      message = QString(tr("Could not connect to %1: connection refused. Is the server running, "
                           "and is the host and port in the base URL (%2) right?"))
                    .arg(host, root_);
      break;
    case QNetworkReply::HostNotFoundError:
      message = tr("The host '%1' was not found (DNS lookup failed). Check the base URL (%2).")
                    .arg(root.host(), root_);
      break;
    case QNetworkReply::RemoteHostClosedError:
      message = tr("%1 closed the connection before answering %2.").arg(host, urlForMessages());
      break;
    case QNetworkReply::SslHandshakeFailedError:
      message =
          QString(tr("The TLS handshake with %1 failed: %2. Is the scheme (http/https) in the "
                     "base URL right?"))
              .arg(host, error_string);
      break;
    default:
      message = tr("Network error talking to %1: %2.").arg(urlForMessages(), error_string);
  }
  if (retryLater(backoffMs(retries_used_), error_string)) return;
  if (result_.attempts > 1) message += tr(" (%1 attempts)").arg(result_.attempts);
  fail(FailureKind::Connection, 0, message);
}

void OpenAiClient::finishStream(int64_t t_ns) {
  if (!body_is_sse_) {
    const ChatBody c = parseChatCompletion(
        std::string_view(whole_body_.constData(), static_cast<size_t>(whole_body_.size())));
    if (!c.valid_json) {
      fail(FailureKind::Protocol, 200,
           tr("The response from %1 is not an OpenAI chat completion (%2): %3")
               .arg(urlForMessages(), c.parse_error,
                    QString::fromUtf8(whole_body_.left(200)).simplified()));
      return;
    }
    if (!c.api_error.isEmpty()) {
      fail(FailureKind::Server, 200, tr("The server reported an error: ") + c.api_error);
      return;
    }
    if (!c.content.empty()) emitEvent(StreamEvent::chunk(t_ns, c.content));
    if (c.prompt_tokens || c.completion_tokens) emitEvent(usageEvent(t_ns, c));
    finishOk(c.finish_reason.empty() ? "unknown" : c.finish_reason);
    return;
  }
  std::vector<SseEvent> events;
  parser_.finish(events);
  processSse(events, t_ns);
  if (!running_) return;
  if (!done_seen_)
    result_.warnings << (finish_reason_.empty()
                             ? tr("the stream ended without `data: [DONE]` and without a "
                                  "finish_reason: the answer may be cut short")
                             : tr("the stream ended without `data: [DONE]`"));
  finishOk(finish_reason_.empty() ? "unknown" : finish_reason_);
}

bool OpenAiClient::retryLater(int delay_ms, const QString& why) {
  if (content_seen_ || retries_used_ >= endpoint_.max_retries) return false;
  if (total_timer_.remainingTime() >= 0 && delay_ms >= total_timer_.remainingTime()) return false;
  ++retries_used_;
  result_.warnings << tr("attempt %1 failed (%2); retried after %3")
                          .arg(result_.attempts)
                          .arg(why, seconds(delay_ms));
  retry_timer_.start(delay_ms);
  return true;
}

void OpenAiClient::fetchModelsThenFail(const QString& server_message) {
  models_ = new ModelListFetcher(this, nam_);
  connect(models_, &ModelListFetcher::finished, this,
          [this, server_message](const ModelList& list) {
            QString message =
                tr("The model '%1' is not available at %2 (server: %3).")
                    .arg(QString::fromStdString(request_.model), urlForMessages(), server_message);
            result_.available_models = list.ids;
            if (!list.ids.isEmpty())
              message += tr(" The endpoint offers: ") + list.ids.join(", ") + ".";
            else
              message += tr(" The available ids are unknown: %1").arg(list.error);
            fail(FailureKind::ModelNotFound, 404, message);
          });
  models_->start(endpointWithKey());
}

void OpenAiClient::onTimer(TimerCause cause) {
  if (!running_) return;
  dropReply();
  retry_timer_.stop();
  const QString url = urlForMessages();
  switch (cause) {
    case TimerCause::Total:
      fail(
          FailureKind::Timeout, 0,
          tr("No complete answer from %1 within the total limit of %2. %3")
              .arg(url, seconds(endpoint_.timeouts.total_ms),
                   content_seen_ ? tr("The partial answer is kept.") : tr("Nothing had arrived.")));
      return;
    case TimerCause::Connect:
      if (retryLater(backoffMs(retries_used_), tr("connect timeout"))) return;
      fail(FailureKind::Timeout, 0,
           tr("Could not send the request to %1 within %2 (connect timeout). Is the host "
              "reachable?")
               .arg(url, seconds(endpoint_.timeouts.connect_ms)));
      return;
    case TimerCause::FirstByte:
      if (retryLater(backoffMs(retries_used_), tr("first-byte timeout"))) return;
      fail(FailureKind::Timeout, 0,
           tr("%1 accepted the request but sent no token within %2 (first-byte timeout).")
               .arg(url, seconds(endpoint_.timeouts.first_byte_ms)));
      return;
    case TimerCause::Idle:
      fail(FailureKind::Stall, 200,
           tr("The stream from %1 stalled: no data for %2 after %3 chunk(s). The partial "
              "answer is kept.")
               .arg(url, seconds(endpoint_.timeouts.idle_ms))
               .arg(std::count_if(
                   recorder_.run().events.begin(), recorder_.run().events.end(),
                   [](const StreamEvent& e) { return e.kind == EventKind::TokenChunk; })));
      return;
    case TimerCause::None:
      return;
  }
}

void OpenAiClient::cancel() {
  if (!running_) return;
  result_.cancelled = true;
  finishOk("cancelled");
}

void OpenAiClient::fail(FailureKind kind, int http_status, const QString& message) {
  if (!running_) return;
  terminate(StreamEvent::failed(monotonicNowNs(), kind, http_status, message.toStdString(),
                                recorder_.run().contentText()));
}

void OpenAiClient::finishOk(const std::string& reason) {
  if (!running_) return;
  terminate(StreamEvent::finished(monotonicNowNs(), reason));
}

void OpenAiClient::terminate(StreamEvent end) {
  // Not running from here on, so a handler of the terminal event cannot re-enter.
  running_ = false;
  dropReply();
  total_timer_.stop();
  retry_timer_.stop();
  emitEvent(std::move(end));
  result_.run = recorder_.run();
  emit runFinished();
}

void OpenAiClient::emitEvent(StreamEvent event) {
  recorder_.record(event);
  emit eventReady(event);
}

RemoteEndpoint OpenAiClient::endpointWithKey() const {
  RemoteEndpoint e = endpoint_;
  if (key_.state == KeyState::Present) e.api_key = QString::fromUtf8(key_.key);
  return e;
}

void OpenAiClient::dropReply() {
  phase_timer_.stop();
  if (models_) {  // abandon a model-list request still in flight
    models_->disconnect(this);
    models_->deleteLater();
    models_ = nullptr;
  }
  if (!reply_) return;
  QNetworkReply* reply = reply_;
  reply_ = nullptr;
  disconnect(reply, nullptr, this, nullptr);
  if (reply->isRunning()) reply->abort();
  reply->deleteLater();
}

QString OpenAiClient::urlForMessages() const {
  return result_.final_url;
}

QString OpenAiClient::memoryKey() const {
  return endpoint_.provider_name + "|" + root_;
}

}  // namespace ts
