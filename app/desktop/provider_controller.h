// Providers: the list the window edits (saved to providers.json unless given on the command
// line), their API keys (the key dialog: test, then keep in the keychain, a 0600 file or
// an environment variable), the endpoint's model list and the connection doctor.
#pragma once
#include <QObject>
#include <utility>
#include <vector>

#include "app/config/provider_store.h"
#include "app/desktop/provider_keys.h"
#include "inference/remote/model_list.h"
#include "ui/api_key_dialog.h"
#include "ui/main_window.h"

namespace ts {

// For the provider dialog: the URL requests will go to, or the error (second = true).
std::pair<QString, bool> previewBaseUrl(const QString& typed);

class ProviderController : public QObject {
  Q_OBJECT
 public:
  // persist = false: edits stay in memory (a provider given on the command line).
  ProviderController(ui::MainWindow* window, ProviderKeys* keys, ProviderStore store, bool persist,
                     QObject* parent = nullptr);
  // Shows `providers` with `current` selected and saves them.
  void showAndSave(const std::vector<ProviderSettings>& providers, int current);
  void save(const std::vector<ProviderSettings>& providers, int current);
  // Selects the local provider for the model file at `path` with `settings` (adding one
  // named after the file when there is none) and saves; returns it.
  ProviderSettings selectLocalModel(const QString& path, const LocalEngineSettings& settings);

 private:
  void editApiKey(const ProviderSettings& provider);
  void saveApiKey(ProviderSettings provider, const ui::ApiKeyChoice& choice);
  void refreshModels(const ProviderSettings& provider);
  // A local provider gets the local doctor (its file, engine and the app's server).
  void runDoctor(const ProviderSettings& provider);
  void runLocalDoctor(const ProviderSettings& provider);
  // The chat's "Run this provider on the CPU" after a GPU failure: the current local
  // provider's backend becomes the CPU, saved.
  void runCurrentOnCpu();

  ui::MainWindow* window_;
  ProviderKeys* keys_;
  ProviderStore store_;
  bool persist_;
  ModelListFetcher models_;
};

}  // namespace ts
