#include "inference/remote/chat_json.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace ts {
namespace {

ChatBody parseBody(std::string_view json, const char* content_parent) {
  ChatBody out;
  QJsonParseError err{};
  const auto doc = QJsonDocument::fromJson(
      QByteArray::fromRawData(json.data(), static_cast<qsizetype>(json.size())), &err);
  if (err.error != QJsonParseError::NoError || !doc.isObject()) {
    out.parse_error = err.error != QJsonParseError::NoError
                          ? QString("%1 at offset %2").arg(err.errorString()).arg(err.offset)
                          : QString("expected a JSON object");
    return out;
  }
  out.valid_json = true;
  const QJsonObject obj = doc.object();
  if (obj.contains("error")) {
    const auto e = obj.value("error");
    out.api_error = e.isObject() ? e.toObject().value("message").toString() : e.toString();
    if (out.api_error.isEmpty())
      out.api_error = QString::fromUtf8(doc.toJson(QJsonDocument::Compact));
    return out;
  }
  const QJsonArray choices = obj.value("choices").toArray();
  if (!choices.isEmpty()) {
    const QJsonObject choice = choices.first().toObject();
    out.content = choice.value(content_parent).toObject().value("content").toString().toStdString();
    out.finish_reason = choice.value("finish_reason").toString().toStdString();
  }
  const QJsonValue usage = obj.value("usage");
  if (usage.isObject()) {
    const QJsonObject u = usage.toObject();
    if (u.contains("prompt_tokens")) out.prompt_tokens = u.value("prompt_tokens").toInteger();
    const QJsonObject details = u.value("prompt_tokens_details").toObject();
    if (details.value("cached_tokens").isDouble())
      out.cached_tokens = details.value("cached_tokens").toInteger();
    if (u.contains("completion_tokens"))
      out.completion_tokens = u.value("completion_tokens").toInteger();
  }
  return out;
}

}  // namespace

QByteArray buildChatRequestBody(const GenerationRequest& request, bool include_stream_options) {
  QJsonArray messages;
  for (const auto& m : request.messages)
    messages.append(QJsonObject{{"role", QString::fromStdString(m.role)},
                                {"content", QString::fromStdString(m.content)}});
  QJsonObject body{
      {"model", QString::fromStdString(request.model)}, {"messages", messages},
      {"temperature", request.params.temperature},      {"top_p", request.params.top_p},
      {"max_tokens", request.params.max_tokens},        {"stream", request.params.stream}};
  if (request.params.seed) body.insert("seed", static_cast<qint64>(*request.params.seed));
  // Extensions that vLLM, SGLang, TGI and llama.cpp's server accept: only when set, since
  // OpenAI's own API refuses fields it does not know.
  if (request.params.top_k > 0) body.insert("top_k", request.params.top_k);
  if (request.params.repetition_penalty != 1.0)
    body.insert("repetition_penalty", request.params.repetition_penalty);
  if (request.params.stream && include_stream_options)
    body.insert("stream_options", QJsonObject{{"include_usage", true}});
  return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

ChatBody parseChatChunk(std::string_view json) {
  return parseBody(json, "delta");
}
ChatBody parseChatCompletion(std::string_view json) {
  return parseBody(json, "message");
}

QString apiErrorMessage(const QByteArray& body) {
  const auto doc = QJsonDocument::fromJson(body);
  if (doc.isObject()) {
    const QJsonObject obj = doc.object();
    const QJsonValue e = obj.value("error");
    if (e.isObject() && e.toObject().value("message").isString())
      return e.toObject().value("message").toString();
    if (e.isString()) return e.toString();
    if (obj.value("message").isString()) return obj.value("message").toString();
    if (obj.value("detail").isString()) return obj.value("detail").toString();
  }
  QString text = QString::fromUtf8(body).simplified();
  if (text.size() > 300) text = text.left(300) + "…";
  return text;
}

bool bodySaysModelNotFound(const QByteArray& body) {
  const auto doc = QJsonDocument::fromJson(body);
  if (doc.isObject()) {
    const QJsonValue e = doc.object().value("error");
    if (e.isObject() && e.toObject().value("code").toString() == "model_not_found") return true;
  }
  const QString text = apiErrorMessage(body).toLower();
  return text.contains("model") &&
         (text.contains("not found") || text.contains("does not exist") ||
          text.contains("not exist") || text.contains("unknown model") ||
          text.contains("no such model") || text.contains("not supported"));
}

QStringList parseModelIds(const QByteArray& body) {
  QStringList ids;
  const QJsonArray data = QJsonDocument::fromJson(body).object().value("data").toArray();
  for (const auto& item : data) {
    const QString id = item.toObject().value("id").toString();
    if (!id.isEmpty()) ids << id;
  }
  return ids;
}

}  // namespace ts
