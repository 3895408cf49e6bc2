// The window's remembered choices: View toggles (Markdown rendering, draft-token marks)
// kept in ui.ini across starts, and View → Language, which switches at once: the choice is
// stored and languageChanged() asks for the window to be rebuilt in the new language
// (WindowSession), keeping the conversation, the server and the loaded model. Only when
// the switch would stop something (a download, a benchmark, a model loading) is the user
// asked first; "No" keeps the language shown, and the menu ticks it.
#pragma once
#include <QObject>
#include <QStringList>
#include <functional>

#include "ui/main_window.h"

namespace ts {

class PreferencesController : public QObject {
  Q_OBJECT
 public:
  // `unfinished`: what a rebuilt window would stop now, in words ("a model download"); none
  // given: nothing.
  PreferencesController(ui::MainWindow* window, std::function<QStringList()> unfinished = {},
                        QObject* parent = nullptr);

 signals:
  // The language shown changes: the choice is stored; the window is to be rebuilt in it.
  void languageChanged();

 private:
  void chooseLanguage(const QString& code);

  ui::MainWindow* window_;
  std::function<QStringList()> unfinished_;
};

}  // namespace ts
