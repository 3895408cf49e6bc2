#include "app/chat_controller.h"

#include <QAction>
#include <QCoreApplication>
#include <QFileInfo>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>

#include "app/config/config_schema.h"
#include "app/language.h"
#include "app/model_paths.h"
#include "app/run_log.h"
#include "app/ui_settings.h"
#include "inference/engine/backend/backend_loader.h"
#include "inference/remote/base_url.h"
#include "inference/remote/connection_doctor.h"
#include "inference/remote/hub_url.h"
#include "inference/remote/model_download.h"
#include "ui/download_dialog.h"
#include "ui/parameter_panel.h"
#include "ui/table_dialog.h"

namespace ts {

std::pair<QString, bool> previewBaseUrl(const QString& typed) {
  const NormalizedBaseUrl n = normalizeBaseUrl(typed);
  if (!n.ok()) return {n.error, true};
  QString text = chatCompletionsUrl(n.root).toString();
  if (!n.notes.isEmpty()) text += " (" + n.notes.join("; ") + ")";
  return {text, false};
}

ChatController::ChatController(ui::MainWindow* window, ProviderStore store, QString log_dir,
                               bool persist_providers, QObject* parent)
    : QObject(parent),
      window_(window),
      store_(std::move(store)),
      log_dir_(std::move(log_dir)),
      persist_(persist_providers),
      model_manager_(window),
      history_(window) {
  window->setUrlPreview(&previewBaseUrl);
  window->setProviderPresets(ProviderStore::presets().providers);
  connect(window, &ui::MainWindow::sendRequested, this, &ChatController::onSend);
  connect(window, &ui::MainWindow::stopRequested, &session_, &ChatSession::cancel);
  // Recorded before the window shows it: once the window has shown a run's end, the run
  // is in the store (a next Send may follow at once).
  connect(&session_, &ChatSession::eventReady, this, &ChatController::recordEvent);
  connect(&session_, &ChatSession::eventReady, window, &ui::MainWindow::onStreamEvent);
  connect(&session_, &ChatSession::runFinished, this, &ChatController::onFinished);
  connect(&session_, &ChatSession::localLoadProgress, this, [this](int percent) {
    const auto p = window_->currentProviderSettings();
    const QString name = p ? QString::fromStdString(p->name) : QString();
    window_->showStatus(percent < 100 ? tr("Loading %1… %2% (Stop cancels)").arg(name).arg(percent)
                                      : tr("Loaded %1.").arg(name));
  });
  connect(window, &ui::MainWindow::doctorRequested, this, &ChatController::runDoctor);
  connect(window, &ui::MainWindow::apiKeyRequested, this, &ChatController::editApiKey);
  connect(window, &ui::MainWindow::modelsRequested, this, &ChatController::refreshModels);
  // View toggles keep their state across starts (ui.ini, keyed by the action's name).
  for (const char* name : {"renderMarkdownAction", "markDraftedAction"})
    if (auto* action = window->findChild<QAction*>(name)) {
      const QString key = QString("view/") + name;
      action->setChecked(uiSettings().value(key, action->isChecked()).toBool());
      connect(action, &QAction::toggled, this, [key](bool on) { uiSettings().setValue(key, on); });
    }
  window->setChosenLanguage(chosenLanguage());
  connect(window, &ui::MainWindow::languageChosen, this, [this](const QString& code) {
    if (code == chosenLanguage()) return;
    const QString before = effectiveLanguage();
    setChosenLanguage(code);
    if (effectiveLanguage() == before) return;
    const auto answer = QMessageBox::question(
        window_, tr("Language"),
        tr("The new language is used after TokenScope restarts. Restart now? Your providers "
           "and settings are saved; the current conversation is not kept."));
    if (answer != QMessageBox::Yes) return;
    QProcess::startDetached(QCoreApplication::applicationFilePath(),
                            QCoreApplication::arguments().mid(1));
    QCoreApplication::quit();
  });
  connect(&models_, &ModelListFetcher::finished, this, [this](const ModelList& list) {
    window_->setModelList(
        list.ids,
        list.ok() ? tr("%1 model(s) listed by the endpoint.").arg(list.ids.size()) : list.error);
  });
  connect(window, &ui::MainWindow::effectiveConfigRequested, this,
          &ChatController::showEffectiveConfig);
  connect(window, &ui::MainWindow::downloadRequested, this, &ChatController::openDownloads);
  connect(window, &ui::MainWindow::modelManagerRequested, this, &ChatController::openModelManager);
  connect(&model_manager_, &ModelManager::loaded, this, &ChatController::useLoadedModel);
  connect(window, &ui::MainWindow::historyRequested, &history_, &HistoryController::open);
  connect(window, &ui::MainWindow::compareLatestRequested, &history_,
          &HistoryController::compareLatest);
  connect(window, &ui::MainWindow::benchmarkRequested, this, &ChatController::openBenchmark);
  connect(window, &ui::MainWindow::aboutRequested, this, &ChatController::showAbout);
  connect(window, &ui::MainWindow::serveRequested, this, [this](const ProviderSettings& p) {
    if (p.kind != ProviderKind::LocalEngine) {
      window_->setServing(false);
      return window_->showError(
          tr("Serve the local model"),
          tr("%1 is a remote endpoint. Choose a local provider (a model file) "
             "to serve it to other tools.")
              .arg(QString::fromStdString(p.name)));
    }
    window_->showStatus(tr("Loading %1 to serve it…").arg(QString::fromStdString(p.name)));
    serving_.start(localSpecFor(p), QString::fromStdString(p.default_model));
  });
  connect(window, &ui::MainWindow::stopServingRequested, &serving_, &LocalServing::stop);
  connect(&serving_, &LocalServing::started, this, [this](const QString& url) {
    window_->setServing(true);
    window_->showStatus(tr("Serving the local model at %1 (OpenAI-compatible; Provider → Serve "
                           "stops it)")
                            .arg(url));
  });
  connect(&serving_, &LocalServing::stopped, this, [this] {
    window_->setServing(false);
    window_->showStatus(tr("Stopped serving the local model."));
  });
  connect(&serving_, &LocalServing::failed, this, [this](const QString& message) {
    window_->setServing(false);
    window_->showError(tr("Serve the local model"), message);
  });
  connect(window, &ui::MainWindow::importConfigRequested, this, [this](const QString& path) {
    const QString error = importConfig(path);
    if (!error.isEmpty())
      window_->showError(tr("Configuration not imported"), error);
    else
      window_->showStatus(tr("Imported ") + path);
  });
  connect(window, &ui::MainWindow::exportConfigRequested, this, [this](const QString& path) {
    const QString error = exportConfig(path);
    if (!error.isEmpty())
      window_->showError(tr("Configuration not exported"), error);
    else
      window_->showStatus(tr("Exported ") + path + tr(" (the key variable's name, never a key)"));
  });
  connect(window, &ui::MainWindow::providersEdited, this, &ChatController::saveProviders);
}

void ChatController::saveProviders(const std::vector<ProviderSettings>& providers, int current) {
  if (!persist_) return;
  const QString error = store_.save({providers, current});
  if (!error.isEmpty()) window_->showStatus(tr("Providers not saved: ") + error);
}

void ChatController::showAndSaveProviders(const std::vector<ProviderSettings>& providers,
                                          int current) {
  window_->setProviders(providers, current);
  saveProviders(providers, current);
}

void ChatController::setRunStore(std::unique_ptr<RunStore> store) {
  runs_ = std::move(store);
  if (!runs_->isOpen()) {
    window_->showStatus(tr("Runs are not being recorded: ") + runs_->error());
    runs_.reset();
    return;
  }
  history_.setStore(runs_.get());
  if (const int n = runs_->markInterrupted(); n > 0)
    window_->showStatus(
        tr("%n run(s) of an earlier session ended without finishing; they are "
           "kept as interrupted, with their partial answers.",
           nullptr, n));
}

void ChatController::beginRecording(const ProviderSettings& provider,
                                    const GenerationRequest& request) {
  recording_.reset();
  recorded_ = {};
  if (!runs_) return;
  RunContext context{QString::fromStdString(provider.name),
                     QString::fromStdString(provider.base_url),
                     QString::fromStdString(request.model)};
  if (provider.kind == ProviderKind::LocalEngine) {
    context.backend = QString::fromStdString(provider.local.backend);
    context.weights = QString::fromStdString(provider.local.weights);
    context.kv = QString::fromStdString(provider.local.kv);
    if (!request.params.draft.empty())
      context.speculative =
          QString::fromStdString(request.params.draft) + ", K " +
          (request.params.draft_auto ? QString("auto") : QString::number(request.params.draft_k));
  }
  recording_ = std::make_unique<RunStoreWriter>(*runs_, request, context);
  if (recording_->id() < 0) {
    window_->showStatus(tr("Run not recorded: ") + runs_->error());
    recording_.reset();
  }
}

void ChatController::recordEvent(const StreamEvent& event) {
  if (!recording_) return;
  if (event.kind == EventKind::Started) recorded_.start_ns = event.t_ns;
  recorded_.events.push_back(event);
  if (event.kind != EventKind::Finished && event.kind != EventKind::Failed)
    return recording_->update(recorded_);
  recording_->finish(recorded_);
  finished_recording_ = recording_->id();
  recording_.reset();
  history_.refresh();
}

void ChatController::onSend(const ProviderSettings& provider, const GenerationRequest& request) {
  last_request_ = request;
  beginRecording(provider, request);
  if (provider.kind == ProviderKind::LocalEngine) {
    last_root_ = QString::fromStdString(provider.base_url);  // the model path, for the log
    session_.startLocal(localSpecFor(provider), request);
    return;
  }
  const NormalizedBaseUrl n = normalizeBaseUrl(QString::fromStdString(provider.base_url));
  last_root_ = n.ok() ? n.root : QString::fromStdString(provider.base_url);
  startWithKey(provider, request);
}

void ChatController::startWithKey(const ProviderSettings& provider,
                                  const GenerationRequest& request) {
  const QString name = keychainAccount(provider);
  switch (provider.key_source) {
    case KeySource::Environment:
      session_.start(endpointFor(provider), request);
      return;
    case KeySource::PlaintextFile: {
      QString error;
      const QString key = KeyStore::readPlaintext(name, &error);
      if (!error.isEmpty())
        return failBeforeStart(tr("The API key could not be read: ") + error + ".");
      RemoteEndpoint endpoint = endpointFor(provider);
      endpoint.api_key = key;
      session_.start(endpoint, request);
      return;
    }
    case KeySource::Keychain:
      key_store_.read(name, [this, provider, request](QString key, QString error) {
        if (!error.isEmpty()) return failBeforeStart(error);
        RemoteEndpoint endpoint = endpointFor(provider);
        endpoint.api_key = key;
        session_.start(endpoint, request);
      });
      return;
  }
}

void ChatController::refreshModels(const ProviderSettings& provider) {
  window_->showStatus(tr("Fetching the model list…"));
  const auto fetch = [this](RemoteEndpoint endpoint) { models_.start(endpoint); };
  if (provider.key_source == KeySource::Keychain) {
    key_store_.read(keychainAccount(provider), [this, provider, fetch](QString key, QString error) {
      if (!error.isEmpty()) return window_->setModelList({}, error);
      RemoteEndpoint endpoint = endpointFor(provider);
      endpoint.api_key = key;
      fetch(endpoint);
    });
    return;
  }
  RemoteEndpoint endpoint = endpointFor(provider);
  if (provider.key_source == KeySource::PlaintextFile)
    endpoint.api_key = KeyStore::readPlaintext(keychainAccount(provider), nullptr);
  fetch(endpoint);
}

void ChatController::failBeforeStart(const QString& message) {
  const int64_t now = monotonicNowNs();
  for (const StreamEvent& e :
       {StreamEvent::started(now),
        StreamEvent::failed(now, FailureKind::Auth, 0, message.toStdString(), {})}) {
    recordEvent(e);  // the failure ends the recording too
    window_->onStreamEvent(e);
  }
}

void ChatController::editApiKey(const ProviderSettings& provider) {
  auto* dialog =
      new ui::ApiKeyDialog(provider, KeyStore::plaintextPath(keychainAccount(provider)), window_);
  dialog->setObjectName("apiKeyDialog");
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  const KeychainStatus status = KeyStore::probe();
  dialog->setKeychainStatus(status.available, status.reason);
  connect(
      dialog, &ui::ApiKeyDialog::testRequested, dialog,
      [dialog, provider](const ui::ApiKeyChoice& choice) {
        RemoteEndpoint endpoint = endpointFor(provider);
        endpoint.api_key = choice.key;
        endpoint.api_key_env = choice.source == KeySource::Environment ? choice.env_var : QString();
        endpoint.max_retries = 0;
        GenerationRequest request;
        request.model = provider.default_model;
        request.provider = provider.name;
        request.messages = {{"user", "ping"}};
        request.params.max_tokens = 1;
        request.params.stream = false;
        auto* client = new OpenAiClient(dialog);
        connect(client, &OpenAiClient::runFinished, dialog, [dialog, client] {
          const StreamEvent* end = client->result().run.terminal();
          if (end && end->kind == EventKind::Finished)
            dialog->setTestResult(
                true, tr("The key works: ") + client->result().final_url + tr(" answered."));
          else
            dialog->setTestResult(false, end ? QString::fromStdString(end->text) : tr("no answer"));
          client->deleteLater();
        });
        client->start(endpoint, request);
      });
  connect(dialog, &QDialog::accepted, this,
          [this, dialog, provider] { saveApiKey(provider, dialog->choice()); });
  dialog->open();
}

void ChatController::saveApiKey(ProviderSettings provider, const ui::ApiKeyChoice& choice) {
  const QString name = keychainAccount(provider);
  const QString shown = QString::fromStdString(provider.name);
  const QString trimmed = choice.trimmed ? tr(" (white space around it was removed)") : "";
  switch (choice.source) {
    case KeySource::Environment:
      provider.key_source = KeySource::Environment;
      provider.api_key_env = choice.env_var.toStdString();
      window_->replaceProvider(provider);
      window_->showStatus(tr("%1 reads its key from %2.").arg(shown, choice.env_var));
      return;
    case KeySource::PlaintextFile: {
      const QString error = KeyStore::writePlaintext(name, choice.key);
      if (!error.isEmpty()) return window_->showError(tr("API key not saved"), error);
      provider.key_source = KeySource::PlaintextFile;
      window_->replaceProvider(provider);
      window_->showStatus(tr("Key saved to ") + KeyStore::plaintextPath(name) + " (0600)" +
                          trimmed);
      return;
    }
    case KeySource::Keychain:
      key_store_.write(name, choice.key, [this, provider, shown, trimmed](QString error) mutable {
        if (!error.isEmpty()) return window_->showError(tr("API key not saved"), error);
        provider.key_source = KeySource::Keychain;
        window_->replaceProvider(provider);
        window_->showStatus(tr("The key for %1 is stored in the keychain%2.").arg(shown, trimmed));
      });
      return;
  }
}

void ChatController::openDownloads() {
  auto* dialog = new ui::DownloadDialog(window_);
  dialog->setObjectName("downloadDialog");
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  auto* download = new ModelDownload(dialog);
  // What was typed: a pasted URL, or repository + file on the configured hub.
  connect(dialog, &ui::DownloadDialog::startRequested, download,
          [this, dialog, download](const QString& url, const QString& repo, const QString& file) {
            HubFile f;
            QString problem;
            if (!url.isEmpty()) {
              if (auto parsed = parseHubUrl(url, &problem)) f = *parsed;
            } else {
              f.base_url = download_hub_;
              f.repo = repo;
              f.file = file;
              problem = checkHubFile(f);
            }
            if (!problem.isEmpty()) return dialog->onRejected(problem);
            dialog->onStarted(f.file);
            download->start(f, modelsDir() + "/" + QFileInfo(f.file).fileName());
          });
  connect(dialog, &ui::DownloadDialog::pauseRequested, download, &ModelDownload::pause);
  connect(dialog, &ui::DownloadDialog::resumeRequested, download, &ModelDownload::resume);
  connect(dialog, &ui::DownloadDialog::cancelRequested, download, &ModelDownload::cancel);
  connect(download, &ModelDownload::progress, dialog, [dialog](const DownloadProgress& p) {
    dialog->onProgress(p.received, p.total, p.bytes_per_s, p.eta_s);
  });
  connect(download, &ModelDownload::paused, dialog, &ui::DownloadDialog::onPaused);
  connect(download, &ModelDownload::verifying, dialog, &ui::DownloadDialog::onVerifying);
  connect(download, &ModelDownload::finished, dialog, &ui::DownloadDialog::onFinished);
  connect(download, &ModelDownload::failed, dialog, &ui::DownloadDialog::onFailed);
  connect(dialog, &ui::DownloadDialog::useModelRequested, this, [this](const QString& path) {
    std::vector<ProviderSettings> providers = window_->providers();
    providers.push_back({QFileInfo(path).completeBaseName().toStdString(), path.toStdString(),
                         QFileInfo(path).completeBaseName().toStdString(), "", 60, 0,
                         KeySource::Environment, ProviderKind::LocalEngine});
    showAndSaveProviders(providers, static_cast<int>(providers.size()) - 1);
    window_->showStatus(tr("Added the local provider %1").arg(QFileInfo(path).completeBaseName()));
  });
  dialog->show();
}

void ChatController::openModelManager() {
  const auto current = window_->currentProviderSettings();
  if (!current || current->kind != ProviderKind::LocalEngine) {
    model_manager_.open();
    return;
  }
  ui::ModelManagerDialog* dialog = model_manager_.open();
  dialog->setSettings(current->local);
  dialog->setPath(QString::fromStdString(current->base_url));
}

void ChatController::useLoadedModel(const QString& path, const LocalEngineSettings& settings) {
  std::vector<ProviderSettings> providers = window_->providers();
  auto it = std::find_if(providers.begin(), providers.end(), [&](const ProviderSettings& p) {
    return p.kind == ProviderKind::LocalEngine && QString::fromStdString(p.base_url) == path;
  });
  const QString name = QFileInfo(path).completeBaseName();
  if (it == providers.end()) {
    ProviderSettings p{
        name.toStdString(),     path.toStdString(),       name.toStdString(), "", 60, 0,
        KeySource::Environment, ProviderKind::LocalEngine};
    providers.push_back(p);
    it = std::prev(providers.end());
  }
  it->local = settings;
  showAndSaveProviders(providers, static_cast<int>(it - providers.begin()));
  window_->showStatus(tr("%1 is loaded: chat, serve or benchmark it (weights %2, KV cache %3, "
                         "%4 positions).")
                          .arg(QString::fromStdString(it->name),
                               QString::fromStdString(settings.weights),
                               QString::fromStdString(settings.kv))
                          .arg(settings.context));
}

void ChatController::openBenchmark(const ProviderSettings& provider) {
  // The model the chat would ask for: the model box, else the provider's default.
  const QString model = window_->model().isEmpty() ? QString::fromStdString(provider.default_model)
                                                   : window_->model();
  if (provider.kind == ProviderKind::LocalEngine) {
    if (!serving_.isServing())
      return window_->showError(
          tr("Benchmark"),
          tr("A local model is benchmarked over HTTP, as other tools see it: start Provider → "
             "Serve the local model first, then open the benchmark again."));
    RemoteEndpoint endpoint;
    endpoint.provider_name = QString::fromStdString(provider.name);
    endpoint.base_url = QString("http://127.0.0.1:%1").arg(serving_.port());
    return showBenchmark(endpoint, model);
  }
  switch (provider.key_source) {
    case KeySource::Environment:
      return showBenchmark(endpointFor(provider), model);
    case KeySource::PlaintextFile: {
      QString error;
      RemoteEndpoint endpoint = endpointFor(provider);
      endpoint.api_key = KeyStore::readPlaintext(keychainAccount(provider), &error);
      if (!error.isEmpty())
        return window_->showError(tr("Benchmark"), tr("The API key could not be read: ") + error);
      return showBenchmark(endpoint, model);
    }
    case KeySource::Keychain:
      key_store_.read(keychainAccount(provider),
                      [this, provider, model](QString key, QString error) {
                        if (!error.isEmpty()) return window_->showError(tr("Benchmark"), error);
                        RemoteEndpoint endpoint = endpointFor(provider);
                        endpoint.api_key = key;
                        showBenchmark(endpoint, model);
                      });
      return;
  }
}

void ChatController::showBenchmark(const RemoteEndpoint& endpoint, const QString& model) {
  if (benchmark_) benchmark_->close();
  benchmark_ = new BenchmarkDialog(endpoint, model, runs_.get(), window_);
  benchmark_->setObjectName("benchmarkDialog");
  benchmark_->setAttribute(Qt::WA_DeleteOnClose);
  connect(benchmark_, &BenchmarkDialog::sweepFinished, &history_, &HistoryController::refresh);
  benchmark_->show();
}

void ChatController::showAbout() {
  const engine::CudaAvailability cuda = engine::probeCuda();
  const auto cudaVersion = [](int v) { return QString("%1.%2").arg(v / 1000).arg(v % 1000 / 10); };
  QString gpu;
  if (cuda.usable) {
    QStringList devices;
    for (const auto& d : cuda.devices) devices << QString::fromStdString(d.name);
    gpu = tr("CUDA driver %1, runtime %2: %3")
              .arg(cudaVersion(cuda.driver_version), cudaVersion(cuda.runtime_version),
                   devices.join(", "));
  } else {
    gpu = tr("CUDA: not used (%1)").arg(QString::fromStdString(cuda.reason));
  }
  auto* box = new QMessageBox(QMessageBox::Information, tr("About TokenScope"),
                              tr("<b>TokenScope %1</b><br>An LLM inference playground: chat, "
                                 "measure every token, compare and benchmark.")
                                  .arg(TOKENSCOPE_VERSION),
                              QMessageBox::Close, window_);
  box->setObjectName("aboutBox");
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setInformativeText(
      tr("Qt %1 (built with %2)<br>sentencepiece %3<br>%4")
          .arg(qVersion(), QT_VERSION_STR, TOKENSCOPE_SENTENCEPIECE_VERSION, gpu.toHtmlEscaped()));
  box->show();
}

void ChatController::onFinished(const RemoteResult& result) {
  window_->onRunWarnings(result.warnings);
  QByteArray line;
  const QString error =
      appendRunLog(log_dir_, last_request_, result.run,
                   {last_root_, result.final_url, result.attempts, result.warnings}, &line);
  if (finished_recording_ >= 0 && error.isEmpty())
    runs_->setImportKey(finished_recording_, line);  // importing the log adds it not twice
  finished_recording_ = -1;
  if (!error.isEmpty()) window_->showStatus(tr("Run not logged: ") + error);
  emit runLogged(error);
}

void ChatController::applyConfig(const config::EffectiveConfig& config, bool keep_log_dir) {
  config_ = config;
  std::vector<ProviderSettings> providers = window_->providers();
  const int current = upsertProvider(providers, providerFromConfig(config));
  window_->setProviders(providers, current);
  SamplingParams params = window_->parameterPanel()->params();
  params.temperature = config.value("inference.temperature").toDouble();
  params.top_p = config.value("inference.top_p").toDouble();
  params.max_tokens = config.value("inference.max_tokens").toInt();
  params.stream = config.value("inference.stream").toBool();
  window_->parameterPanel()->setParams(params);
  if (!keep_log_dir) log_dir_ = config.value("observability.log_dir").toString();
  log_ttft_ = config.value("observability.log_ttft").toBool();
  log_tpot_ = config.value("observability.log_tpot").toBool();
  if (persist_) store_.save({providers, current});
}

config::EffectiveConfig ChatController::effectiveConfig() const {
  config::EffectiveConfig effective = config_;
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
  ui.insert("observability.log_dir", log_dir_);
  ui.insert("observability.log_ttft", log_ttft_);
  ui.insert("observability.log_tpot", log_tpot_);
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

QString ChatController::importConfig(const QString& path) {
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
  applyConfig(imported);
  return {};
}

QString ChatController::exportConfig(const QString& path) const {
  return config::writeConfigFile(path, effectiveConfig().values());
}

void ChatController::showEffectiveConfig() {
  const config::EffectiveConfig effective = effectiveConfig();
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
  dialog->setSummary(effective.configFile.isEmpty()
                         ? tr("No configuration file is in use.")
                         : tr("Configuration file: ") + effective.configFile);
  dialog->show();
}

void ChatController::runDoctor(const ProviderSettings& provider) {
  auto* dialog = new ui::TableDialog(
      tr("Connection doctor — ") + QString::fromStdString(provider.name),
      {tr("Step"), tr("Result"), "HTTP", "URL", tr("What happened / fix")}, window_);
  dialog->setObjectName("doctorDialog");
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setActionLabel(tr("Run again"));
  auto* doctor = new ConnectionDoctor(dialog);
  connect(doctor, &ConnectionDoctor::stepFinished, dialog, [dialog](const DoctorStep& s) {
    const QString result = s.skipped ? "skipped" : s.ok ? "pass" : "FAIL";
    const QString detail = s.fix.isEmpty() ? s.message : s.message + tr("\nFix: ") + s.fix;
    dialog->addRow({s.name, result, s.http_status ? QString::number(s.http_status) : QString(),
                    s.final_url, detail},
                   s.skipped ? std::nullopt : std::optional<bool>(s.ok));
  });
  connect(doctor, &ConnectionDoctor::finished, dialog, [dialog, doctor] {
    const DoctorReport& r = doctor->report();
    const auto tri = [](const std::optional<bool>& b, const QString& yes, const QString& no) {
      return b ? (*b ? yes : no) : tr("unknown");
    };
    dialog->setSummary(tr("%1 · stream_options: %2 · usage chunk: %3")
                           .arg(r.ok() ? tr("All steps passed") : tr("Problems found"),
                                tri(r.accepts_stream_options, tr("accepted"), tr("rejected")),
                                tri(r.sends_usage, tr("sent"), tr("not sent"))));
    dialog->actionButton()->setEnabled(true);
  });
  const auto start = [dialog, doctor, provider] {
    dialog->clearRows();
    dialog->setSummary(tr("Running…"));
    dialog->actionButton()->setEnabled(false);
    doctor->start(endpointFor(provider), QString::fromStdString(provider.default_model));
  };
  connect(dialog, &ui::TableDialog::actionClicked, doctor, start);
  dialog->show();
  start();
}

}  // namespace ts
