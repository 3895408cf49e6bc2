#include "app/desktop/provider_controller.h"

#include <QFileInfo>
#include <QPointer>
#include <QPushButton>

#include "app/local/local_doctor.h"
#include "app/local/local_serving.h"
#include "inference/remote/base_url.h"
#include "inference/remote/connection_doctor.h"
#include "ui/chat_panel.h"
#include "ui/table_dialog.h"

namespace ts {

std::pair<QString, bool> previewBaseUrl(const QString& typed) {
  const NormalizedBaseUrl n = normalizeBaseUrl(typed);
  if (!n.ok()) return {n.error, true};
  QString text = chatCompletionsUrl(n.root).toString();
  if (!n.notes.isEmpty()) text += " (" + n.notes.join("; ") + ")";
  return {text, false};
}

ProviderController::ProviderController(ui::MainWindow* window, ProviderKeys* keys,
                                       ProviderStore store, bool persist, QObject* parent)
    : QObject(parent), window_(window), keys_(keys), store_(std::move(store)), persist_(persist) {
  window->setUrlPreview(&previewBaseUrl);
  window->setProviderPresets(ProviderStore::presets().providers);
  connect(window, &ui::MainWindow::doctorRequested, this, &ProviderController::runDoctor);
  connect(window, &ui::MainWindow::apiKeyRequested, this, &ProviderController::editApiKey);
  connect(window, &ui::MainWindow::modelsRequested, this, &ProviderController::refreshModels);
  connect(&models_, &ModelListFetcher::finished, this, [this](const ModelList& list) {
    window_->setModelList(
        list.ids,
        list.ok() ? tr("%1 model(s) listed by the endpoint.").arg(list.ids.size()) : list.error);
  });
  connect(window, &ui::MainWindow::providersEdited, this, &ProviderController::save);
  connect(window->chatPanel(), &ui::ChatPanel::actionRequested, this, [this](const QString& name) {
    if (name == "use-cpu") runCurrentOnCpu();
  });
}

void ProviderController::runCurrentOnCpu() {
  std::vector<ProviderSettings> providers = window_->providers();
  const int current = window_->currentProvider();
  if (current < 0 || current >= static_cast<int>(providers.size()) ||
      providers[current].kind != ProviderKind::LocalEngine)
    return;
  providers[current].local.backend = "cpu";
  showAndSave(providers, current);
  window_->showStatus(tr("%1 runs on the CPU now (Provider → Edit… chooses the backend).")
                          .arg(QString::fromStdString(providers[current].name)));
}

void ProviderController::save(const std::vector<ProviderSettings>& providers, int current) {
  if (!persist_) return;
  const QString error = store_.save({providers, current});
  if (!error.isEmpty()) window_->showStatus(tr("Providers not saved: ") + error);
}

void ProviderController::showAndSave(const std::vector<ProviderSettings>& providers, int current) {
  window_->setProviders(providers, current);
  save(providers, current);
}

ProviderSettings ProviderController::selectLocalModel(const QString& path,
                                                      const LocalEngineSettings& settings) {
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
  const ProviderSettings selected = *it;
  showAndSave(providers, static_cast<int>(it - providers.begin()));
  return selected;
}

void ProviderController::refreshModels(const ProviderSettings& provider) {
  window_->showStatus(tr("Fetching the model list…"));
  keys_->resolve(provider, this, [this](RemoteEndpoint endpoint, QString error) {
    if (!error.isEmpty()) return window_->setModelList({}, error);
    models_.start(endpoint);
  });
}

void ProviderController::editApiKey(const ProviderSettings& provider) {
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

void ProviderController::saveApiKey(ProviderSettings provider, const ui::ApiKeyChoice& choice) {
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
      keys_->store().write(
          name, choice.key,
          [this, guard = QPointer(this), provider, shown, trimmed](QString error) mutable {
            if (!guard) return;  // the window was rebuilt meanwhile (the key is kept)
            if (!error.isEmpty()) return window_->showError(tr("API key not saved"), error);
            provider.key_source = KeySource::Keychain;
            window_->replaceProvider(provider);
            window_->showStatus(
                tr("The key for %1 is stored in the keychain%2.").arg(shown, trimmed));
          });
      return;
  }
}

void ProviderController::runLocalDoctor(const ProviderSettings& provider) {
  auto* dialog =
      new ui::TableDialog(tr("Local model doctor — ") + QString::fromStdString(provider.name),
                          {tr("Step"), tr("Result"), tr("What happened / fix")}, window_);
  dialog->setObjectName("doctorDialog");
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setActionLabel(tr("Run again"));
  auto* doctor = new LocalDoctor(dialog);
  doctor->setObjectName("localDoctor");
  connect(doctor, &LocalDoctor::stepFinished, dialog, [dialog](const DoctorStep& s) {
    const QString result = s.skipped ? tr("skipped") : s.ok ? tr("PASS") : tr("FAIL");
    const QString detail = s.fix.isEmpty() ? s.message : s.message + tr("\nFix: ") + s.fix;
    dialog->addRow({s.name, result, detail}, s.skipped ? std::nullopt : std::optional<bool>(s.ok));
  });
  connect(doctor, &LocalDoctor::finished, dialog, [dialog, doctor] {
    dialog->setSummary(doctor->ok() ? tr("All steps passed") : tr("Problems found"));
    dialog->actionButton()->setEnabled(true);
  });
  const auto start = [dialog, doctor, provider] {
    dialog->clearRows();
    dialog->setSummary(tr("Reading the model file and loading it…"));
    dialog->actionButton()->setEnabled(false);
    const LocalEngineSpec spec = localSpecFor(provider);
    doctor->start(spec, LocalServing::servedEndpoint(spec));
  };
  connect(dialog, &ui::TableDialog::actionClicked, doctor, start);
  dialog->show();
  start();
}

void ProviderController::runDoctor(const ProviderSettings& provider) {
  if (provider.kind == ProviderKind::LocalEngine) return runLocalDoctor(provider);
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
