// Wires the main window to the generation thread, the provider store and the run log.
#pragma once
#include <QObject>
#include <QPointer>

#include "app/bench/benchmark_dialog.h"
#include "app/chat_session.h"
#include "app/history_controller.h"
#include "app/key_store.h"
#include "app/local_serving.h"
#include "app/model_manager.h"
#include "app/provider_store.h"
#include "app/store/run_store.h"
#include "inference/remote/model_list.h"
#include "ui/api_key_dialog.h"
#include "ui/main_window.h"

namespace ts {

// For the provider dialog: the URL requests will go to, or the error (second = true).
std::pair<QString, bool> previewBaseUrl(const QString& typed);

class ChatController : public QObject {
  Q_OBJECT
 public:
  // persist_providers = false: edits stay in memory (a provider given on the command line).
  ChatController(ui::MainWindow* window, ProviderStore store, QString log_dir,
                 bool persist_providers, QObject* parent = nullptr);
  ChatSession& session() { return session_; }
  LocalServing& serving() { return serving_; }
  ModelManager& modelManager() { return model_manager_; }
  // Where every run is recorded as it streams (none: runs go to the run log only). Runs a
  // killed process left "running" are marked interrupted here.
  void setRunStore(std::unique_ptr<RunStore> store);
  RunStore* runStore() const { return runs_.get(); }
  HistoryController& history() { return history_; }
  BenchmarkDialog* benchmark() const { return benchmark_; }

  // Makes a configuration current: its provider is added (or replaced, by name) and
  // selected, its inference values fill the parameter panel, its observability settings
  // steer the run log (unless the log directory was given on the command line).
  void applyConfig(const config::EffectiveConfig& config, bool keep_log_dir = false);
  // The effective configuration with what the UI now shows marked "set in the UI".
  config::EffectiveConfig effectiveConfig() const;
  QString importConfig(const QString& path);  // "" on success, else the errors
  QString exportConfig(const QString& path) const;
  // The hub the download dialog uses for repository + file (a mirror in tests).
  void setDownloadHub(const QString& base_url) { download_hub_ = base_url; }

 signals:
  void runLogged(const QString& error);  // empty on success

 private:
  void onSend(const ProviderSettings& provider, const GenerationRequest& request);
  void saveProviders(const std::vector<ProviderSettings>& providers, int current);
  // For changes made here (not through the window's own editing, which saves by itself).
  void showAndSaveProviders(const std::vector<ProviderSettings>& providers, int current);
  void onFinished(const RemoteResult& result);
  void runDoctor(const ProviderSettings& provider);
  void editApiKey(const ProviderSettings& provider);
  void saveApiKey(ProviderSettings provider, const ui::ApiKeyChoice& choice);
  // Fills in a key from the keychain or the key file (asynchronously), then starts.
  void startWithKey(const ProviderSettings& provider, const GenerationRequest& request);
  void failBeforeStart(const QString& message);
  void beginRecording(const ProviderSettings& provider, const GenerationRequest& request);
  void recordEvent(const StreamEvent& event);
  void refreshModels(const ProviderSettings& provider);
  void showEffectiveConfig();
  // The download dialog, driving a ModelDownload into the models folder; "Use this model"
  // adds a local provider for the file and selects it.
  void openDownloads();
  // The model manager, on the current local provider's model and settings when there is one.
  void openModelManager();
  // A model loaded by the model manager becomes the current provider: the local provider
  // for that path (its settings replaced), or a new one named after the file.
  void useLoadedModel(const QString& path, const LocalEngineSettings& settings);
  // The benchmark dialog against the provider's endpoint (a local provider: the address
  // it is served at, once Provider → Serve runs).
  void openBenchmark(const ProviderSettings& provider);
  void showBenchmark(const RemoteEndpoint& endpoint, const QString& model);
  // Help → About: versions of TokenScope, Qt, sentencepiece, and CUDA (driver, runtime,
  // devices) or why there is none.
  void showAbout();

  ui::MainWindow* window_;
  ProviderStore store_;
  QString log_dir_;
  bool persist_;
  ChatSession session_;
  LocalServing serving_;
  ModelManager model_manager_;
  HistoryController history_;
  KeyStore key_store_;
  ModelListFetcher models_;
  GenerationRequest last_request_;
  QString last_root_;
  config::EffectiveConfig config_;
  bool log_ttft_ = true;
  bool log_tpot_ = true;
  QString download_hub_ = "https://huggingface.co";
  std::unique_ptr<RunStore> runs_;
  std::unique_ptr<RunStoreWriter> recording_;  // the run streaming now
  RecordedRun recorded_;
  qint64 finished_recording_ = -1;
  QPointer<BenchmarkDialog> benchmark_;  // recorded run whose log line is still to come
};

}  // namespace ts
