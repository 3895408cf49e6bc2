// The configuration users already keep (../shared/config-examples): one table of fields
// that drives settings.json, config.toml, environment overrides, validation and
// `tokenscope-cli config show`. Keys are settings.json paths ("inference.top_p").
#pragma once
#include <QString>
#include <QVariant>
#include <vector>

namespace ts::config {

enum class FieldType { String, Int, Double, Bool };

struct FieldSpec {
  const char* key;           // settings.json path, e.g. "inference.temperature"
  const char* toml_section;  // config.toml table, e.g. "inference"
  const char* toml_key;      // key inside that table, e.g. "temperature"
  const char* env;           // environment override, e.g. "TOKENSCOPE_TEMPERATURE"
  FieldType type;
  double min;  // numeric range (inclusive), ignored for strings / bools
  double max;
  QVariant fallback;    // the built-in default
  const char* meaning;  // one line for `config show` and tooltips
};

const std::vector<FieldSpec>& fields();
const FieldSpec* findField(const QString& key);

// Provider names that need no base_url in a file: they name a preset.
QStringList presetProviderNames();  // taotoken, openai-compatible, tokenscope-local
QString presetBaseUrl(const QString& provider_name);

// Checks one value against its field: type and range. Returns "" when valid, else a
// message naming the field, what was expected and what was found.
QString checkValue(const FieldSpec& field, const QVariant& value);

// "a number from 0 to 2", "a whole number from 1 to 10000000", "true or false", "text".
QString expectedText(const FieldSpec& field);

}  // namespace ts::config
