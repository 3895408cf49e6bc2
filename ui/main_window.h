// The main window: provider and model on top, the chat on the left with the metrics
// strip under it, parameters and the live latency chart on the right. It assembles those
// panels and forwards intents: what the user asks for leaves as signals (the conversation
// and requests live in app/desktop's controllers), events arrive as values. It never asks
// for more than 1024 × 700 px.
#pragma once
#include <QMainWindow>
#include <functional>
#include <optional>
#include <vector>

#include "inference/stream/generation_request.h"
#include "inference/stream/metrics.h"
#include "inference/stream/provider_settings.h"
#include "inference/stream/run_recorder.h"
#include "ui/provider_dialog.h"

class QActionGroup;
class QMenu;
class QScrollArea;
class QSplitter;

namespace ts::ui {

class ChatPanel;
class AcceptanceChart;
class LatencyChart;
class MetricsStrip;
class ParameterPanel;
class ProviderBar;
class RunDisplay;
class WindowStatusBar;

// Provider → Serve the local model, as the action shows it.
enum class ServeState { Off, Starting, On, Stopping };

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);

  void setUrlPreview(UrlPreview preview);
  // The Serve action's state: checked while the local server starts or runs, and saying
  // so while it starts or stops.
  void setServeState(ServeState state);
  // A lasting red mark at the right of the status bar while Serve is exposed (every network
  // without a key), with `text` on hover; "" removes it.
  void setServeWarning(const QString& text);
  void setProviderPresets(std::vector<ProviderSettings> presets);
  void manageProviders();  // the providers dialog
  // Ticks the language the user chose: "system", "en" or "zh_CN".
  void setChosenLanguage(const QString& code);
  void setChosenTheme(const QString& code);  // "system" | "light" | "dark": checks the menu
  // The provider list and the model box live in the toolbar; these forward to it.
  void setProviders(const std::vector<ProviderSettings>& providers, int current);
  const std::vector<ProviderSettings>& providers() const;
  int currentProvider() const;
  void setModel(const QString& model);
  QString model() const;
  // The selected provider with the model box's value as its model; nullopt when none.
  std::optional<ProviderSettings> currentProviderSettings() const;
  // Replaces the provider with the same name, keeps the selection, reports the edit.
  void replaceProvider(const ProviderSettings& provider);
  // Fills the model picker (keeping what is typed) and shows `status`.
  void setModelList(const QStringList& ids, const QString& status);
  // Window geometry (within the screen), toolbar/dock state and splitter sizes.
  QByteArray saveLayout() const;
  void restoreLayout(const QByteArray& layout);
  // History → Run again: handled by whoever owns the conversation (setRunAgain); returns
  // "" or why it cannot.
  using RunAgain = std::function<QString(const QString& provider, const GenerationRequest&)>;
  void setRunAgain(RunAgain run_again) { run_again_ = std::move(run_again); }
  QString runAgain(const QString& provider, const GenerationRequest& request);
  void showError(const QString& title, const QString& text);
  bool ask(const QString& title, const QString& question);  // Yes / No; true: Yes
  // A new answer under `label`: the input is cleared and the run's events are shown.
  void beginRun(const QString& label);
  void clearConversation();  // the transcript, charts and metrics empty; focus the input
  // Something slow before the answer starts (what, percent or -1); "" ends it.
  void setPreparing(const QString& what, int percent);

  ChatPanel* chatPanel() const { return chat_; }
  ParameterPanel* parameterPanel() const { return parameters_; }
  MetricsStrip* metricsStrip() const { return metrics_; }
  LatencyChart* latencyChart() const { return chart_; }
  AcceptanceChart* acceptanceChart() const { return acceptance_; }
  ProviderBar* providerBar() const { return bar_; }
  QAction* markDraftedAction() const { return mark_drafted_; }
  QAction* renderMarkdownAction() const { return render_markdown_; }
  const RecordedRun& currentRun() const;
  bool isRunning() const;

 public slots:
  void send();  // asks for the input to be sent (submitRequested)
  void stop();
  void newChat();  // asks for a new conversation (newChatRequested)
  void onStreamEvent(const ts::StreamEvent& event);
  // After the terminal event: things the user should know that did not fail the run.
  void onRunWarnings(const QStringList& warnings);
  void showStatus(const QString& message);
  // A lasting mark at the right of the status bar that the local model runs on the CPU
  // although CUDA was asked for, with why on hover (`reason`; empty removes the mark).
  void setCpuFallback(const QString& reason);
  void showShortcuts();  // Help → Keyboard shortcuts: every key the window knows

 signals:
  void submitRequested();                         // Send: the input, to the conversation
  void newChatRequested();                        // File → New chat
  void exportChatRequested(const QString& path);  // File → Export chat…
  void answered(const QString& answer);           // a run's answer text, before runDisplayed
  void stopRequested();
  void providersEdited(const std::vector<ts::ProviderSettings>& providers, int current);
  void currentProviderChanged();  // another provider is selected, or the list was replaced
  void runDisplayed();            // the terminal event has been painted
  void doctorRequested(const ts::ProviderSettings& provider);
  void apiKeyRequested(const ts::ProviderSettings& provider);
  void modelsRequested(const ts::ProviderSettings& provider);
  void importConfigRequested(const QString& path);
  void exportConfigRequested(const QString& path);  // File → Export configuration: "" (ask)
  void effectiveConfigRequested();
  void downloadRequested();
  void modelManagerRequested();   // Provider → Open a local model… (Ctrl+O)
  void historyRequested();        // View → Run history…
  void compareLatestRequested();  // View → Compare the last two runs
  void aboutRequested();          // Help → About TokenScope
  void benchmarkRequested(const ts::ProviderSettings& provider);  // Provider → Benchmark…
  void serveRequested(const ts::ProviderSettings& provider);
  void stopServingRequested();
  void serveSettingsRequested();  // Provider → Serve settings…
  void leverLabRequested();       // Tools → Lever lab…, Provider → Try a lever…
  void languageChosen(const QString& code);
  void themeChosen(const QString& code);  // View → Theme

 private:
  QWidget* buildPanels();  // the central widget
  void buildMenus();       // main_window_menus.cpp
  void buildFileMenu();
  void buildProviderMenu();
  void buildViewMenu();  // with its Theme and Language submenus
  void buildToolsMenu();
  void buildHelpMenu();
  // A submenu of exclusive choices (code, label); actions named `name_prefix` + code.
  QActionGroup* addChoiceMenu(QMenu* menu, const QString& name_prefix,
                              const std::vector<std::pair<QString, QString>>& choices,
                              const std::function<void(const QString&)>& chosen);
  static void checkChoice(QActionGroup* group, const QString& code);
  bool eventFilter(QObject* watched, QEvent* event) override;
  // The parameters' scroll area's minimum size: their height within 60% of the column,
  // their whole minimum width.
  void fitParameters();

  ProviderBar* bar_;
  WindowStatusBar* status_;
  ChatPanel* chat_;
  ParameterPanel* parameters_;
  MetricsStrip* metrics_;
  LatencyChart* chart_;
  AcceptanceChart* acceptance_;  // speculative runs only
  RunDisplay* display_;
  QActionGroup* languages_ = nullptr;
  QActionGroup* themes_ = nullptr;
  QAction* serve_action_ = nullptr;
  QAction* mark_drafted_ = nullptr;
  QAction* render_markdown_ = nullptr;
  QSplitter* split_ = nullptr;                // chat | parameters and charts
  QSplitter* right_split_ = nullptr;          // parameters / latency chart / acceptance chart
  QScrollArea* parameters_scroll_ = nullptr;  // holds the parameter panel
  RunAgain run_again_;
};

}  // namespace ts::ui
