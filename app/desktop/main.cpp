// tokenscope: the desktop app. Options exist for scripting (screenshots, demos):
//   --base-url URL --model NAME [--api-key-env VAR]  use this endpoint (not saved)
//   --send TEXT        send a message once the window is up
//   --screenshot PNG   after that run ends, save the window to PNG and quit
//   --log-dir DIR      where runs are appended (default <app data>/logs/infer)
//   --store FILE       the run store (default <app data>/runs.sqlite)
#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTimer>

#include "app/config/config_schema.h"
#include "app/desktop/app_controller.h"
#include "app/desktop/first_run.h"
#include "app/desktop/language.h"
#include "app/desktop/theme.h"
#include "app/desktop/ui_settings.h"
#include "app/local/demo_model.h"
#include "app/store/run_log.h"
#include "ui/chat_panel.h"
#include "ui/main_window.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("TokenScope");
  QApplication::setApplicationVersion(TOKENSCOPE_VERSION);
  QCommandLineParser p;
  p.setApplicationDescription(QCoreApplication::translate(
      "main", "TokenScope: chat with LLMs and measure TTFT, TPOT and ITL live."));
  p.addHelpOption();
  p.addVersionOption();
  p.addOptions(
      {{"base-url",
        QCoreApplication::translate("main", "Use this OpenAI-compatible endpoint (not saved)."),
        "URL"},
       {"model", QCoreApplication::translate("main", "Model id for --base-url."), "NAME",
        "default"},
       {"api-key-env",
        QCoreApplication::translate("main", "Environment variable holding the key for --base-url."),
        "VAR"},
       {"send", QCoreApplication::translate("main", "Send this message once the window is shown."),
        "TEXT"},
       {"screenshot",
        QCoreApplication::translate("main",
                                    "After the first run ends, save the window as PNG and quit."),
        "PNG"},
       {"log-dir", QCoreApplication::translate("main", "Directory for the JSON-lines run log."),
        "DIR"},
       {"store",
        QCoreApplication::translate("main",
                                    "The SQLite run store (default: runs.sqlite in the app's "
                                    "data folder)."),
        "FILE"},
       {"config",
        QCoreApplication::translate("main", "Configuration file (settings.json or config.toml)."),
        "FILE"}});
  p.process(app);
  ts::installTranslations(app);
  ts::ThemeController theme;  // light or dark before the first window is shown
  theme.setChoice(ts::chosenTheme());

  ts::ProviderStore store;
  QString load_error;
  ts::ProviderList list = store.load(&load_error);
  ts::config::ConfigFile config_file;
  QList<ts::config::ConfigIssue> env_issues;
  const ts::config::EffectiveConfig config = ts::config::resolveConfig(
      p.value("config"), QProcessEnvironment::systemEnvironment(), &config_file, &env_issues);
  const bool from_command_line = p.isSet("base-url");

  bool first_start = false;  // on the demo model: point at real models
  bool configured = !config.configFile.isEmpty();
  for (const auto& f : ts::config::fields())
    configured |= config.entry(f.key).source == ts::config::Source::Environment;
  // First start with nothing configured: open on a working local provider (no key, no
  // GPU, no network needed).
  if (!QFile::exists(store.path()) && !from_command_line && !configured) {
    list.providers.insert(list.providers.begin(), ts::readyDefaultProvider());
    list.current = 0;
    first_start = list.providers.front().id == "demo-model";
  }
  ts::ui::MainWindow window;
  window.setProviders(list.providers, list.current);
  ts::connectThemeMenu(&window, &theme);
  ts::AppController controller(&window, store,
                               p.isSet("log-dir") ? p.value("log-dir") : ts::defaultLogDir(),
                               !from_command_line);
  controller.setRunStore(std::make_unique<ts::RunStore>(
      p.isSet("store") ? p.value("store") : ts::RunStore::defaultPath()));
  if (configured) controller.applyConfig(config, p.isSet("log-dir"));
  if (from_command_line) {
    std::vector<ts::ProviderSettings> providers = window.providers();
    providers.insert(providers.begin(),
                     {"Command line", p.value("base-url").toStdString(),
                      p.value("model").toStdString(), p.value("api-key-env").toStdString(), 60, 2});
    window.setProviders(providers, 0);
  }
  QStringList problems;
  if (!load_error.isEmpty()) problems << load_error;
  if (!config_file.path.isEmpty() && !config_file.ok())
    problems << QCoreApplication::translate("main", "The configuration file was not used:\n") +
                    config_file.errorText();
  for (const auto& issue : env_issues) problems << issue.message;
  if (!problems.isEmpty()) {
    window.showStatus(problems.first().section('\n', 0, 0));
    QTimer::singleShot(0, &window, [&window, problems] {
      window.showError(QCoreApplication::translate("main", "Configuration problems"),
                       problems.join("\n\n"));
    });
  }
  if (first_start && problems.isEmpty())
    window.showStatus(QCoreApplication::translate(
        "main",
        "Demo model — random weights: its text is noise, its timings are real. For a "
        "real model: Provider → Download a model… (Ctrl+Shift+D)."));
  // View → Language, answered "Restart now": the conversation is saved; start again.
  QObject::connect(&controller.preferences(), &ts::PreferencesController::restartRequested, &app,
                   [] {
                     QProcess::startDetached(QCoreApplication::applicationFilePath(),
                                             QCoreApplication::arguments().mid(1));
                     QCoreApplication::quit();
                   });
  window.restoreLayout(ts::uiSettings().value("windowLayout").toByteArray());
  QObject::connect(&app, &QCoreApplication::aboutToQuit, &window,
                   [&window] { ts::uiSettings().setValue("windowLayout", window.saveLayout()); });
  window.show();
  // The welcome, once: a first start, not a scripted run (--send).
  if (first_start && problems.isEmpty() && !p.isSet("send") && !ts::welcomeDone())
    ts::showWelcome(&window, &controller);

  if (p.isSet("screenshot")) {
    const QString path = p.value("screenshot");
    QObject::connect(&controller, &ts::AppController::runLogged, &window, [&window, path] {
      QTimer::singleShot(300, &window, [&window, path] {  // let the last frame paint
        const bool ok = window.grab().save(path);
        std::fprintf(ok ? stdout : stderr, "%s %s\n", ok ? "saved" : "cannot save",
                     qPrintable(path));
        QApplication::exit(ok ? 0 : 1);
      });
    });
  }
  if (p.isSet("send")) {
    const QString text = p.value("send");
    QTimer::singleShot(200, &window, [&window, text] {
      window.chatPanel()->setInputText(text);
      window.send();
    });
  }
  return QApplication::exec();
}
