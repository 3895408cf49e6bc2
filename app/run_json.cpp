#include "app/run_json.h"

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

QJsonArray eventsJson(const RecordedRun& run) {
  QJsonArray events;
  for (const auto& e : run.events) {
    QJsonObject o{{"kind", eventKindName(e.kind)},
                  {"t_ns", static_cast<qint64>(e.t_ns - run.start_ns)}};
    switch (e.kind) {
      case EventKind::TokenChunk:
        o.insert("text", QString::fromStdString(e.text));
        if (e.n_tokens > 0) o.insert("n_tokens", e.n_tokens);
        if (e.drafted) o.insert("drafted", true);
        break;
      case EventKind::Usage:
        o.insert("prompt_tokens", static_cast<qint64>(e.prompt_tokens));
        o.insert("completion_tokens", static_cast<qint64>(e.completion_tokens));
        if (e.prefill_ns >= 0) o.insert("prefill_ns", static_cast<qint64>(e.prefill_ns));
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
    events.append(o);
  }
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
  return QJsonObject{{"provider", QString::fromStdString(request.provider)},
                     {"model", QString::fromStdString(request.model)},
                     {"messages", messages},
                     {"parameters", params}};
}

}  // namespace ts
