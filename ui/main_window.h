// The main window: provider and model on top, the chat on the left with the metrics
// strip under it, parameters and the live latency chart on the right. It holds widgets
// and formatting only: requests leave as signals, events arrive as values, and text /
// chart updates are batched once per frame so 1,000 tokens/s do not flood the UI.
#pragma once
#include <QElapsedTimer>
#include <QMainWindow>
#include <QTimer>
#include <functional>
#include <optional>
#include <vector>

#include "inference/stream/generation_request.h"
#include "inference/stream/metrics.h"
#include "inference/stream/provider_settings.h"
#include "ui/provider_dialog.h"

class QActionGroup;
class QMenu;
class QComboBox;
class QLineEdit;

class QScrollArea;
class QSplitter;

namespace ts::ui {

class ChatPanel;
class AcceptanceChart;
class LatencyChart;
class MetricsStrip;
class ParameterPanel;

// Provider → Serve the local model, as the action shows it.
enum class ServeState { Off, Starting, On, Stopping };

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);

  void setUrlPreview(UrlPreview preview) { url_preview_ = std::move(preview); }
  // The Serve action's state: checked while the local server starts or runs, and saying
  // so while it starts or stops.
  void setServeState(ServeState state);
  // A lasting red mark at the right of the status bar while Serve is exposed (every network
  // without a key), with `text` on hover; "" removes it.
  void setServeWarning(const QString& text);
  void setProviderPresets(std::vector<ProviderSettings> presets) { presets_ = std::move(presets); }
  void manageProviders();  // the providers dialog
  // Ticks the language the user chose: "system", "en" or "zh_CN".
  void setChosenLanguage(const QString& code);
  void setChosenTheme(const QString& code);  // "system" | "light" | "dark": checks the menu
  void setProviders(const std::vector<ProviderSettings>& providers, int current);
  const std::vector<ProviderSettings>& providers() const { return providers_; }
  int currentProvider() const;
  void setModel(const QString& model);
  // Window geometry, toolbar/dock state and splitter sizes, for the next start.
  QByteArray saveLayout() const;
  void restoreLayout(const QByteArray& layout);
  // The conversation so far as Markdown (.md) or JSON (.json, {provider, model, messages});
  // returns "" or why the file could not be written.
  QString exportChat(const QString& path) const;
  // Sends `request` again: selects the provider named `provider`, restores the model, the
  // parameters, the system prompt and the earlier turns, and sends its last user message.
  // Returns "" or why it cannot (no such provider, a run in progress).
  QString runAgain(const QString& provider, const GenerationRequest& request);
  QString model() const;
  // The selected provider with the model box's value as its model; nullopt when none.
  std::optional<ProviderSettings> currentProviderSettings() const;
  void showError(const QString& title, const QString& text);
  // Replaces the provider with the same name, keeps the selection, reports the edit.
  void replaceProvider(const ProviderSettings& provider);
  // Fills the model picker (keeping what is typed) and shows `status`.
  void setModelList(const QStringList& ids, const QString& status);

  ChatPanel* chatPanel() const { return chat_; }
  ParameterPanel* parameterPanel() const { return parameters_; }
  MetricsStrip* metricsStrip() const { return metrics_; }
  LatencyChart* latencyChart() const { return chart_; }
  AcceptanceChart* acceptanceChart() const { return acceptance_; }
  const RecordedRun& currentRun() const { return recorder_.run(); }
  bool isRunning() const { return running_; }

 public slots:
  void send();
  void stop();
  void newChat();
  void onStreamEvent(const ts::StreamEvent& event);
  // After the terminal event: things the user should know that did not fail the run.
  void onRunWarnings(const QStringList& warnings);
  void showStatus(const QString& message);
  // A lasting mark at the right of the status bar that the local model runs on the CPU
  // although CUDA was asked for, with why on hover (`reason`; empty removes the mark).
  void setCpuFallback(const QString& reason);
  void showShortcuts();  // Help → Keyboard shortcuts: every key the window knows

 signals:
  void sendRequested(const ts::ProviderSettings& provider, const ts::GenerationRequest& request);
  void stopRequested();
  void providersEdited(const std::vector<ts::ProviderSettings>& providers, int current);
  void currentProviderChanged();  // another provider is selected, or the list was replaced
  void runDisplayed();            // the terminal event has been painted
  void doctorRequested(const ts::ProviderSettings& provider);
  void apiKeyRequested(const ts::ProviderSettings& provider);
  void modelsRequested(const ts::ProviderSettings& provider);
  void importConfigRequested(const QString& path);
  void exportConfigRequested(const QString& path);
  void effectiveConfigRequested();
  void downloadRequested();
  void modelManagerRequested();   // Provider → Open a local model…
  void historyRequested();        // View → Run history…
  void compareLatestRequested();  // View → Compare the last two runs
  void aboutRequested();          // Help → About TokenScope
  void benchmarkRequested(const ts::ProviderSettings& provider);  // Provider → Benchmark…
  void serveRequested(const ts::ProviderSettings& provider);
  void stopServingRequested();
  void serveSettingsRequested();  // Provider → Serve settings…
  void languageChosen(const QString& code);
  void themeChosen(const QString& code);  // View → Theme

 private:
  void buildToolbar();
  void buildMenus();
  void flushFrame();
  void finishRun(const StreamEvent& end);
  void refreshProviderCombo(int current);
  // A submenu of exclusive choices (code, label); actions named `name_prefix` + code.
  QActionGroup* addChoiceMenu(QMenu* menu, const QString& name_prefix,
                              const std::vector<std::pair<QString, QString>>& choices,
                              const std::function<void(const QString&)>& chosen);
  static void checkChoice(QActionGroup* group, const QString& code);
  void editProvider(bool create);
  bool eventFilter(QObject* watched, QEvent* event) override;
  // The parameters' scroll area's minimum height: their own, within 60% of the column.
  void fitParameters();
  void removeProvider();
  void requestDoctor();

  std::vector<ProviderSettings> providers_;
  std::vector<ProviderSettings> presets_;
  QActionGroup* languages_ = nullptr;
  QActionGroup* themes_ = nullptr;
  QAction* serve_action_ = nullptr;
  UrlPreview url_preview_;
  QLabel* cpu_fallback_ = nullptr;
  QLabel* serve_warning_ = nullptr;
  QComboBox* provider_combo_;
  QComboBox* model_combo_;
  ChatPanel* chat_;
  ParameterPanel* parameters_;
  MetricsStrip* metrics_;
  LatencyChart* chart_;
  AcceptanceChart* acceptance_;  // speculative runs only

  QSplitter* split_ = nullptr;                // chat | parameters and charts
  QSplitter* right_split_ = nullptr;          // parameters / latency chart / acceptance chart
  QScrollArea* parameters_scroll_ = nullptr;  // holds the parameter panel
  std::vector<ChatMessage> history_;          // the conversation so far, sent with each message
  RunRecorder recorder_;                      // the run being displayed
  QList<QPair<QString, bool>> pending_text_;  // (text, drafted) arrived since the last frame
  QTimer frame_timer_;
  QElapsedTimer chart_clock_;  // since the chart and metrics were last refreshed
  bool running_ = false;
};

}  // namespace ts::ui
