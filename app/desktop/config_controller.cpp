#include "app/desktop/config_controller.h"

#include <QDir>
#include <QFileInfo>

#include "app/config/config_files.h"
#include "app/config/config_locations.h"
#include "app/config/config_schema.h"
#include "ui/config_export_dialog.h"
#include "ui/parameter_panel.h"
#include "ui/table_dialog.h"

namespace ts {

ConfigController::ConfigController(ui::MainWindow* window, ProviderController* providers,
                                   ChatController* chat, config::EffectiveConfig* config,
                                   QObject* parent)
    : QObject(parent), window_(window), providers_(providers), chat_(chat), config_(config) {
  connect(window, &ui::MainWindow::effectiveConfigRequested, this,
          &ConfigController::showEffective);
  connect(window, &ui::MainWindow::importConfigRequested, this, [this](const QString& path) {
    const QString error = importFile(path);
    if (!error.isEmpty())
      window_->showError(tr("Configuration not imported"), error);
    else
      window_->showStatus(tr("Imported ") + path);
  });
  connect(window, &ui::MainWindow::exportConfigRequested, this, &ConfigController::exportAsked);
}

void ConfigController::exportAsked(const QString& chosen) {
  const QString path =
      chosen.isEmpty() ? ui::askConfigExportPath(window_, config::suggestedExportPath()) : chosen;
  if (path.isEmpty()) return;
  // A file the next start reads would silently become the next start's configuration.
  if (config::isReadAtStart(path, config::configDirectory()) &&
      !ui::confirmExportReadAtStart(window_, path)) {
    window_->showStatus(tr("Configuration not exported: %1 is read at every start").arg(path));
    return;
  }
  const QString error = exportFile(path);
  if (!error.isEmpty())
    window_->showError(tr("Configuration not exported"), error);
  else
    window_->showStatus(tr("Exported ") + path + tr(" (the key variable's name, never a key)"));
}

void ConfigController::apply(const config::EffectiveConfig& config, bool keep_log_dir) {
  *config_ = config;
  std::vector<ProviderSettings> providers = window_->providers();
  const int current = upsertProvider(providers, providerFromConfig(config));
  window_->setProviders(providers, current);
  SamplingParams params = window_->parameterPanel()->params();
  params.temperature = config.value("inference.temperature").toDouble();
  params.top_p = config.value("inference.top_p").toDouble();
  params.max_tokens = config.value("inference.max_tokens").toInt();
  params.stream = config.value("inference.stream").toBool();
  window_->parameterPanel()->setParams(params);
  ChatController::LogSettings log = chat_->logSettings();
  if (!keep_log_dir) log.dir = config.value("observability.log_dir").toString();
  log.ttft = config.value("observability.log_ttft").toBool();
  log.tpot = config.value("observability.log_tpot").toBool();
  chat_->setLogSettings(log);
  providers_->save(providers, current);
  // A file from an unexpected place (the working directory, $TOKENSCOPE_CONFIG) changes the
  // provider and the values without the user having asked here: say which and why.
  const QString origin = config::unexpectedOrigin(config.configFile, config::configDirectory());
  if (!origin.isEmpty())
    window_->showStatus(tr("Using %1, %2: provider %3, temperature %4, max tokens %5 (View → "
                           "Effective configuration)")
                            .arg(QFileInfo(config.configFile).fileName(), origin,
                                 config.value("provider").toString())
                            .arg(params.temperature)
                            .arg(params.max_tokens));
}

config::EffectiveConfig ConfigController::effective() const {
  config::EffectiveConfig effective = *config_;
  config::ConfigValues ui;
  if (const auto p = window_->currentProviderSettings()) {
    ui.insert("provider", QString::fromStdString(p->name));
    ui.insert("base_url", QString::fromStdString(p->base_url));
    ui.insert("api_key_env", QString::fromStdString(p->api_key_env));
    ui.insert("default_model", QString::fromStdString(p->default_model));
    ui.insert("timeout_seconds", p->timeout_seconds);
    ui.insert("max_retries", p->max_retries);
  }
  const SamplingParams params = window_->parameterPanel()->params();
  ui.insert("inference.temperature", params.temperature);
  ui.insert("inference.top_p", params.top_p);
  ui.insert("inference.max_tokens", params.max_tokens);
  ui.insert("inference.stream", params.stream);
  const ChatController::LogSettings& log = chat_->logSettings();
  ui.insert("observability.log_dir", log.dir);
  ui.insert("observability.log_ttft", log.ttft);
  ui.insert("observability.log_tpot", log.tpot);
  config::ConfigValues changed;  // only what differs from the configuration counts as "UI"
  for (auto it = ui.begin(); it != ui.end(); ++it) {
    const QVariant now = effective.value(it.key());
    const bool same = it.value().typeId() == QMetaType::Double
                          ? qFuzzyCompare(1 + it.value().toDouble(), 1 + now.toDouble())
                          : it.value() == now;
    if (!same) changed.insert(it.key(), it.value());
  }
  effective.apply(changed, config::Source::UserInterface, {});
  return effective;
}

QString ConfigController::importFile(const QString& path) {
  QStringList names;
  for (const auto& p : window_->providers()) names << QString::fromStdString(p.name);
  const config::ConfigFile file = config::readConfigFile(path, names);
  if (!file.ok()) return file.errorText();
  config::EffectiveConfig imported;
  imported.apply(file.values, config::Source::File, path);
  imported.configFile = path;
  // A provider named without a URL (a configured one) keeps that provider's URL and key.
  const int known = findProvider(window_->providers(), file.values.value("provider").toString());
  if (known >= 0 && !file.values.contains("base_url")) {
    const ProviderSettings& p = window_->providers()[known];
    config::ConfigValues keep{{"base_url", QString::fromStdString(p.base_url)}};
    if (!file.values.contains("api_key_env"))
      keep.insert("api_key_env", QString::fromStdString(p.api_key_env));
    imported.apply(keep, config::Source::UserInterface, {});
  }
  apply(imported);
  return {};
}

QString ConfigController::exportFile(const QString& path) const {
  return config::writeConfigFile(path, effective().values());
}

void ConfigController::showEffective() {
  const config::EffectiveConfig effective = this->effective();
  auto* dialog = new ui::TableDialog(tr("Effective configuration"),
                                     {tr("Setting"), tr("Value"), tr("Source")}, window_);
  dialog->setObjectName("effectiveConfigDialog");
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  for (const auto& f : config::fields()) {
    const QVariant v = effective.value(f.key);
    const QString text =
        v.typeId() == QMetaType::Bool ? (v.toBool() ? "true" : "false") : v.toString();
    dialog->addRow({f.key, text, effective.describeSource(f.key)}, std::nullopt,
                   tr("%1 (environment: %2)").arg(f.meaning, f.env));
  }
  const QString origin = config::unexpectedOrigin(effective.configFile, config::configDirectory());
  dialog->setSummary(
      effective.configFile.isEmpty()
          ? tr("No configuration file is in use.")
          : tr("Configuration file: ") +
                QDir::toNativeSeparators(QFileInfo(effective.configFile).absoluteFilePath()) +
                (origin.isEmpty() ? QString() : " (" + origin + ")"));
  dialog->show();
}

}  // namespace ts
