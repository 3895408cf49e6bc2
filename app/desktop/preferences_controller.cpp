#include "app/desktop/preferences_controller.h"

#include <QAction>
#include <QLocale>

#include "app/desktop/language.h"
#include "app/desktop/ui_settings.h"

namespace ts {

PreferencesController::PreferencesController(ui::MainWindow* window,
                                             std::function<QStringList()> unfinished,
                                             QObject* parent)
    : QObject(parent), window_(window), unfinished_(std::move(unfinished)) {
  // View toggles keep their state across starts (ui.ini, keyed by the action's name).
  for (QAction* action : {window->renderMarkdownAction(), window->markDraftedAction()}) {
    const QString key = "view/" + action->objectName();
    action->setChecked(uiSettings().value(key, action->isChecked()).toBool());
    connect(action, &QAction::toggled, this, [key](bool on) { uiSettings().setValue(key, on); });
  }
  window->setChosenLanguage(chosenLanguage());
  connect(window, &ui::MainWindow::languageChosen, this, &PreferencesController::chooseLanguage);
}

void PreferencesController::chooseLanguage(const QString& code) {
  const QString previous = chosenLanguage();
  if (code == previous) return;
  const QString before = effectiveLanguage();
  setChosenLanguage(code);
  if (effectiveLanguage() == before) return;  // the same language shown: nothing to rebuild
  const QStringList stops = unfinished_ ? unfinished_() : QStringList();
  const QString question =
      tr("Switching the language now stops %1. Switch now? The conversation, a running server "
         "and loaded models are kept.")
          .arg(QLocale().createSeparatedList(stops));
  if (!stops.isEmpty() && !window_->ask(tr("Language"), question)) {
    setChosenLanguage(previous);  // no change: the menu ticks what is shown
    window_->setChosenLanguage(previous);
    return;
  }
  emit languageChanged();
}

}  // namespace ts
