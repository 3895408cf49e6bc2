#include "app/config/config_files.h"

#include <toml++/toml.h>
#include <QCoreApplication>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <sstream>

#include "app/config/config_schema.h"
#include "inference/remote/base_url.h"

namespace ts::config {
namespace {

// Cross-field checks once every value is read: the provider must resolve to an endpoint.
void checkProvider(ConfigFile& file, const QStringList& known_providers) {
  if (file.values.contains("base_url")) {
    const auto n = normalizeBaseUrl(file.values.value("base_url").toString());
    if (!n.ok()) file.errors.append({"base_url: " + n.error});
  }
  if (!file.values.contains("provider") || file.values.contains("base_url")) return;
  const QString name = file.values.value("provider").toString();
  if (!presetBaseUrl(name).isEmpty() || known_providers.contains(name)) return;
  QStringList allowed = presetProviderNames();
  allowed.removeAll("openai-compatible");  // it has no default URL
  allowed += known_providers;
  file.errors.append(
      {QCoreApplication::translate("ts::config",
                                   "provider: unknown provider '%1'; expected one of %2, or give "
                                   "base_url for a new provider")
           .arg(name, allowed.join(", "))});
}

void checkAndStore(ConfigFile& file, const FieldSpec& field, QVariant value, int line, int col) {
  if (field.type == FieldType::Int && value.typeId() == QMetaType::Double) {
    const double d = value.toDouble();
    if (d == static_cast<double>(static_cast<qint64>(d))) value = static_cast<qint64>(d);
  }
  const QString problem = checkValue(field, value);
  if (!problem.isEmpty()) {
    file.errors.append({problem, line, col});
    return;
  }
  if (field.type == FieldType::Int) value = value.toInt();
  if (field.type == FieldType::Double) value = value.toDouble();
  file.values.insert(field.key, value);
}

std::pair<int, int> lineColumn(const QByteArray& bytes, int offset) {
  int line = 1, col = 1;
  for (int i = 0; i < offset && i < bytes.size(); ++i) {
    if (bytes[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

// JSON parsers give no positions for values: find where `"key":` first appears.
std::pair<int, int> jsonKeyPosition(const QByteArray& bytes, const QString& key) {
  const QByteArray needle = "\"" + key.toUtf8() + "\"";
  for (qsizetype at = bytes.indexOf(needle); at >= 0; at = bytes.indexOf(needle, at + 1)) {
    qsizetype after = at + needle.size();
    while (after < bytes.size() && QChar(bytes[after]).isSpace()) ++after;
    if (after < bytes.size() && bytes[after] == ':') return lineColumn(bytes, static_cast<int>(at));
  }
  return {0, 0};
}

QVariant fromJson(const QJsonValue& v) {
  if (v.isString()) return v.toString();
  if (v.isBool()) return v.toBool();
  if (v.isDouble()) return v.toDouble();
  if (v.isNull()) return QString("null");
  return QString(v.isArray() ? "an array" : "an object");
}

QVariant fromToml(const toml::node& node) {
  if (auto s = node.as_string()) return QString::fromStdString(s->get());
  if (auto i = node.as_integer()) return static_cast<qint64>(i->get());
  if (auto d = node.as_floating_point()) return d->get();
  if (auto b = node.as_boolean()) return b->get();
  return QString(node.is_table() ? "a table" : node.is_array() ? "an array" : "a date or time");
}

}  // namespace

QString ConfigFile::errorText() const {
  QStringList lines;
  for (const auto& e : errors)
    lines << (e.line > 0
                  ? QCoreApplication::translate("ts::config", "%1:%2:%3: %4")
                        .arg(path)
                        .arg(e.line)
                        .arg(e.column)
                        .arg(e.message)
                  : QCoreApplication::translate("ts::config", "%1: %2").arg(path, e.message));
  return lines.join('\n');
}

FileFormat formatForPath(const QString& path) {
  return path.endsWith(".toml", Qt::CaseInsensitive) ? FileFormat::Toml : FileFormat::Json;
}

ConfigFile parseSettingsJson(const QByteArray& bytes, const QString& path,
                             const QStringList& known_providers) {
  ConfigFile file;
  file.path = path;
  file.format = FileFormat::Json;
  QJsonParseError err{};
  const QJsonDocument doc = QJsonDocument::fromJson(bytes, &err);
  if (err.error != QJsonParseError::NoError) {
    const auto [line, col] = lineColumn(bytes, err.offset);
    file.errors.append(
        {QCoreApplication::translate("ts::config", "not valid JSON: ") + err.errorString(), line,
         col});
    return file;
  }
  if (!doc.isObject()) {
    file.errors.append(
        {QCoreApplication::translate("ts::config",
                                     "expected a JSON object at the top level, found an array"),
         1, 1});
    return file;
  }
  const QJsonObject root = doc.object();
  for (auto it = root.begin(); it != root.end(); ++it) {
    if (it.value().isObject()) {
      const QJsonObject section = it.value().toObject();
      for (auto s = section.begin(); s != section.end(); ++s) {
        const QString key = it.key() + "." + s.key();
        if (const FieldSpec* f = findField(key)) {
          const auto [line, col] = jsonKeyPosition(bytes, s.key());
          checkAndStore(file, *f, fromJson(s.value()), line, col);
        } else
          file.warnings
              << QCoreApplication::translate("ts::config", "%1: unknown setting, ignored").arg(key);
      }
    } else if (const FieldSpec* f = findField(it.key())) {
      const auto [line, col] = jsonKeyPosition(bytes, it.key());
      checkAndStore(file, *f, fromJson(it.value()), line, col);
    } else {
      file.warnings << QCoreApplication::translate("ts::config", "%1: unknown setting, ignored")
                           .arg(it.key());
    }
  }
  checkProvider(file, known_providers);
  return file;
}

ConfigFile parseConfigToml(const QByteArray& bytes, const QString& path,
                           const QStringList& known_providers) {
  ConfigFile file;
  file.path = path;
  file.format = FileFormat::Toml;
  toml::table root;
  try {
    root = toml::parse(std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())),
                       path.toStdString());
  } catch (const toml::parse_error& e) {
    file.errors.append({QCoreApplication::translate("ts::config", "not valid TOML: ") +
                            QString::fromStdString(std::string(e.description())),
                        static_cast<int>(e.source().begin.line),
                        static_cast<int>(e.source().begin.column)});
    return file;
  }
  for (const auto& [section_key, section_node] : root) {
    const QString section = QString::fromStdString(std::string(section_key.str()));
    const toml::table* table = section_node.as_table();
    if (!table) {
      file.warnings << QCoreApplication::translate("ts::config", "%1: expected a [table], ignored")
                           .arg(section);
      continue;
    }
    for (const auto& [key, node] : *table) {
      const QString name = QString::fromStdString(std::string(key.str()));
      const FieldSpec* field = nullptr;
      for (const auto& f : fields())
        if (section == QLatin1String(f.toml_section) && name == QLatin1String(f.toml_key))
          field = &f;
      if (!field) {
        file.warnings << QCoreApplication::translate("ts::config",
                                                     "[%1] %2: unknown setting, ignored")
                             .arg(section, name);
        continue;
      }
      checkAndStore(file, *field, fromToml(node), static_cast<int>(node.source().begin.line),
                    static_cast<int>(node.source().begin.column));
    }
  }
  checkProvider(file, known_providers);
  std::stable_sort(file.errors.begin(), file.errors.end(),  // in file order, not key order
                   [](const ConfigIssue& a, const ConfigIssue& b) {
                     return (a.line ? a.line : INT_MAX) < (b.line ? b.line : INT_MAX);
                   });
  return file;
}

ConfigFile readConfigFile(const QString& path, const QStringList& known_providers) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    ConfigFile file;
    file.path = path;
    file.format = formatForPath(path);
    file.errors.append(
        {QCoreApplication::translate("ts::config", "cannot open: ") + f.errorString()});
    return file;
  }
  const QByteArray bytes = f.readAll();
  return formatForPath(path) == FileFormat::Toml ? parseConfigToml(bytes, path, known_providers)
                                                 : parseSettingsJson(bytes, path, known_providers);
}

QByteArray writeSettingsJson(const ConfigValues& values) {
  QJsonObject root;
  QMap<QString, QJsonObject> sections;
  for (const auto& f : fields()) {
    if (!values.contains(f.key)) continue;
    const QString key = f.key;
    const QJsonValue v = QJsonValue::fromVariant(values.value(key));
    const int dot = key.indexOf('.');
    if (dot < 0)
      root.insert(key, v);
    else
      sections[key.left(dot)].insert(key.mid(dot + 1), v);
  }
  for (auto it = sections.begin(); it != sections.end(); ++it) root.insert(it.key(), it.value());
  return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

QByteArray writeConfigToml(const ConfigValues& values) {
  // Sections in the users' order; each value formatted by toml++ (with relaxed float
  // precision, so 0.9 prints as 0.9).
  std::ostringstream out;
  QString current;
  for (const auto& f : fields()) {
    if (!values.contains(f.key)) continue;
    if (current != QLatin1String(f.toml_section)) {
      if (!current.isEmpty()) out << "\n";
      current = f.toml_section;
      out << "[" << f.toml_section << "]\n";
    }
    toml::table line;
    const QVariant v = values.value(f.key);
    switch (f.type) {
      case FieldType::String:
        line.insert(f.toml_key, v.toString().toStdString());
        break;
      case FieldType::Int:
        line.insert(f.toml_key, static_cast<int64_t>(v.toLongLong()));
        break;
      case FieldType::Double:
        line.insert(f.toml_key, v.toDouble());
        break;
      case FieldType::Bool:
        line.insert(f.toml_key, v.toBool());
        break;
    }
    // Basic "double-quoted" strings as in the users' files; 0.9 printed as 0.9.
    constexpr auto flags =
        (toml::toml_formatter::default_flags | toml::format_flags::relaxed_float_precision) &
        ~toml::format_flags::allow_literal_strings;
    out << toml::toml_formatter(line, flags) << "\n";
  }
  return QByteArray::fromStdString(out.str());
}

QString writeConfigFile(const QString& path, const ConfigValues& values) {
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly))
    return QCoreApplication::translate("ts::config", "cannot write %1: %2")
        .arg(path, f.errorString());
  f.write(formatForPath(path) == FileFormat::Toml ? writeConfigToml(values)
                                                  : writeSettingsJson(values));
  if (!f.commit())
    return QCoreApplication::translate("ts::config", "cannot write %1: %2")
        .arg(path, f.errorString());
  return {};
}

}  // namespace ts::config
