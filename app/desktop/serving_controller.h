// Provider → Serve the local model: the current local provider's model behind the
// OpenAI-compatible server while the menu item is checked, where Provider → Serve settings
// say (this computer only, or every network) and with the API key they may require (kept in
// the keychain, made and shown once here). Serving to every network without a key is
// warned about loudly: in the settings and, while it lasts, in the status bar.
#pragma once
#include <QObject>
#include <QPointer>

#include "app/desktop/serve_settings.h"
#include "app/local/local_serving.h"
#include "ui/main_window.h"
#include "ui/serve_dialog.h"

namespace ts {

class ServingController : public QObject {
  Q_OBJECT
 public:
  explicit ServingController(ui::MainWindow* window, QObject* parent = nullptr);
  LocalServing& serving() { return serving_; }
  ui::ServeDialog* settingsDialog() const { return settings_; }
  ui::ServeKeyDialog* keyDialog() const { return key_dialog_; }
  // The warning for serving on `host` with or without a key (server::exposureWarning's
  // rule, in the user's language); "" when only this computer can connect or a key is needed.
  static QString exposureWarning(const QString& host, bool has_key);

 private:
  void serve(const ProviderSettings& provider);
  void startServing(const ProviderSettings& provider, const ServeOptions& options);
  void stopServing();
  void openSettings();
  void settingsAccepted(const ui::ServeChoice& choice);
  void showKeyOnce(const QString& key);
  void showState();  // the Serve action as serving_ stands
  void refuse(const QString& message);

  ui::MainWindow* window_;
  LocalServing serving_;
  ServeKeys keys_;
  QPointer<ui::ServeDialog> settings_;
  QPointer<ui::ServeKeyDialog> key_dialog_;
  int attempt_ = 0;  // Serve off while the key is read drops that start
};

}  // namespace ts
