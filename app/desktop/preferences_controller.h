// The window's remembered choices: View toggles (Markdown rendering, draft-token marks)
// kept in ui.ini across starts, and View → Language (applied after a restart, offered at
// once).
#pragma once
#include <QObject>

#include "ui/main_window.h"

namespace ts {

class PreferencesController : public QObject {
  Q_OBJECT
 public:
  explicit PreferencesController(ui::MainWindow* window, QObject* parent = nullptr);

 private:
  void chooseLanguage(const QString& code);

  ui::MainWindow* window_;
};

}  // namespace ts
