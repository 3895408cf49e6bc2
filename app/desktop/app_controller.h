// The desktop app's composition root: one controller per concern, each wired to the main
// window's intents, and the accessors the entry point, the first-run welcome and the tests
// use. It owns them; the window only emits intents and shows values. What outlives the
// window (the conversation, the run store, the server, the loaded model) is an AppState,
// its own or one a WindowSession hands to each window it builds.
#pragma once
#include <QObject>
#include <QStringList>
#include <memory>

#include "app/desktop/app_state.h"
#include "app/desktop/benchmark_controller.h"
#include "app/desktop/chat_controller.h"
#include "app/desktop/config_controller.h"
#include "app/desktop/download_controller.h"
#include "app/desktop/history_controller.h"
#include "app/desktop/lab_controller.h"
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
  // Wires `window` to `state`, which outlives this controller, showing what it holds (the
  // conversation, a running server).
  AppController(ui::MainWindow* window, AppState* state, QObject* parent = nullptr);
  ~AppController() override;

  ChatSession& session() { return chat_.session(); }
  ConversationController& conversation() { return chat_.conversation(); }
  LocalServing& serving() { return serving_.serving(); }
  ModelManager& modelManager() { return state_->models; }
  AppState& state() { return *state_; }
  // What rebuilding the window would stop now, in words (a download, a benchmark, a model
  // loading); empty: nothing.
  QStringList unfinishedWork() const;
  // A run is shown or not yet logged; idle() follows when it is over.
  bool isChatBusy() const { return chat_.isBusy(); }
  HistoryController& history() { return history_; }
  PreferencesController& preferences() { return preferences_; }
  ui::BenchmarkDialog* benchmark() const { return benchmark_.dialog(); }
  const BenchmarkController& benchmarks() const { return benchmark_; }
  LabController& lab() { return lab_; }
  // Where every run is recorded (ChatController::setRunStore); the history reads it.
  void setRunStore(std::unique_ptr<RunStore> store);
  RunStore* runStore() const { return chat_.runStore(); }
  void applyConfig(const config::EffectiveConfig& config, bool keep_log_dir = false) {
    config_.apply(config, keep_log_dir);
  }
  config::EffectiveConfig effectiveConfig() const { return config_.effective(); }
  QString importConfig(const QString& path) { return config_.importFile(path); }
  QString exportConfig(const QString& path) const { return config_.exportFile(path); }
  void setDownloadHub(const QString& base_url);

 signals:
  void runLogged(const QString& error);  // empty on success
  void chatIdle();                       // isChatBusy() became false
  void languageChanged();  // View → Language chose another language shown (stored already)

 private:
  // The model manager, on the current local provider's model and settings when there is one.
  void openModelManager();
  // A model loaded by the model manager becomes the current provider.
  // The parameter panel's line of the current local model's suggested settings.
  void showModelSuggestions();
  void useLoadedModel(const QString& path, const LocalEngineSettings& settings);
  // "" or why the lever lab must not start now (its timings would be disturbed).
  QString labBlocker() const;

  AppController(ui::MainWindow* window, std::unique_ptr<AppState> owned, AppState* state,
                QObject* parent);

  std::unique_ptr<AppState> owned_state_;  // first: it outlives the controllers below
  AppState* state_;
  ui::MainWindow* window_;
  ProviderController providers_;
  ChatController chat_;
  ConfigController config_;
  ServingController serving_;
  DownloadController downloads_;
  HistoryController history_;
  BenchmarkController benchmark_;
  PreferencesController preferences_;
  LabController lab_;
};

}  // namespace ts
