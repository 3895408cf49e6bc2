#include "app/store/run_json.h"

#include <QJsonArray>

namespace ts {
namespace {

QJsonValue msOrNull(const std::optional<int64_t>& ns) {
  return ns ? QJsonValue(static_cast<double>(*ns) / 1e6) : QJsonValue();
}
QJsonValue msOrNull(const std::optional<double>& ns) {
  return ns ? QJsonValue(*ns / 1e6) : QJsonValue();
}
QJsonValue orNull(const std::optional<double>& v) {
  return v ? QJsonValue(*v) : QJsonValue();
}

const char* eventKindName(EventKind kind) {
  switch (kind) {
    case EventKind::Started:
      return "started";
    case EventKind::TokenChunk:
      return "token-chunk";
    case EventKind::Usage:
      return "usage";
    case EventKind::Finished:
      return "finished";
    case EventKind::Failed:
      return "failed";
  }
  return "unknown";
}

}  // namespace

QJsonObject runResultJson(const RecordedRun& run, const RunMetrics& m) {
  QJsonArray itl, itl_per_token;
  for (int64_t gap : m.itl_ns) itl.append(static_cast<double>(gap) / 1e6);
  for (double gap : m.itl_per_token_ns) itl_per_token.append(gap / 1e6);
  QJsonObject out{
      {"ttft_ms", msOrNull(m.ttft_ns)},
      {"e2e_ms", msOrNull(m.e2e_ns)},
      {"tpot_ms", msOrNull(m.tpot_ns)},
      {"output_tokens", static_cast<qint64>(m.output_tokens)},
      {"output_tokens_source", tokenCountSourceName(m.output_tokens_source)},
      {"itl_ms", itl},
      {"itl_per_token_ms", itl_per_token},
      {"content_chunks", static_cast<qint64>(m.content_chunks)},
      {"decode_tok_s", orNull(m.decode_tok_s)},
      {"overall_tok_s", orNull(m.overall_tok_s)},
      {"prompt_tokens",
       m.prompt_tokens ? QJsonValue(static_cast<qint64>(*m.prompt_tokens)) : QJsonValue()},
      {"prefill_ms", msOrNull(m.prefill_ns)},
      {"cached_tokens",
       m.cached_tokens ? QJsonValue(static_cast<qint64>(*m.cached_tokens)) : QJsonValue()},
      {"acceptance_rate", orNull(m.acceptance_rate)},
      {"text", QString::fromStdString(run.contentText())},
  };
  const StreamEvent* end = run.terminal();
  out.insert("finish_reason", end && end->kind == EventKind::Finished
                                  ? QJsonValue(QString::fromStdString(end->text))
                                  : QJsonValue());
  if (end && end->kind == EventKind::Failed)
    out.insert("error", QJsonObject{{"kind", failureKindName(end->failure)},
                                    {"http_status", end->http_status},
                                    {"message", QString::fromStdString(end->text)}});
  else
    out.insert("error", QJsonValue());
  return out;
}

QJsonObject eventJson(const StreamEvent& e, int64_t start_ns) {
  QJsonObject o{{"kind", eventKindName(e.kind)}, {"t_ns", static_cast<qint64>(e.t_ns - start_ns)}};
  {
    switch (e.kind) {
      case EventKind::TokenChunk:
        o.insert("text", QString::fromStdString(e.text));
        if (e.n_tokens > 0) o.insert("n_tokens", e.n_tokens);
        if (e.drafted) o.insert("drafted", true);
        if (e.batch > 0) o.insert("batch", e.batch);
        break;
      case EventKind::Usage:
        o.insert("prompt_tokens", static_cast<qint64>(e.prompt_tokens));
        o.insert("completion_tokens", static_cast<qint64>(e.completion_tokens));
        if (e.prefill_ns >= 0) o.insert("prefill_ns", static_cast<qint64>(e.prefill_ns));
        if (e.cached_tokens >= 0) o.insert("cached_tokens", static_cast<qint64>(e.cached_tokens));
        if (e.drafted_tokens >= 0) {
          o.insert("drafted_tokens", static_cast<qint64>(e.drafted_tokens));
          o.insert("accepted_tokens", static_cast<qint64>(e.accepted_tokens));
          QJsonArray histogram;
          for (int32_t n : e.accepted_histogram) histogram.append(n);
          o.insert("accepted_histogram", histogram);
        }
        break;
      case EventKind::Finished:
        o.insert("reason", QString::fromStdString(e.text));
        break;
      case EventKind::Failed:
        o.insert("failure", failureKindName(e.failure));
        o.insert("http_status", e.http_status);
        o.insert("message", QString::fromStdString(e.text));
        break;
      case EventKind::Started:
        break;
    }
  }
  return o;
}

QJsonArray eventsJson(const RecordedRun& run) {
  QJsonArray events;
  for (const auto& e : run.events) events.append(eventJson(e, run.start_ns));
  return events;
}

QJsonObject requestJson(const GenerationRequest& request) {
  QJsonArray messages;
  for (const auto& m : request.messages)
    messages.append(QJsonObject{{"role", QString::fromStdString(m.role)},
                                {"content", QString::fromStdString(m.content)}});
  QJsonObject params{{"temperature", request.params.temperature},
                     {"top_p", request.params.top_p},
                     {"max_tokens", request.params.max_tokens},
                     {"stream", request.params.stream}};
  if (request.params.seed) params.insert("seed", static_cast<qint64>(*request.params.seed));
  if (request.params.top_k > 0) params.insert("top_k", request.params.top_k);
  if (request.params.repetition_penalty != 1.0)
    params.insert("repetition_penalty", request.params.repetition_penalty);
  if (!request.params.draft.empty()) {
    params.insert("draft", QString::fromStdString(request.params.draft));
    params.insert("draft_k", request.params.draft_k);
    params.insert("draft_auto", request.params.draft_auto);
  }
  return QJsonObject{{"provider", QString::fromStdString(request.provider)},
                     {"model", QString::fromStdString(request.model)},
                     {"messages", messages},
                     {"parameters", params}};
}

std::optional<StreamEvent> eventFromJson(const QJsonObject& o, int64_t start_ns) {
  const QString kind = o.value("kind").toString();
  if (!o.value("t_ns").isDouble()) return std::nullopt;
  const int64_t t = start_ns + static_cast<int64_t>(o.value("t_ns").toDouble());
  const auto text = [&](const char* key) { return o.value(key).toString().toStdString(); };
  const auto integer = [&](const char* key, int64_t fallback) {
    return o.value(key).isDouble() ? static_cast<int64_t>(o.value(key).toDouble()) : fallback;
  };
  if (kind == "started") return StreamEvent::started(t);
  if (kind == "token-chunk") {
    StreamEvent e =
        StreamEvent::chunk(t, text("text"), static_cast<int32_t>(integer("n_tokens", 0)));
    e.drafted = o.value("drafted").toBool();
    e.batch = static_cast<int32_t>(integer("batch", 0));
    return e;
  }
  if (kind == "usage") {
    StreamEvent e =
        StreamEvent::usage(t, integer("prompt_tokens", -1), integer("completion_tokens", -1));
    e.prefill_ns = integer("prefill_ns", -1);
    e.cached_tokens = integer("cached_tokens", -1);
    e.drafted_tokens = integer("drafted_tokens", -1);
    e.accepted_tokens = integer("accepted_tokens", -1);
    for (const QJsonValue& n : o.value("accepted_histogram").toArray())
      e.accepted_histogram.push_back(n.toInt());
    return e;
  }
  if (kind == "finished") return StreamEvent::finished(t, text("reason"));
  if (kind == "failed") {
    FailureKind failure = FailureKind::Protocol;
    for (int k = 0; k <= static_cast<int>(FailureKind::Device); ++k)
      if (o.value("failure").toString() == failureKindName(static_cast<FailureKind>(k)))
        failure = static_cast<FailureKind>(k);
    return StreamEvent::failed(t, failure, static_cast<int>(integer("http_status", 0)),
                               text("message"), "");
  }
  return std::nullopt;
}

GenerationRequest requestFromJson(const QJsonObject& o) {
  GenerationRequest r;
  r.provider = o.value("provider").toString().toStdString();
  r.model = o.value("model").toString().toStdString();
  for (const QJsonValue& m : o.value("messages").toArray())
    r.messages.push_back({m.toObject().value("role").toString().toStdString(),
                          m.toObject().value("content").toString().toStdString()});
  const QJsonObject p = o.value("parameters").toObject();
  r.params.temperature = p.value("temperature").toDouble(r.params.temperature);
  r.params.top_p = p.value("top_p").toDouble(r.params.top_p);
  r.params.max_tokens = p.value("max_tokens").toInt(r.params.max_tokens);
  r.params.top_k = p.value("top_k").toInt(0);
  r.params.repetition_penalty = p.value("repetition_penalty").toDouble(1.0);
  r.params.stream = p.value("stream").toBool(r.params.stream);
  if (p.value("seed").isDouble()) r.params.seed = static_cast<int64_t>(p.value("seed").toDouble());
  r.params.draft = p.value("draft").toString().toStdString();
  r.params.draft_k = p.value("draft_k").toInt(r.params.draft_k);
  r.params.draft_auto = p.value("draft_auto").toBool(r.params.draft_auto);
  return r;
}

}  // namespace ts
