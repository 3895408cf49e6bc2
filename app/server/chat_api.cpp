#include "app/server/chat_api.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QStringList>
#include <cmath>

namespace ts::server {
namespace {

std::string compact(const QJsonObject& o) {
  return QJsonDocument(o).toJson(QJsonDocument::Compact).toStdString();
}

// How a JSON value reads in a message: a string quoted, a number as written, else its type.
std::string found(const QJsonValue& v) {
  switch (v.type()) {
    case QJsonValue::String:
      return "\"" + v.toString().left(40).toStdString() + "\"";
    case QJsonValue::Double:
      return QString::number(v.toDouble()).toStdString();
    case QJsonValue::Bool:
      return v.toBool() ? "true" : "false";
    case QJsonValue::Null:
      return "null";
    case QJsonValue::Array:
      return "an array";
    case QJsonValue::Object:
      return "an object";
    default:
      return "nothing";
  }
}

ApiError badField(const std::string& field, const std::string& expected, const QJsonValue& v) {
  return {400, field + ": expected " + expected + ", found " + found(v), "invalid_request_error",
          field, ""};
}

// A number within [lo, hi] (lo excluded when open_low).
std::optional<ApiError> number(const QJsonObject& o, const char* field, double lo, double hi,
                               bool open_low, float& out) {
  if (!o.contains(field) || o.value(field).isNull()) return std::nullopt;
  const QJsonValue v = o.value(field);
  const double x = v.toDouble(NAN);
  if (!v.isDouble() || x < lo || x > hi || (open_low && x == lo))
    return badField(field,
                    std::string("a number from ") + QString::number(lo).toStdString() +
                        (open_low ? " (excluded)" : "") + " to " +
                        QString::number(hi).toStdString(),
                    v);
  out = static_cast<float>(x);
  return std::nullopt;
}

std::optional<ApiError> integer(const QJsonObject& o, const char* field, double lo, double hi,
                                std::optional<long long>& out) {
  if (!o.contains(field) || o.value(field).isNull()) return std::nullopt;
  const QJsonValue v = o.value(field);
  const double x = v.toDouble(NAN);
  if (!v.isDouble() || x != std::floor(x) || x < lo || x > hi)
    return badField(field,
                    "a whole number from " + QString::number(lo, 'f', 0).toStdString() + " to " +
                        QString::number(hi, 'f', 0).toStdString(),
                    v);
  out = static_cast<long long>(x);
  return std::nullopt;
}

std::optional<ApiError> boolean(const QJsonObject& o, const char* field, bool& out) {
  if (!o.contains(field) || o.value(field).isNull()) return std::nullopt;
  if (!o.value(field).isBool()) return badField(field, "true or false", o.value(field));
  out = o.value(field).toBool();
  return std::nullopt;
}

// content: a string, or an array of {"type": "text", "text": ...} parts.
std::optional<std::string> messageText(const QJsonValue& content) {
  if (content.isString()) return content.toString().toStdString();
  if (!content.isArray()) return std::nullopt;
  std::string text;
  for (const QJsonValue& part : content.toArray()) {
    const QJsonObject p = part.toObject();
    if (p.value("type").toString() != "text" || !p.value("text").isString()) return std::nullopt;
    text += p.value("text").toString().toStdString();
  }
  return text;
}

std::optional<ApiError> messages(const QJsonObject& o, std::vector<engine::ChatMessage>& out) {
  if (!o.contains("messages"))
    return ApiError{400, "missing required field 'messages' (an array of {role, content})",
                    "invalid_request_error", "messages", ""};
  const QJsonValue v = o.value("messages");
  if (!v.isArray() || v.toArray().isEmpty())
    return badField("messages", "a non-empty array of {role, content} objects", v);
  int i = 0;
  for (const QJsonValue& item : v.toArray()) {
    const std::string field = "messages[" + std::to_string(i++) + "]";
    if (!item.isObject()) return badField(field, "an object {role, content}", item);
    const QJsonObject m = item.toObject();
    const QString role = m.value("role").toString();
    if (role != "system" && role != "user" && role != "assistant")
      return badField(field + ".role", "\"system\", \"user\" or \"assistant\"", m.value("role"));
    const auto text = messageText(m.value("content"));
    if (!text)
      return badField(field + ".content", "a string or an array of text parts", m.value("content"));
    out.push_back({role.toStdString(), *text});
  }
  return std::nullopt;
}

}  // namespace

std::string ApiError::body() const {
  return compact(QJsonObject{
      {"error",
       QJsonObject{{"message", QString::fromStdString(message)},
                   {"type", QString::fromStdString(type)},
                   {"param", param.empty() ? QJsonValue() : QString::fromStdString(param)},
                   {"code", code.empty() ? QJsonValue() : QString::fromStdString(code)}}}});
}

engine::SamplingConfig requestDefaults(const engine::GenerationDefaults& suggested) {
  engine::SamplingConfig s;
  s.temperature = static_cast<float>(suggested.temperature.value_or(1.0));  // OpenAI's: 1
  s.top_p = static_cast<float>(suggested.top_p.value_or(1.0));
  s.top_k = suggested.top_k.value_or(0);
  s.repetition_penalty = static_cast<float>(suggested.repetition_penalty.value_or(1.0));
  return s;
}

std::string describeSuggestions(const engine::GenerationDefaults& s, int max_tokens) {
  QStringList parts;
  if (s.temperature) parts << QString("temperature %1").arg(*s.temperature);
  if (s.top_k) parts << QString("top_k %1").arg(*s.top_k);
  if (s.top_p) parts << QString("top_p %1").arg(*s.top_p);
  if (s.repetition_penalty) parts << QString("repetition_penalty %1").arg(*s.repetition_penalty);
  parts << QString("max_tokens %1").arg(max_tokens);
  return parts.join(", ").toStdString();
}

std::variant<ChatCompletionRequest, ApiError> parseChatCompletionRequest(
    const std::string& body, const engine::SamplingConfig& defaults) {
  QJsonParseError error;
  const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(body), &error);
  if (error.error != QJsonParseError::NoError)
    return ApiError{400,
                    "the body is not valid JSON: " + error.errorString().toStdString() +
                        " at offset " + std::to_string(error.offset),
                    "invalid_request_error", "", ""};
  if (!doc.isObject())
    return ApiError{400, "expected a JSON object with model and messages, found a JSON array",
                    "invalid_request_error", "", ""};
  const QJsonObject o = doc.object();
  ChatCompletionRequest r;
  r.sampling = defaults;
  if (o.contains("model")) {
    if (!o.value("model").isString()) return badField("model", "a string", o.value("model"));
    r.model = o.value("model").toString().toStdString();
  }
  if (auto e = messages(o, r.messages)) return *e;
  std::optional<long long> max_tokens, max_completion, top_k, seed, n;
  if (auto e = boolean(o, "stream", r.stream)) return *e;
  if (auto e = number(o, "temperature", 0, 2, false, r.sampling.temperature)) return *e;
  if (auto e = number(o, "top_p", 0, 1, true, r.sampling.top_p)) return *e;
  if (auto e = number(o, "repetition_penalty", 0, 100, true, r.sampling.repetition_penalty))
    return *e;
  if (auto e = integer(o, "max_tokens", 1, 1 << 20, max_tokens)) return *e;
  if (auto e = integer(o, "max_completion_tokens", 1, 1 << 20, max_completion)) return *e;
  if (auto e = integer(o, "top_k", 0, 1 << 22, top_k)) return *e;
  if (auto e = integer(o, "seed", -9.0e15, 9.0e15, seed)) return *e;
  if (auto e = integer(o, "n", 1, 1, n)) return *e;
  if (o.contains("stop") && !o.value("stop").isNull())
    return ApiError{400, "stop: stop sequences are not supported by the local engine",
                    "invalid_request_error", "stop", ""};
  if (o.contains("stream_options") && !o.value("stream_options").isNull()) {
    if (!o.value("stream_options").isObject())
      return badField("stream_options", "an object {include_usage}", o.value("stream_options"));
    bool include = false;
    if (auto e = boolean(o.value("stream_options").toObject(), "include_usage", include))
      return ApiError{400, "stream_options." + e->message, e->type, "stream_options", ""};
    r.include_usage = include;
  }
  if (max_completion) r.max_tokens = static_cast<int>(*max_completion);
  if (max_tokens) r.max_tokens = static_cast<int>(*max_tokens);
  if (top_k) r.sampling.top_k = static_cast<int>(*top_k);
  // No seed: each request samples anew, as an OpenAI endpoint does (a fixed default would
  // give every unseeded request at a temperature the same answer).
  r.sampling.seed = seed ? static_cast<uint64_t>(*seed) : QRandomGenerator::global()->generate64();
  r.seed_given = seed.has_value();
  return r;
}

std::string chunkJson(const CompletionIds& ids, const std::string& content, bool first,
                      const std::string& finish_reason) {
  QJsonObject delta;
  if (first) delta.insert("role", "assistant");
  if (!content.empty() || first) delta.insert("content", QString::fromStdString(content));
  const QJsonObject choice{
      {"index", 0},
      {"delta", delta},
      {"finish_reason",
       finish_reason.empty() ? QJsonValue() : QString::fromStdString(finish_reason)}};
  return compact(QJsonObject{{"id", QString::fromStdString(ids.id)},
                             {"object", "chat.completion.chunk"},
                             {"created", ids.created},
                             {"model", QString::fromStdString(ids.model)},
                             {"choices", QJsonArray{choice}}});
}

static QJsonObject usageObject(const Usage& u) {
  return {{"prompt_tokens", u.prompt_tokens},
          {"completion_tokens", u.completion_tokens},
          {"total_tokens", u.prompt_tokens + u.completion_tokens},
          {"prompt_tokens_details", QJsonObject{{"cached_tokens", u.cached_tokens}}}};
}

std::string usageChunkJson(const CompletionIds& ids, const Usage& usage) {
  return compact(QJsonObject{{"id", QString::fromStdString(ids.id)},
                             {"object", "chat.completion.chunk"},
                             {"created", ids.created},
                             {"model", QString::fromStdString(ids.model)},
                             {"choices", QJsonArray{}},
                             {"usage", usageObject(usage)}});
}

std::string completionJson(const CompletionIds& ids, const std::string& content,
                           const std::string& finish_reason, const Usage& usage) {
  const QJsonObject choice{
      {"index", 0},
      {"message", QJsonObject{{"role", "assistant"}, {"content", QString::fromStdString(content)}}},
      {"finish_reason", QString::fromStdString(finish_reason)}};
  return compact(QJsonObject{{"id", QString::fromStdString(ids.id)},
                             {"object", "chat.completion"},
                             {"created", ids.created},
                             {"model", QString::fromStdString(ids.model)},
                             {"choices", QJsonArray{choice}},
                             {"usage", usageObject(usage)}});
}

std::string modelListJson(const std::string& model, long long created) {
  const QJsonObject entry{{"id", QString::fromStdString(model)},
                          {"object", "model"},
                          {"created", created},
                          {"owned_by", "tokenscope"}};
  return compact(QJsonObject{{"object", "list"}, {"data", QJsonArray{entry}}});
}

}  // namespace ts::server
