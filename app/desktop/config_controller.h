// The configuration (config.toml / settings.json, environment, command line): making one
// current (its provider selected, its inference values in the parameter panel, its
// observability settings steering the run log), importing and exporting it, and the
// effective-configuration table with where each value came from. An export never writes a
// file the next start reads without asking; a start that applies a file from the working
// directory (or $TOKENSCOPE_CONFIG) says so in the status bar.
#pragma once
#include <QObject>

#include "app/config/effective_config.h"
#include "app/desktop/chat_controller.h"
#include "app/desktop/provider_controller.h"
#include "ui/main_window.h"

namespace ts {

class ConfigController : public QObject {
  Q_OBJECT
 public:
  // `config`: the configuration in effect, kept outside (it outlives a rebuilt window).
  ConfigController(ui::MainWindow* window, ProviderController* providers, ChatController* chat,
                   config::EffectiveConfig* config, QObject* parent = nullptr);
  // Makes a configuration current: its provider is added (or replaced, by name) and
  // selected, its inference values fill the parameter panel, its observability settings
  // steer the run log (unless the log directory was given on the command line).
  void apply(const config::EffectiveConfig& config, bool keep_log_dir = false);
  // The effective configuration with what the UI now shows marked "set in the UI".
  config::EffectiveConfig effective() const;
  QString importFile(const QString& path);  // "" on success, else the errors
  QString exportFile(const QString& path) const;

 private:
  void showEffective();
  // MainWindow::exportConfigRequested: `chosen` "" asks where (starting at a path no start
  // reads); a path a start reads is written only after the user confirms.
  void exportAsked(const QString& chosen);

  ui::MainWindow* window_;
  ProviderController* providers_;
  ChatController* chat_;
  config::EffectiveConfig* config_;
};

}  // namespace ts
