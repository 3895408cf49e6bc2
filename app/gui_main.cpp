// tokenscope: the desktop app. Options exist for scripting (screenshots, demos):
//   --base-url URL --model NAME [--api-key-env VAR]  use this endpoint (not saved)
//   --send TEXT        send a message once the window is up
//   --screenshot PNG   after that run ends, save the window to PNG and quit
//   --log-dir DIR      where runs are appended (default ./logs/infer)
#include <QApplication>
#include <QCommandLineParser>
#include <QPlainTextEdit>
#include <QTimer>

#include "app/chat_controller.h"
#include "app/run_log.h"
#include "ui/chat_panel.h"
#include "ui/main_window.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("TokenScope");
  QApplication::setApplicationVersion(TOKENSCOPE_VERSION);
  QCommandLineParser p;
  p.setApplicationDescription("TokenScope: chat with LLMs and measure TTFT, TPOT and ITL live.");
  p.addHelpOption();
  p.addVersionOption();
  p.addOptions({{"base-url", "Use this OpenAI-compatible endpoint (not saved).", "URL"},
                {"model", "Model id for --base-url.", "NAME", "default"},
                {"api-key-env", "Environment variable holding the key for --base-url.", "VAR"},
                {"send", "Send this message once the window is shown.", "TEXT"},
                {"screenshot", "After the first run ends, save the window as PNG and quit.", "PNG"},
                {"log-dir", "Directory for the JSON-lines run log.", "DIR"}});
  p.process(app);

  ts::ProviderStore store;
  QString load_error;
  ts::ProviderList list = store.load(&load_error);
  const bool from_command_line = p.isSet("base-url");
  if (from_command_line) {
    list.providers.insert(
        list.providers.begin(),
        {"Command line", p.value("base-url").toStdString(), p.value("model").toStdString(),
         p.value("api-key-env").toStdString(), 60, 2});
    list.current = 0;
  }
  ts::ui::MainWindow window;
  window.setProviders(list.providers, list.current);
  ts::ChatController controller(&window, store,
                                p.isSet("log-dir") ? p.value("log-dir") : ts::defaultLogDir(),
                                !from_command_line);
  if (!load_error.isEmpty()) window.showStatus(load_error);
  window.show();

  if (p.isSet("screenshot")) {
    const QString path = p.value("screenshot");
    QObject::connect(&controller, &ts::ChatController::runLogged, &window, [&window, path] {
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
      auto* input = window.findChild<QPlainTextEdit*>("input");
      if (input) input->setPlainText(text);
      window.send();
    });
  }
  return QApplication::exec();
}
