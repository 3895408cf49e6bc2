#include "app/desktop/window_session.h"

#include <QApplication>
#include <QTimer>

#include "app/desktop/language.h"
#include "app/desktop/theme.h"
#include "ui/chat_panel.h"
#include "ui/parameter_panel.h"

namespace ts {
namespace {
constexpr int kModalPollMs = 100;  // a switch waits while a modal dialog runs its own loop
}  // namespace

WindowSession::WindowSession(std::unique_ptr<AppState> state, ThemeController* theme,
                             const std::vector<ProviderSettings>& providers, int current,
                             QObject* parent)
    : QObject(parent), state_(std::move(state)), theme_(theme) {
  Carry first;
  first.providers = providers;
  first.current = current;
  build(first);
}

WindowSession::~WindowSession() {
  controller_.reset();  // before the window it wires; the state goes last
  window_.reset();
}

void WindowSession::build(const Carry& carry) {
  window_ = std::make_unique<ui::MainWindow>();
  ui::MainWindow* window = window_.get();
  window->setProviders(carry.providers, carry.current);
  if (!carry.model.isEmpty()) window->setModel(carry.model);
  if (theme_) connectThemeMenu(window, theme_);
  controller_ = std::make_unique<AppController>(window, state_.get());
  connect(controller_.get(), &AppController::runLogged, this, &WindowSession::runLogged);
  connect(controller_.get(), &AppController::languageChanged, this, &WindowSession::switchLanguage);
  connect(controller_.get(), &AppController::chatIdle, this, [this] {
    if (switching_) QTimer::singleShot(0, this, &WindowSession::rebuild);
  });
}

void WindowSession::switchLanguage() {
  if (switching_) return;  // one is on its way: it builds in the language chosen last
  switching_ = true;
  if (controller_->isChatBusy()) {  // the answer ends first (chatIdle), as Stop ends it
    window_->stop();
    window_->showStatus(tr("Stopping the answer: the language switches once it has stopped…"));
    return;
  }
  // Not from inside the old window's menu handler: it is about to be deleted.
  QTimer::singleShot(0, this, &WindowSession::rebuild);
}

WindowSession::Carry WindowSession::carryOf(const ui::MainWindow& old) {
  Carry carry;
  carry.layout = old.saveLayout();
  carry.geometry = old.geometry();
  carry.providers = old.providers();
  carry.current = old.currentProvider();
  carry.model = old.model();
  carry.params = old.parameterPanel()->params();
  carry.system_prompt = old.parameterPanel()->systemPrompt();
  carry.input = old.chatPanel()->inputText();
  carry.visible = old.isVisible();
  return carry;
}

void WindowSession::rebuild() {
  if (!switching_ || controller_->isChatBusy()) return;  // chatIdle calls again
  if (QApplication::activeModalWidget()) {  // an error or a question over the old window
    QTimer::singleShot(kModalPollMs, this, &WindowSession::rebuild);
    return;
  }
  switching_ = false;
  installTranslations(*QCoreApplication::instance());
  const Carry carry = carryOf(*window_);
  controller_.reset();  // detached from the state: nothing reaches the old window any more
  std::unique_ptr<ui::MainWindow> old_window = std::move(window_);
  build(carry);
  ui::MainWindow* window = window_.get();
  window->parameterPanel()->setParams(carry.params);
  window->parameterPanel()->setSystemPrompt(carry.system_prompt);
  window->chatPanel()->setInputText(carry.input);  // after the replayed transcript
  window->restoreLayout(carry.layout);
  if (!window->isMaximized() && !window->isFullScreen()) window->setGeometry(carry.geometry);
  window->showStatus(
      tr("Language switched: the conversation and what is loaded or served are "
         "kept."));
  if (carry.visible) {
    window->show();
    window->activateWindow();
  }
  old_window->hide();
  old_window.release()->deleteLater();  // its dialogs and History/Comparison windows with it
  emit rebuilt();
}

}  // namespace ts
