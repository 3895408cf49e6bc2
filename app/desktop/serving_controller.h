// Provider → Serve the local model: the current local provider's model behind the
// OpenAI-compatible server while the menu item is checked, where Provider → Serve settings
// say (this computer only, or every network) and with the API key they may require (kept in
// the keychain, made and shown once here). Serving to every network without a key is
// warned about loudly: in the settings and, while it lasts, in the status bar.
//
// While it serves, the server panel (a tool window, ui/server_panel.h) shows the address
// and the model id to use, the load and the last requests, and a status-bar button that
// stays opens it again; every request served is recorded in the run store, tagged "served", with
// the client's messages and parameters, so that History lists it.
#pragma once
#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <functional>
#include <memory>

#include "app/desktop/serve_settings.h"
#include "app/local/local_serving.h"
#include "app/store/run_store.h"
#include "ui/main_window.h"
#include "ui/serve_dialog.h"
#include "ui/server_panel.h"

class QToolButton;

namespace ts {

// Serving's part that outlives the window (a language switch rebuilds it): the server, and
// what its panel showed (the base URL, the last requests and the count served), so that a
// new panel carries on where the old one was.
struct ServingState {
  LocalServing serving;
  QString url;                  // the base URL while serving, else ""
  QList<ui::ServedRow> served;  // the last requests, oldest first (ServerPanel::kMaxRows)
  int served_total = 0;         // requests served (the panel shows the last kMaxRows)
  bool panel_shown = true;      // the panel's tool window was open
};

class ServingController : public QObject {
  Q_OBJECT
 public:
  // A server of its own, or `state`'s (which outlives this controller): a server running
  // there is shown at once (its panel, status-bar indicator and the Serve action's tick).
  explicit ServingController(ui::MainWindow* window, ServingState* state = nullptr,
                             QObject* parent = nullptr);
  ~ServingController() override;
  LocalServing& serving() { return serving_; }
  ui::ServeDialog* settingsDialog() const { return settings_; }
  ui::ServeKeyDialog* keyDialog() const { return key_dialog_; }
  ui::ServerPanel* panel() const { return panel_; }
  // Where served requests are recorded (the chat's store); none set: they are shown only.
  void setRunStore(std::function<RunStore*()> store) { store_ = std::move(store); }
  // The tag every served request's run carries.
  static constexpr const char* kServedTag = "served";
  // The provider a served request is stored under: data, the same in every language.
  static constexpr const char* kServedProvider = "TokenScope server";
  // The warning for serving on `host` with or without a key (server::exposureWarning's
  // rule, in the user's language); "" when only this computer can connect or a key is needed.
  static QString exposureWarning(const QString& host, bool has_key);

 signals:
  void runRecorded();  // a served request is in the run store (History may refresh)

 private:
  void serve(const ProviderSettings& provider);
  void startServing(const ProviderSettings& provider, const ServeOptions& options);
  void stopServing();
  void openSettings();
  void settingsAccepted(const ui::ServeChoice& choice);
  void showKeyOnce(const QString& key);
  void showState();  // the Serve action as serving_ stands
  void refuse(const QString& message);
  void buildPanel();
  void showServing(const QString& url);  // panel, indicator and load on
  void showLoad();                       // the engine's load, every second while serving
  void served(const ServedRun& run);     // into the panel and the run store
  void connectServing();
  void showRunningServer();  // a server that ran before this controller: as it stands

  ui::MainWindow* window_;
  std::unique_ptr<ServingState> own_state_;  // when no state was given
  ServingState* state_;
  LocalServing& serving_;
  ServeKeys keys_;
  QPointer<ui::ServeDialog> settings_;
  QPointer<ui::ServeKeyDialog> key_dialog_;
  int attempt_ = 0;  // Serve off while the key is read drops that start
  std::function<RunStore*()> store_;
  QPointer<QWidget> panel_window_;  // the panel's tool window (the window's child)
  ui::ServerPanel* panel_ = nullptr;
  QToolButton* indicator_ = nullptr;  // in the status bar while serving; opens the panel
  QTimer load_timer_;
  QElapsedTimer load_clock_;  // since the last load sample
  uint64_t generated_ = 0;    // the scheduler's generation_tokens at that sample
};

}  // namespace ts
