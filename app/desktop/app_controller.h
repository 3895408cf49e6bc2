// The desktop app's composition root: one controller per concern, each wired to the main
// window's intents, and the accessors the entry point, the first-run welcome and the tests
// use. It owns them; the window only emits intents and shows values.
#pragma once
#include <QObject>
#include <memory>

#include "app/desktop/benchmark_controller.h"
#include "app/desktop/chat_controller.h"
#include "app/desktop/config_controller.h"
#include "app/desktop/download_controller.h"
#include "app/desktop/history_controller.h"
#include "app/desktop/model_manager.h"
#include "app/desktop/preferences_controller.h"
#include "app/desktop/provider_controller.h"
#include "app/desktop/provider_keys.h"
#include "app/desktop/serving_controller.h"
#include "ui/main_window.h"

namespace ts {

class AppController : public QObject {
  Q_OBJECT
 public:
  // persist_providers = false: edits stay in memory (a provider given on the command line).
  AppController(ui::MainWindow* window, ProviderStore store, QString log_dir,
                bool persist_providers, QObject* parent = nullptr);

  ChatSession& session() { return chat_.session(); }
  ConversationController& conversation() { return chat_.conversation(); }
  LocalServing& serving() { return serving_.serving(); }
  ModelManager& modelManager() { return model_manager_; }
  HistoryController& history() { return history_; }
  PreferencesController& preferences() { return preferences_; }
  ui::BenchmarkDialog* benchmark() const { return benchmark_.dialog(); }
  const BenchmarkController& benchmarks() const { return benchmark_; }
  // Where every run is recorded (ChatController::setRunStore); the history reads it.
  void setRunStore(std::unique_ptr<RunStore> store);
  RunStore* runStore() const { return chat_.runStore(); }
  void applyConfig(const config::EffectiveConfig& config, bool keep_log_dir = false) {
    config_.apply(config, keep_log_dir);
  }
  config::EffectiveConfig effectiveConfig() const { return config_.effective(); }
  QString importConfig(const QString& path) { return config_.importFile(path); }
  QString exportConfig(const QString& path) const { return config_.exportFile(path); }
  void setDownloadHub(const QString& base_url) { downloads_.setHub(base_url); }

 signals:
  void runLogged(const QString& error);  // empty on success

 private:
  // The model manager, on the current local provider's model and settings when there is one.
  void openModelManager();
  // A model loaded by the model manager becomes the current provider.
  // The parameter panel's line of the current local model's suggested settings.
  void showModelSuggestions();
  void useLoadedModel(const QString& path, const LocalEngineSettings& settings);

  ui::MainWindow* window_;
  ProviderKeys keys_;
  ProviderController providers_;
  ChatController chat_;
  ConfigController config_;
  ServingController serving_;
  DownloadController downloads_;
  ModelManager model_manager_;
  HistoryController history_;
  BenchmarkController benchmark_;
  PreferencesController preferences_;
};

}  // namespace ts
