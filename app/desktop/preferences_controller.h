// The window's remembered choices: View toggles (Markdown rendering, draft-token marks)
// kept in ui.ini across starts, and View → Language (applied after a restart, offered at
// once; the conversation survives the restart, and "No" keeps the language shown).
#pragma once
#include <QObject>

#include "ui/main_window.h"

namespace ts {

class ConversationController;

class PreferencesController : public QObject {
  Q_OBJECT
 public:
  // Restores the conversation a language restart left behind (restartChatPath), once.
  PreferencesController(ui::MainWindow* window, ConversationController* conversation,
                        QObject* parent = nullptr);
  // Where the conversation waits across a language restart: <config dir>/restart-chat.json.
  static QString restartChatPath();

 signals:
  // The user agreed to restart in the new language; the conversation is saved. The app
  // restarts itself (AppController::restartRequested's receiver); tests only observe it.
  void restartRequested();

 private:
  void chooseLanguage(const QString& code);

  ui::MainWindow* window_;
  ConversationController* conversation_;
};

}  // namespace ts
