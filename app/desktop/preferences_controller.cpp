#include "app/desktop/preferences_controller.h"

#include <QAction>
#include <QCoreApplication>
#include <QMessageBox>
#include <QProcess>

#include "app/desktop/language.h"
#include "app/desktop/ui_settings.h"

namespace ts {

PreferencesController::PreferencesController(ui::MainWindow* window, QObject* parent)
    : QObject(parent), window_(window) {
  // View toggles keep their state across starts (ui.ini, keyed by the action's name).
  for (const char* name : {"renderMarkdownAction", "markDraftedAction"})
    if (auto* action = window->findChild<QAction*>(name)) {
      const QString key = QString("view/") + name;
      action->setChecked(uiSettings().value(key, action->isChecked()).toBool());
      connect(action, &QAction::toggled, this, [key](bool on) { uiSettings().setValue(key, on); });
    }
  window->setChosenLanguage(chosenLanguage());
  connect(window, &ui::MainWindow::languageChosen, this, &PreferencesController::chooseLanguage);
}

void PreferencesController::chooseLanguage(const QString& code) {
  if (code == chosenLanguage()) return;
  const QString before = effectiveLanguage();
  setChosenLanguage(code);
  if (effectiveLanguage() == before) return;
  const auto answer = QMessageBox::question(
      window_, tr("Language"),
      tr("The new language is used after TokenScope restarts. Restart now? Your providers "
         "and settings are saved; the current conversation is not kept."));
  if (answer != QMessageBox::Yes) return;
  QProcess::startDetached(QCoreApplication::applicationFilePath(),
                          QCoreApplication::arguments().mid(1));
  QCoreApplication::quit();
}

}  // namespace ts
