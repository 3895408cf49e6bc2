#include "app/config/config_schema.h"

#include <QCoreApplication>
#include <cmath>

namespace ts::config {

const std::vector<FieldSpec>& fields() {
  static const std::vector<FieldSpec> table = {
      {"provider", "provider", "name", "TOKENSCOPE_PROVIDER", FieldType::String, 0, 0,
       QString("taotoken"), "provider name (a preset or one of your providers)"},
      {"base_url", "provider", "base_url", "TOKENSCOPE_BASE_URL", FieldType::String, 0, 0,
       QString("https://taotoken.net/api"), "endpoint root; /v1/chat/completions is appended"},
      {"api_key_env", "provider", "api_key_env", "TOKENSCOPE_API_KEY_ENV", FieldType::String, 0, 0,
       QString("TAOTOKEN_API_KEY"), "environment variable that holds the API key"},
      {"default_model", "model", "default", "TOKENSCOPE_MODEL", FieldType::String, 0, 0,
       QString("baichuan"), "model id sent with each request"},
      {"timeout_seconds", "model", "timeout_seconds", "TOKENSCOPE_TIMEOUT_SECONDS", FieldType::Int,
       1, 86400, 60, "longest wait for connect, first token, between chunks"},
      {"max_retries", "model", "max_retries", "TOKENSCOPE_MAX_RETRIES", FieldType::Int, 0, 20, 2,
       "retries before the first token"},
      {"inference.temperature", "inference", "temperature", "TOKENSCOPE_TEMPERATURE",
       FieldType::Double, 0, 2, 0.7, "sampling temperature"},
      {"inference.top_p", "inference", "top_p", "TOKENSCOPE_TOP_P", FieldType::Double, 0, 1, 0.9,
       "nucleus sampling mass"},
      {"inference.max_tokens", "inference", "max_tokens", "TOKENSCOPE_MAX_TOKENS", FieldType::Int,
       1, 10'000'000, 512, "most tokens to generate"},
      {"inference.stream", "inference", "stream", "TOKENSCOPE_STREAM", FieldType::Bool, 0, 0, true,
       "stream tokens as they are generated"},
      {"observability.log_ttft", "observability", "log_ttft", "TOKENSCOPE_LOG_TTFT",
       FieldType::Bool, 0, 0, true, "write ttft_ms to the run log"},
      {"observability.log_tpot", "observability", "log_tpot", "TOKENSCOPE_LOG_TPOT",
       FieldType::Bool, 0, 0, true, "write tpot_ms to the run log"},
      {"observability.log_dir", "observability", "log_dir", "TOKENSCOPE_LOG_DIR", FieldType::String,
       0, 0, QString("./logs/infer"), "directory of the JSON-lines run log"},
  };
  return table;
}

const FieldSpec* findField(const QString& key) {
  for (const auto& f : fields())
    if (key == QLatin1String(f.key)) return &f;
  return nullptr;
}

QStringList presetProviderNames() {
  return {"taotoken", "openai-compatible", "tokenscope-local"};
}

QString presetBaseUrl(const QString& provider_name) {
  const QString name = provider_name.toLower();
  if (name == "taotoken") return "https://taotoken.net/api";
  if (name == "tokenscope-local") return "http://127.0.0.1:8080";
  return {};
}

QString expectedText(const FieldSpec& field) {
  switch (field.type) {
    case FieldType::String:
      return QCoreApplication::translate("ts::config", "text");
    case FieldType::Bool:
      return QCoreApplication::translate("ts::config", "true or false");
    case FieldType::Int:
      return QCoreApplication::translate("ts::config", "a whole number from %1 to %2")
          .arg(field.min)
          .arg(field.max, 0, 'f', 0);
    case FieldType::Double:
      return QCoreApplication::translate("ts::config", "a number from %1 to %2")
          .arg(field.min)
          .arg(field.max);
  }
  return {};
}

QString checkValue(const FieldSpec& field, const QVariant& value) {
  const auto complain = [&](const QString& found) {
    return QCoreApplication::translate("ts::config", "%1: expected %2, found %3")
        .arg(field.key, expectedText(field), found);
  };
  switch (field.type) {
    case FieldType::String:
      if (value.typeId() != QMetaType::QString) return complain("a " + QString(value.typeName()));
      if (value.toString().trimmed().isEmpty() && QLatin1String(field.key) != "api_key_env")
        return complain(QCoreApplication::translate("ts::config", "an empty string"));
      return {};
    case FieldType::Bool:
      if (value.typeId() != QMetaType::Bool) return complain("'" + value.toString() + "'");
      return {};
    case FieldType::Int:
    case FieldType::Double: {
      bool ok = false;
      const double v = value.toDouble(&ok);
      if (value.typeId() == QMetaType::QString || value.typeId() == QMetaType::Bool || !ok)
        return complain("'" + value.toString() + "'");
      if (field.type == FieldType::Int && v != std::floor(v)) return complain(value.toString());
      if (v < field.min || v > field.max) return complain(value.toString());
      return {};
    }
  }
  return {};
}

}  // namespace ts::config
