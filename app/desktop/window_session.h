// The desktop app's window and the controllers that wire it (AppController), over an
// AppState that outlives them. View → Language switches without a restart: a streaming
// answer is stopped first (the switch follows once it has ended), the new translations
// are installed, and a new window with new controllers takes the old one's place with its
// layout (geometry, splitters), providers, model, parameters, system prompt and typed
// input, while the conversation (with the local chat's cached token ids), the run store,
// a running server (same address, its requests) and the loaded models carry on. Windows
// opened from the old one (History, Comparison, dialogs) close with it.
#pragma once
#include <QObject>
#include <QRect>
#include <memory>
#include <vector>

#include "app/desktop/app_controller.h"
#include "app/desktop/app_state.h"
#include "ui/main_window.h"

namespace ts {

class ThemeController;

class WindowSession : public QObject {
  Q_OBJECT
 public:
  // Builds the first window (not shown) with `providers`, `current` selected.
  WindowSession(std::unique_ptr<AppState> state, ThemeController* theme,
                const std::vector<ProviderSettings>& providers, int current,
                QObject* parent = nullptr);
  ~WindowSession() override;
  ui::MainWindow* window() const { return window_.get(); }
  AppController* controller() const { return controller_.get(); }
  AppState& state() { return *state_; }

 signals:
  void runLogged(const QString& error);  // the current controller's (AppController::runLogged)
  void rebuilt();  // a new window, in the language now chosen, replaced the old one

 private:
  // What a new window takes over from the old one (besides the AppState).
  struct Carry {
    QByteArray layout;
    QRect geometry;  // the old window's, exactly (its layout's frame geometry may shift it)
    std::vector<ProviderSettings> providers;
    int current = -1;
    QString model;
    SamplingParams params;
    QString system_prompt;
    QString input;
    bool visible = false;
  };
  static Carry carryOf(const ui::MainWindow& old);
  void build(const Carry& carry);
  void switchLanguage();  // once the chat is idle: rebuild
  void rebuild();

  std::unique_ptr<AppState> state_;  // first: it outlives the window and controllers
  ThemeController* theme_;
  std::unique_ptr<ui::MainWindow> window_;
  std::unique_ptr<AppController> controller_;
  bool switching_ = false;  // a switch waits for the chat to be idle, or is queued
};

}  // namespace ts
