#include "app/cli/doctor_command.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cstdio>

#include "app/cli/common.h"
#include "app/config/provider_store.h"
#include "inference/remote/connection_doctor.h"

namespace ts {
namespace {

QJsonValue optionalBool(const std::optional<bool>& b) {
  return b ? QJsonValue(*b) : QJsonValue();
}

QString stepLine(const DoctorStep& s) {
  const QString tag = s.skipped ? "SKIP" : s.ok ? "PASS" : "FAIL";
  QString line = QString("[%1] %2 %3").arg(tag, s.name.leftJustified(14), s.message);
  if (s.http_status && !s.message.contains(QString("HTTP %1").arg(s.http_status)))
    line += QString(" (HTTP %1)").arg(s.http_status);
  if (!s.final_url.isEmpty() && !s.skipped) line += "\n       at " + s.final_url;
  if (!s.fix.isEmpty()) line += "\n       Fix: " + s.fix;
  return line;
}

void addDoctorOptions(QCommandLineParser& p) {
  p.setApplicationDescription(
      "Checks a provider step by step: connect, a non-streaming request (max_tokens 16), a "
      "streaming request, GET /v1/models. Each step says pass/fail, the HTTP status, the final "
      "URL and the fix.");
  addConfigOption(p);
  p.addOptions({{"provider", "A provider from the app's list or the configuration file.", "NAME"},
                {"base-url", "Check this endpoint instead.", "URL"},
                {"model", "Model id to request.", "NAME"},
                {"api-key-env", "Environment variable holding the key.", "VAR"},
                {"timeout", "Seconds each step may wait (default: the provider's).", "S"},
                {"json", "Print one JSON object."}});
}

// The provider to check: the configuration's, or --provider from the app's list, with the
// flags over it; nullopt after saying which providers exist.
std::optional<ProviderSettings> providerOf(const QCommandLineParser& p,
                                           const config::EffectiveConfig& cfg) {
  ProviderSettings provider = providerFromConfig(cfg);
  if (p.isSet("provider")) {
    ProviderList list = ProviderStore().load();
    upsertProvider(list.providers, provider);  // the configuration file's provider counts too
    const int at = findProvider(list.providers, p.value("provider"));
    if (at < 0) {
      QStringList names;
      for (const auto& known : list.providers) names << QString::fromStdString(known.name);
      printErr(QString("tokenscope-cli doctor: no provider named '%1'; known providers: %2")
                   .arg(p.value("provider"), names.join(", ")));
      return std::nullopt;
    }
    provider = list.providers[at];
  }
  if (p.isSet("base-url")) {
    provider.base_url = p.value("base-url").toStdString();
    // The built-in key variable belongs to the built-in URL: never send it elsewhere.
    if (cfg.entry("api_key_env").source == config::Source::Default) provider.api_key_env.clear();
  }
  if (p.isSet("model")) provider.default_model = p.value("model").toStdString();
  if (p.isSet("api-key-env")) provider.api_key_env = p.value("api-key-env").toStdString();
  if (p.isSet("timeout")) provider.timeout_seconds = std::max(1, p.value("timeout").toInt());
  return provider;
}

// Runs every step, printing each as it ends unless `json`.
DoctorReport check(const ProviderSettings& provider, bool json) {
  ConnectionDoctor doctor;
  if (!json) {
    printOut(QString("Connection doctor: %1 (%2, model %3)")
                 .arg(QString::fromStdString(provider.name),
                      QString::fromStdString(provider.base_url),
                      QString::fromStdString(provider.default_model)));
    QObject::connect(&doctor, &ConnectionDoctor::stepFinished,
                     [](const DoctorStep& s) { printOut(stepLine(s)); });
  }
  QObject::connect(&doctor, &ConnectionDoctor::finished, qApp, &QCoreApplication::quit);
  doctor.start(endpointFor(provider), QString::fromStdString(provider.default_model));
  if (doctor.isRunning()) QCoreApplication::exec();
  return doctor.report();
}

void printJson(const ProviderSettings& provider, const DoctorReport& report) {
  QJsonArray steps;
  for (const auto& s : report.steps)
    steps.append(QJsonObject{{"name", s.name},
                             {"ok", s.ok},
                             {"skipped", s.skipped},
                             {"http_status", s.http_status},
                             {"final_url", s.final_url},
                             {"message", s.message},
                             {"fix", s.fix},
                             {"elapsed_ms", s.elapsed_ms}});
  const QJsonObject out{{"provider", QString::fromStdString(provider.name)},
                        {"base_url", QString::fromStdString(provider.base_url)},
                        {"model", QString::fromStdString(provider.default_model)},
                        {"ok", report.ok()},
                        {"steps", steps},
                        {"accepts_stream_options", optionalBool(report.accepts_stream_options)},
                        {"sends_usage", optionalBool(report.sends_usage)},
                        {"models", QJsonArray::fromStringList(report.models)}};
  std::printf("%s", QJsonDocument(out).toJson(QJsonDocument::Indented).constData());
}

void printSummary(const DoctorReport& report) {
  const auto tri = [](const std::optional<bool>& b, const char* yes, const char* no) {
    return b ? QString(*b ? yes : no) : QString("unknown");
  };
  printOut(QString("stream_options: %1 · usage chunk: %2 · overall: %3")
               .arg(tri(report.accepts_stream_options, "accepted", "rejected"),
                    tri(report.sends_usage, "sent", "not sent"),
                    report.ok() ? "OK" : "problems found"));
}

}  // namespace

int runDoctorCommand(const QStringList& args) {
  QCommandLineParser p;
  addDoctorOptions(p);
  if (auto done = parseCommandLine(p, args, "doctor")) return *done;
  config::EffectiveConfig cfg;
  if (!loadConfig(p, "doctor", cfg)) return 2;
  const auto provider = providerOf(p, cfg);
  if (!provider) return 2;
  const bool json = p.isSet("json");
  const DoctorReport report = check(*provider, json);
  if (json)
    printJson(*provider, report);
  else
    printSummary(report);
  return report.ok() ? 0 : 1;
}

}  // namespace ts
