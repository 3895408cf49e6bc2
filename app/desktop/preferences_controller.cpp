#include "app/desktop/preferences_controller.h"

#include <QAction>
#include <QFile>

#include "app/desktop/conversation_controller.h"
#include "app/desktop/language.h"
#include "app/desktop/ui_settings.h"

namespace ts {

PreferencesController::PreferencesController(ui::MainWindow* window,
                                             ConversationController* conversation, QObject* parent)
    : QObject(parent), window_(window), conversation_(conversation) {
  // View toggles keep their state across starts (ui.ini, keyed by the action's name).
  for (QAction* action : {window->renderMarkdownAction(), window->markDraftedAction()}) {
    const QString key = "view/" + action->objectName();
    action->setChecked(uiSettings().value(key, action->isChecked()).toBool());
    connect(action, &QAction::toggled, this, [key](bool on) { uiSettings().setValue(key, on); });
  }
  window->setChosenLanguage(chosenLanguage());
  connect(window, &ui::MainWindow::languageChosen, this, &PreferencesController::chooseLanguage);
  if (QFile::exists(restartChatPath())) {
    const QString error = conversation_->importChat(restartChatPath());
    if (!error.isEmpty()) window_->showStatus(error);
    QFile::remove(restartChatPath());
  }
}

QString PreferencesController::restartChatPath() {
  return config::configDirectory() + "/restart-chat.json";
}

void PreferencesController::chooseLanguage(const QString& code) {
  const QString previous = chosenLanguage();
  if (code == previous) return;
  const QString before = effectiveLanguage();
  setChosenLanguage(code);
  if (effectiveLanguage() == before) return;  // the same language shown: nothing to restart
  const bool restart = window_->ask(
      tr("Language"),
      tr("The new language is used after TokenScope restarts. Restart now? Your providers, "
         "settings and the current conversation are kept."));
  if (!restart) {  // no change: the menu ticks what is shown
    setChosenLanguage(previous);
    window_->setChosenLanguage(previous);
    return;
  }
  if (window_->isRunning()) window_->stop();
  const QString error = conversation_->exportChat(restartChatPath());
  if (!error.isEmpty()) window_->showStatus(error);
  emit restartRequested();
}

}  // namespace ts
