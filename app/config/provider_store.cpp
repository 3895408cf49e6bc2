#include "app/config/provider_store.h"

#include "app/config/config_schema.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QStandardPaths>
#include <QUuid>

namespace ts {

ProviderStore::ProviderStore(QString path) : path_(std::move(path)) {}

QString ProviderStore::defaultPath() {
  return config::configDirectory() + "/providers.json";
}

ProviderList ProviderStore::presets() {
  ProviderList list;
  list.providers = {{"TaoToken", "https://taotoken.net/api", "baichuan", "TAOTOKEN_API_KEY", 60, 2,
                     KeySource::Environment, ProviderKind::Remote, "taotoken"},
                    {"OpenAI-compatible", "http://127.0.0.1:8000", "default", "OPENAI_API_KEY", 60,
                     2, KeySource::Environment, ProviderKind::Remote, "openai-compatible"},
                    {"TokenScope local server", "http://127.0.0.1:8080", "local", "", 60, 2,
                     KeySource::Environment, ProviderKind::Remote, "tokenscope-local"}};
  return list;
}

ProviderList ProviderStore::load(QString* error) const {
  QFile file(path_);
  if (!file.exists()) return presets();
  if (!file.open(QIODevice::ReadOnly)) {
    if (error) *error = QString("cannot read %1: %2").arg(path_, file.errorString());
    return presets();
  }
  QJsonParseError parse{};
  const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parse);
  file.close();
  if (parse.error != QJsonParseError::NoError || !doc.object().value("providers").isArray()) {
    const QString aside = path_ + ".bad";
    QFile::remove(aside);
    QFile::rename(path_, aside);
    if (error)
      *error = QString("%1 is damaged (%2); it was kept as %3 and the presets were loaded")
                   .arg(path_,
                        parse.error != QJsonParseError::NoError
                            ? parse.errorString() + " at offset " + QString::number(parse.offset)
                            : QString("expected an object with a \"providers\" array"),
                        aside);
    return presets();
  }
  ProviderList list;
  for (const QJsonValue& v : doc.object().value("providers").toArray()) {
    const QJsonObject o = v.toObject();
    ProviderSettings p;
    p.name = o.value("name").toString().toStdString();
    p.base_url = o.value("base_url").toString().toStdString();
    p.default_model = o.value("default_model").toString().toStdString();
    p.api_key_env = o.value("api_key_env").toString().toStdString();
    p.timeout_seconds = std::max(1, o.value("timeout_seconds").toInt(60));
    p.max_retries = std::clamp(o.value("max_retries").toInt(2), 0, 10);
    const QString source = o.value("key_source").toString();
    p.id = o.value("id").toString().toStdString();
    p.kind =
        o.value("kind").toString() == "local" ? ProviderKind::LocalEngine : ProviderKind::Remote;
    p.key_source = source == "keychain" ? KeySource::Keychain
                   : source == "file"   ? KeySource::PlaintextFile
                                        : KeySource::Environment;
    if (const QJsonObject e = o.value("engine").toObject(); !e.isEmpty()) {
      const LocalEngineSettings defaults;
      const auto text = [&](const char* key, const std::string& fallback) {
        return e.value(key).toString(QString::fromStdString(fallback)).toStdString();
      };
      p.local.weights = text("weights", defaults.weights);
      p.local.kv = text("kv", defaults.kv);
      p.local.backend = text("backend", defaults.backend);
      p.local.device = std::max(0, e.value("device").toInt(0));
      p.local.threads = std::max(0, e.value("threads").toInt(0));
      p.local.context = std::max(0, e.value("context").toInt(0));
    }
    if (!p.name.empty()) list.providers.push_back(p);
  }
  list.current = doc.object().value("current").toInt(0);
  assignMissingIds(list.providers);
  return list;
}

QString ProviderStore::save(const ProviderList& list) const {
  QJsonArray providers;
  for (const auto& p : list.providers) {
    QJsonObject o{{"name", QString::fromStdString(p.name)},
                  {"base_url", QString::fromStdString(p.base_url)},
                  {"default_model", QString::fromStdString(p.default_model)},
                  {"api_key_env", QString::fromStdString(p.api_key_env)},
                  {"timeout_seconds", p.timeout_seconds},
                  {"max_retries", p.max_retries},
                  {"key_source", keySourceName(p.key_source)},
                  {"kind", p.kind == ProviderKind::LocalEngine ? "local" : "remote"},
                  {"id", QString::fromStdString(p.id)}};
    if (p.kind == ProviderKind::LocalEngine)
      o.insert("engine", QJsonObject{{"weights", QString::fromStdString(p.local.weights)},
                                     {"kv", QString::fromStdString(p.local.kv)},
                                     {"backend", QString::fromStdString(p.local.backend)},
                                     {"device", p.local.device},
                                     {"threads", p.local.threads},
                                     {"context", p.local.context}});
    providers.append(o);
  }
  QDir().mkpath(QFileInfo(path_).absolutePath());
  QSaveFile file(path_);
  if (!file.open(QIODevice::WriteOnly))
    return QString("cannot write %1: %2").arg(path_, file.errorString());
  file.write(QJsonDocument(QJsonObject{{"providers", providers}, {"current", list.current}})
                 .toJson(QJsonDocument::Indented));
  if (!file.commit()) return QString("cannot write %1: %2").arg(path_, file.errorString());
  return {};
}

const char* keySourceName(KeySource source) {
  switch (source) {
    case KeySource::Keychain:
      return "keychain";
    case KeySource::PlaintextFile:
      return "file";
    case KeySource::Environment:
      break;
  }
  return "env";
}

RemoteEndpoint endpointFor(const ProviderSettings& provider) {
  RemoteEndpoint e;
  e.provider_name = QString::fromStdString(provider.name);
  e.base_url = QString::fromStdString(provider.base_url);
  // A key from the keychain or a file is filled in by the caller (it arrives asynchronously).
  if (provider.key_source == KeySource::Environment)
    e.api_key_env = QString::fromStdString(provider.api_key_env);
  e.max_retries = provider.max_retries;
  e.timeouts = RemoteTimeouts::fromLimitSeconds(provider.timeout_seconds);
  return e;
}

ProviderSettings providerFromConfig(const config::EffectiveConfig& c) {
  ProviderSettings p;
  p.name = c.value("provider").toString().toStdString();
  p.base_url = c.value("base_url").toString().toStdString();
  // A preset named without a base URL of its own takes the preset's URL.
  if (c.entry("base_url").source == config::Source::Default &&
      !config::presetBaseUrl(c.value("provider").toString()).isEmpty())
    p.base_url = config::presetBaseUrl(c.value("provider").toString()).toStdString();
  p.default_model = c.value("default_model").toString().toStdString();
  p.api_key_env = c.value("api_key_env").toString().toStdString();
  p.timeout_seconds = c.value("timeout_seconds").toInt();
  p.max_retries = c.value("max_retries").toInt();
  return p;
}

int findProvider(const std::vector<ProviderSettings>& providers, const QString& name) {
  for (size_t i = 0; i < providers.size(); ++i)
    if (QString::fromStdString(providers[i].name).compare(name, Qt::CaseInsensitive) == 0)
      return static_cast<int>(i);
  return -1;
}

int upsertProvider(std::vector<ProviderSettings>& providers, const ProviderSettings& provider) {
  const int at = findProvider(providers, QString::fromStdString(provider.name));
  if (at >= 0) {
    const ProviderSettings old = providers[at];
    providers[at] = provider;
    providers[at].id = old.id;  // the keychain entry stays attached
    if (provider.api_key_env.empty() || provider.key_source != KeySource::Environment)
      providers[at].key_source = old.key_source;
    return at;
  }
  providers.push_back(provider);
  assignMissingIds(providers);
  return static_cast<int>(providers.size()) - 1;
}

void assignMissingIds(std::vector<ProviderSettings>& providers) {
  for (auto& p : providers)
    if (p.id.empty()) p.id = QUuid::createUuid().toString(QUuid::WithoutBraces).toStdString();
}

QString keychainAccount(const ProviderSettings& provider) {
  return QString::fromStdString(provider.id.empty() ? provider.name : provider.id);
}

}  // namespace ts
