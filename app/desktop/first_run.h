// The first-run welcome (ui/welcome_dialog.h): shown once, on a first start with nothing
// configured; whatever is chosen (Skip included) marks it done in ui.ini, so it never
// comes back. The choice opens the matching part of the app.
#pragma once
#include "app/desktop/app_controller.h"
#include "ui/welcome_dialog.h"

namespace ts {

bool welcomeDone();
void setWelcomeDone();

// Shows the welcome over `window` (non-modal) and acts on the choice.
ui::WelcomeDialog* showWelcome(ui::MainWindow* window, AppController* controller);

}  // namespace ts
