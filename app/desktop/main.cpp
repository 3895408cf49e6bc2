// tokenscope: the desktop app. Options exist for scripting (screenshots, demos):
//   --base-url URL --model NAME [--api-key-env VAR]  use this endpoint (not saved)
//   --send TEXT        send a message once the window is up
//   --screenshot PNG   after that run ends, save the window to PNG and quit
//   --log-dir DIR      where runs are appended (default <app data>/logs/infer)
//   --store FILE       the run store (default <app data>/runs.sqlite)
//   --config FILE      configuration file (settings.json or config.toml)
// main reads as its steps: parse the options, read the configuration, build the window
// session (the window and its controllers over the state that outlives a language
// switch), say what went wrong, show it, and run the scripted --send / --screenshot.
#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>
#include <QProcessEnvironment>
#include <QTimer>

#include "app/config/config_schema.h"
#include "app/desktop/first_run.h"
#include "app/desktop/language.h"
#include "app/desktop/theme.h"
#include "app/desktop/ui_settings.h"
#include "app/desktop/window_session.h"
#include "app/local/demo_model.h"
#include "app/store/run_log.h"
#include "ui/chat_panel.h"
#include "ui/main_window.h"

namespace {

void addOptions(QCommandLineParser& p) {
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
        QCoreApplication::translate(
            "main", "The SQLite run store (default: runs.sqlite in the app's data folder)."),
        "FILE"},
       {"config",
        QCoreApplication::translate("main", "Configuration file (settings.json or config.toml)."),
        "FILE"}});
}

// What the start found: the providers to show, the configuration, and what went wrong.
struct Start {
  ts::ProviderStore store;
  ts::ProviderList list;
  ts::config::EffectiveConfig config;
  bool configured = false;         // a configuration file or environment variable is in use
  bool from_command_line = false;  // --base-url
  bool first_start = false;        // on the demo model: point at real models
  QStringList problems;            // for the user, first line in the status bar
};

Start readConfiguration(const QCommandLineParser& p) {
  Start s;
  QString load_error;
  s.list = s.store.load(&load_error);
  ts::config::ConfigFile config_file;
  QList<ts::config::ConfigIssue> env_issues;
  s.config = ts::config::resolveConfig(p.value("config"), QProcessEnvironment::systemEnvironment(),
                                       &config_file, &env_issues);
  s.from_command_line = p.isSet("base-url");
  s.configured = !s.config.configFile.isEmpty();
  for (const auto& f : ts::config::fields())
    s.configured |= s.config.entry(f.key).source == ts::config::Source::Environment;
  // First start with nothing configured: open on a working local provider (no key, no
  // GPU, no network needed).
  if (!QFile::exists(s.store.path()) && !s.from_command_line && !s.configured) {
    s.list.providers.insert(s.list.providers.begin(), ts::readyDefaultProvider());
    s.list.current = 0;
    s.first_start = s.list.providers.front().id == "demo-model";
  }
  if (!load_error.isEmpty()) s.problems << load_error;
  if (!config_file.path.isEmpty() && !config_file.ok())
    s.problems << QCoreApplication::translate("main", "The configuration file was not used:\n") +
                      config_file.errorText();
  for (const auto& issue : env_issues) s.problems << issue.message;
  return s;
}

// The window and its controllers, configured as the start says.
std::unique_ptr<ts::WindowSession> buildSession(const QCommandLineParser& p, const Start& s,
                                                ts::ThemeController* theme) {
  auto state = std::make_unique<ts::AppState>(
      s.store, p.isSet("log-dir") ? p.value("log-dir") : ts::defaultLogDir(), !s.from_command_line);
  auto session = std::make_unique<ts::WindowSession>(std::move(state), theme, s.list.providers,
                                                     s.list.current);
  ts::AppController* controller = session->controller();
  ts::ui::MainWindow* window = session->window();
  controller->setRunStore(std::make_unique<ts::RunStore>(
      p.isSet("store") ? p.value("store") : ts::RunStore::defaultPath()));
  if (s.configured) controller->applyConfig(s.config, p.isSet("log-dir"));
  if (s.from_command_line) {
    std::vector<ts::ProviderSettings> providers = window->providers();
    providers.insert(providers.begin(),
                     {"Command line", p.value("base-url").toStdString(),
                      p.value("model").toStdString(), p.value("api-key-env").toStdString(), 60, 2});
    window->setProviders(providers, 0);
  }
  return session;
}

// The configuration's problems (first line in the status bar, all of them in a dialog), or
// on the demo model what it is.
void reportStart(ts::ui::MainWindow* window, const Start& s) {
  if (!s.problems.isEmpty()) {
    window->showStatus(s.problems.first().section('\n', 0, 0));
    QTimer::singleShot(0, window, [window, problems = s.problems] {
      window->showError(QCoreApplication::translate("main", "Configuration problems"),
                        problems.join("\n\n"));
    });
  } else if (s.first_start) {
    window->showStatus(QCoreApplication::translate(
        "main",
        "Demo model — random weights: its text is noise, its timings are real. For a "
        "real model: Provider → Download a model… (Ctrl+Shift+D)."));
  }
}

// The window where it was left; its layout is kept when the app quits.
void showWindow(QApplication& app, ts::WindowSession& session) {
  session.window()->restoreLayout(ts::uiSettings().value("windowLayout").toByteArray());
  QObject::connect(&app, &QCoreApplication::aboutToQuit, &session, [&session] {
    ts::uiSettings().setValue("windowLayout", session.window()->saveLayout());
  });
  session.window()->show();
}

// --send: the message once the window is up; --screenshot: after the run, the window as
// PNG, then quit.
void runScript(const QCommandLineParser& p, ts::WindowSession& session) {
  if (p.isSet("screenshot")) {
    const QString path = p.value("screenshot");
    QObject::connect(&session, &ts::WindowSession::runLogged, &session, [&session, path] {
      QTimer::singleShot(300, &session, [&session, path] {  // let the last frame paint
        const bool ok = session.window()->grab().save(path);
        std::fprintf(ok ? stdout : stderr, "%s %s\n", ok ? "saved" : "cannot save",
                     qPrintable(path));
        QApplication::exit(ok ? 0 : 1);
      });
    });
  }
  if (p.isSet("send")) {
    const QString text = p.value("send");
    QTimer::singleShot(200, &session, [&session, text] {
      session.window()->chatPanel()->setInputText(text);
      session.window()->send();
    });
  }
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("TokenScope");
  QApplication::setApplicationVersion(TOKENSCOPE_VERSION);
  QCommandLineParser p;
  addOptions(p);
  p.process(app);
  ts::installTranslations(app);
  ts::ThemeController theme;  // light or dark before the first window is shown
  theme.setChoice(ts::chosenTheme());

  const Start start = readConfiguration(p);
  std::unique_ptr<ts::WindowSession> session = buildSession(p, start, &theme);
  reportStart(session->window(), start);
  showWindow(app, *session);
  // The welcome, once: a first start, not a scripted run (--send).
  if (start.first_start && start.problems.isEmpty() && !p.isSet("send") && !ts::welcomeDone())
    ts::showWelcome(session->window(), session->controller());
  runScript(p, *session);
  return QApplication::exec();
}
