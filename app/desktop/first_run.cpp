#include "app/desktop/first_run.h"

#include "app/desktop/ui_settings.h"
#include "ui/chat_panel.h"

namespace ts {

bool welcomeDone() {
  return uiSettings().value("welcomeDone", false).toBool();
}

void setWelcomeDone() {
  uiSettings().setValue("welcomeDone", true);
}

ui::WelcomeDialog* showWelcome(ui::MainWindow* window, AppController* controller) {
  auto* dialog = new ui::WelcomeDialog(window);
  dialog->setObjectName("welcomeDialog");
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  QObject::connect(dialog, &QDialog::finished, dialog, [] { setWelcomeDone(); });
  QObject::connect(dialog, &ui::WelcomeDialog::chosen, controller,
                   [window, controller](ui::WelcomeDialog::Choice choice) {
                     setWelcomeDone();
                     switch (choice) {
                       case ui::WelcomeDialog::Choice::ApiKey: {
                         // TaoToken selected (added from the presets when missing), then its key.
                         std::vector<ProviderSettings> providers = window->providers();
                         auto it = std::find_if(
                             providers.begin(), providers.end(),
                             [](const ProviderSettings& p) { return p.id == "taotoken"; });
                         if (it == providers.end()) {
                           providers.push_back(ProviderStore::presets().providers.front());
                           it = std::prev(providers.end());
                         }
                         const int index = static_cast<int>(it - providers.begin());
                         window->setProviders(providers, index);
                         emit window->providersEdited(providers, index);
                         emit window->apiKeyRequested(providers[index]);
                         return;
                       }
                       case ui::WelcomeDialog::Choice::LocalModel:
                         controller->modelManager().open();
                         return;
                       case ui::WelcomeDialog::Choice::Download:
                         emit window->downloadRequested();
                         return;
                       case ui::WelcomeDialog::Choice::DemoModel:
                       case ui::WelcomeDialog::Choice::Skip:
                         window->chatPanel()->focusInput();
                         return;
                     }
                   });
  dialog->show();
  return dialog;
}

}  // namespace ts
