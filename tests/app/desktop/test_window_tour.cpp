// Issue 42, the window tour: every window of the main window's family opened as a user
// opens it (menus, keys, intents), in English and Chinese, on a 1024 × 700 and a
// 1600 × 1000 screen, and nothing in it shows cut text (ts::testing::clippedTexts: each
// widget's text measured with its own font against its geometry). The main window after
// 20 long answers still fits 1024 × 700 (its minimum size), also with a local model
// selected; each dialog fits the screen it opens on. With $TOKENSCOPE_TOUR_SHOTS naming a
// folder, every window is saved there as <window>-<lang>-<W>x<H>.png.
//
// Offscreen (as the other tests run), the test gives the platform two screens side by side,
// 1024 × 700 at x = 0 and 1600 × 1000 at x = 1024 (see main()); the main window is moved
// onto each and sized to it, and the dialogs open on their parent's screen.
#include <httplib.h>

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QJsonObject>
#include <QLabel>
#include <QLibraryInfo>
#include <QLineEdit>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTranslator>

#include "app/desktop/app_controller.h"
#include "app/desktop/first_run.h"
#include "app/desktop/serve_settings.h"
#include "app/local/demo_model.h"
#include "app/local/model_paths.h"
#include "tests/support/long_metrics.h"
#include "tests/support/openai_test_server.h"
#include "tests/support/text_fit.h"
#include "ui/chat_panel.h"
#include "ui/lever_lab_dialog.h"
#include "ui/metrics_strip.h"
#include "ui/model_manager_dialog.h"
#include "ui/provider_bar.h"
#include "ui/table_dialog.h"

using namespace ts;
using ts::testing::longMetrics;
using ts::testing::OpenAiTestServer;
using ts::testing::ServerScript;

namespace {

const QList<QSize> kScreens{{1024, 700}, {1600, 1000}};

// The screen of `size` (offscreen: one of the two main() makes); on a real display, the
// primary screen.
QScreen* screenOf(QSize size) {
  for (QScreen* s : QGuiApplication::screens())
    if (s->geometry().size() == size) return s;
  return QGuiApplication::primaryScreen();
}

QString sizeName(QSize s) {
  return QString("%1x%2").arg(s.width()).arg(s.height());
}

// The language's translations (ours and Qt's), installed while it lives; English: none.
class Language {
 public:
  explicit Language(const QString& code) {
    if (code == "en") return;
    if (ours_.load(":/i18n/tokenscope_" + code + ".qm")) QApplication::installTranslator(&ours_);
    if (qt_.load("qtbase_" + code, QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
      QApplication::installTranslator(&qt_);
    loaded_ = !ours_.isEmpty();
  }
  ~Language() {
    QApplication::removeTranslator(&ours_);
    QApplication::removeTranslator(&qt_);
  }
  bool loaded() const { return loaded_; }

 private:
  QTranslator ours_, qt_;
  bool loaded_ = true;
};

}  // namespace

class TestWindowTour : public QObject {
  Q_OBJECT
  QTemporaryDir home_;
  OpenAiTestServer server_;
  std::unique_ptr<Language> language_;
  std::unique_ptr<ui::MainWindow> window_;
  std::unique_ptr<AppController> controller_;
  QStringList problems_;  // every window's, reported together at the end of a test

  QString lang() const { return QTest::currentDataTag(); }
  ProviderSettings remoteProvider() const {
    return {"Test server", server_.baseUrl(), "test-model", "", 5, 0};
  }
  ProviderSettings localProvider() const { return readyDefaultProvider(); }
  // A Hugging Face folder with a generation_config.json (a shared fixture): the parameter
  // panel's line of the model's suggested settings shows for it.
  QString suggestingModel() const {
    return qEnvironmentVariable("TOKENSCOPE_SHARED_DIR", "../shared") +
           "/models/baichuan2-tiny/7b-bf16";
  }
  ProviderSettings suggestingProvider() const {
    return {"Baichuan2 tiny (folder)", suggestingModel().toStdString(), "baichuan2-tiny", "", 60, 0,
            KeySource::Environment,    ProviderKind::LocalEngine};
  }

  // The main window on the screen of `size`, sized to it; false (and a problem) when it
  // cannot be made that small.
  bool placeWindow(QSize size) {
    QScreen* screen = screenOf(size);
    window_->move(screen->geometry().topLeft());
    window_->resize(size);
    if (!QTest::qWaitFor([&] { return window_->size() == size; }, 2000)) {
      problems_ << QString("main window at %1: is %2 × %3")
                       .arg(sizeName(size))
                       .arg(window_->width())
                       .arg(window_->height());
      return false;
    }
    QApplication::processEvents();  // queued layout work (the parameters' fit)
    return true;
  }

  // Records what is cut in `w`, whether a dialog fits the screen of `size`, and its grab.
  void look(QWidget* w, const QString& name, QSize size) {
    if (!w) {
      problems_ << name + " at " + sizeName(size) + ": did not open";
      return;
    }
    if (!QTest::qWaitForWindowExposed(w)) problems_ << name + ": never shown";
    QApplication::processEvents();
    const QString where = QString("%1 (%2, %3): ").arg(name, lang(), sizeName(size));
    for (const QString& cut : ts::testing::clippedTexts(w) + ts::testing::clippedPlaceholders(w))
      problems_ << where + cut;
    if (w != window_.get()) {
      const QSize frame = w->frameGeometry().size();
      if (frame.width() > size.width() || frame.height() > size.height())
        problems_ << where + QString("%1 × %2 does not fit the screen")
                                 .arg(frame.width())
                                 .arg(frame.height());
    }
    const QString shots = qEnvironmentVariable("TOKENSCOPE_TOUR_SHOTS");
    if (!shots.isEmpty()) {
      QDir().mkpath(shots);
      w->grab().save(
          QDir(shots).filePath(QString("%1-%2-%3.png").arg(name, lang(), sizeName(size))));
    }
  }

  // The action the window binds to `keys` (menus are translated; their keys are not).
  QAction* actionFor(const QKeySequence& keys) const {
    for (QAction* a : window_->findChildren<QAction*>())
      if (a->shortcuts().contains(keys)) return a;
    return nullptr;
  }

  // Runs `trigger`, which opens a modal dialog with exec(); once the dialog shows it is
  // looked at (`name`, the screen of `size`) and rejected.
  void lookAtModal(const std::function<void()>& trigger, const QString& name, QSize size) {
    bool seen = false;
    QTimer poll;
    poll.setInterval(10);
    connect(&poll, &QTimer::timeout, this, [&] {
      auto* d = qobject_cast<QDialog*>(QApplication::activeModalWidget());
      if (!d || !d->isVisible() || seen) return;
      seen = true;
      poll.stop();
      look(d, name, size);
      d->reject();
    });
    poll.start();
    trigger();
    if (!seen) problems_ << name + " at " + sizeName(size) + ": no dialog opened";
  }

  // A top-level `name`d widget of the window that `open` shows, looked at on both screens
  // and closed after each.
  void tour(const QString& name, const char* object_name, const std::function<void()>& open) {
    for (QSize size : kScreens) {
      if (!placeWindow(size)) continue;
      open();
      QPointer<QWidget> w;
      QTest::qWaitFor(
          [&] { return (w = window_->findChild<QWidget*>(object_name)) && w->isVisible(); }, 5000);
      look(w, name, size);
      if (w) {
        w->close();  // deleted on close, most of them
        QTest::qWaitFor([&] { return !w || !w->isVisible(); }, 2000);
      }
      QApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    }
  }

  // Fails with every problem found, one line each (a failure message alone is cut at 1 KiB).
  void report() {
    for (const QString& p : problems_) qInfo().noquote() << p;
    QVERIFY2(problems_.isEmpty(), qPrintable(QString("%1 problems, listed above; the first: %2")
                                                 .arg(problems_.size())
                                                 .arg(problems_.value(0))));
  }

  bool chat(const QString& text) {
    QSignalSpy shown(window_.get(), &ui::MainWindow::runDisplayed);
    window_->chatPanel()->setInputText(text);
    window_->send();
    return shown.wait(10000);
  }

  void languages() {
    QTest::addColumn<int>("unused");
    QTest::newRow("en") << 0;
    QTest::newRow("zh_CN") << 0;
  }

 private slots:
  void initTestCase() {
    // The offscreen platform says, for every dialog, that it cannot do what a window
    // manager does (size hints, raise): noise here. (QTest's own handler is in place now.)
    static const QtMessageHandler passOn = qInstallMessageHandler(
        [](QtMsgType type, const QMessageLogContext& context, const QString& message) {
          if (message.startsWith("This plugin does not support")) return;
          passOn(type, context, message);
        });
    qputenv("HOME", home_.path().toUtf8());  // a fresh user: no keys, no settings
    qunsetenv("XDG_CONFIG_HOME");
    qunsetenv("XDG_DATA_HOME");
    qunsetenv("TOKENSCOPE_LANGUAGE");
    QStandardPaths::setTestModeEnabled(true);
    qputenv("TOKENSCOPE_CONFIG_DIR", home_.filePath("config").toUtf8());
    qputenv("XDG_CACHE_HOME", home_.filePath("cache").toUtf8());
    QVERIFY(server_.start() > 0);
    const QString made = ensureDemoModel(demoModelPath());
    QVERIFY2(made.isEmpty(), qPrintable(made));
  }
  void init() {
    problems_.clear();
    if (QString(QTest::currentTestFunction()) == "theCheckerSeesCutText") return;
    language_ = std::make_unique<Language>(lang());
    QVERIFY2(language_->loaded(), qPrintable(lang()));
    window_ = std::make_unique<ui::MainWindow>();
    window_->setProviders({remoteProvider(), localProvider()}, 0);
    controller_ = std::make_unique<AppController>(
        window_.get(), ProviderStore(home_.filePath("config/providers.json")),
        home_.filePath("logs"), true);
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
  }
  void cleanup() {
    for (QWidget* w : QApplication::topLevelWidgets())
      if (w != window_.get() && w->isVisible()) w->close();
    controller_.reset();
    window_.reset();
    language_.reset();
  }
  void cleanupTestCase() { server_.stop(); }

  // The checker itself: a label and a button narrower than their text are reported; given
  // room, they are not.
  void theCheckerSeesCutText() {
    QWidget box;
    auto* label = new QLabel("Temperature of the sampler", &box);
    auto* button = new QPushButton("Export configuration…", &box);
    auto* check = new QCheckBox("Stream the answer token by token", &box);
    for (QWidget* w : {static_cast<QWidget*>(label), static_cast<QWidget*>(button),
                       static_cast<QWidget*>(check)})
      w->setGeometry(0, 0, 40, w->sizeHint().height());
    box.resize(400, 200);
    box.show();
    QVERIFY(QTest::qWaitForWindowExposed(&box));
    QStringList cut = ts::testing::clippedTexts(&box);
    QCOMPARE(cut.size(), 3);
    QVERIFY2(cut[0].startsWith("QLabel 'Temperature of the sampler' needs"), qPrintable(cut[0]));
    QVERIFY2(cut[1].startsWith("QPushButton 'Export configuration…'"), qPrintable(cut[1]));
    QVERIFY2(cut[2].startsWith("QCheckBox"), qPrintable(cut[2]));
    for (QWidget* w : {static_cast<QWidget*>(label), static_cast<QWidget*>(button),
                       static_cast<QWidget*>(check)})
      w->resize(w->sizeHint());
    cut = ts::testing::clippedTexts(&box);
    QVERIFY2(cut.isEmpty(), qPrintable(cut.join("\n")));
    // A label's "&k" shows as written unless the label has a buddy.
    auto* key = new QLabel("API &key", &box);
    key->resize(key->sizeHint());
    key->show();
    cut = ts::testing::clippedTexts(&box);
    QCOMPARE(cut.size(), 1);
    QVERIFY2(cut[0].contains("no buddy"), qPrintable(cut[0]));
    key->setBuddy(button);
    QVERIFY2(ts::testing::clippedTexts(&box).isEmpty(), qPrintable(cut.join("\n")));
    // What to type, shown in an empty field, is text too.
    auto* field = new QLineEdit(&box);
    field->setPlaceholderText("https://huggingface.co/owner/name");
    field->setGeometry(0, 60, 80, field->sizeHint().height());
    field->show();
    cut = ts::testing::clippedPlaceholders(&box);
    QCOMPARE(cut.size(), 1);
    QVERIFY2(cut[0].contains("(placeholder)"), qPrintable(cut[0]));
    field->resize(400, field->height());
    QVERIFY(ts::testing::clippedPlaceholders(&box).isEmpty());
    // A whole label that sticks out of its container is cut all the same.
    auto* holder = new QWidget(&box);
    holder->setGeometry(0, 100, 100, 30);
    auto* out = new QLabel("Stop serving", holder);
    out->setGeometry(60, 0, out->sizeHint().width(), out->sizeHint().height());
    holder->show();
    cut = ts::testing::clippedTexts(&box);
    QCOMPARE(cut.size(), 1);
    QVERIFY2(cut[0].contains("cut by its container"), qPrintable(cut[0]));
  }

  // 20 long answers with long metric values: the window can still be made 1024 × 700 and
  // nothing in it is cut, at both sizes, with the remote provider and with a local model
  // (its own parameter rows).
  void theMainWindowAfterALongChat_data() { languages(); }
  void theMainWindowAfterALongChat() {
    // A first start (nothing remembered) on the small screen opens within it.
    const QSize room = QGuiApplication::primaryScreen()->availableGeometry().size();
    QVERIFY2(window_->frameGeometry().width() <= room.width() &&
                 window_->frameGeometry().height() <= room.height(),
             qPrintable(QString("%1 × %2 on a %3 × %4 screen")
                            .arg(window_->frameGeometry().width())
                            .arg(window_->frameGeometry().height())
                            .arg(room.width())
                            .arg(room.height())));
    ServerScript s;
    s.chunks = 40;
    s.gap_ms = 0;
    s.pieces = {"a-very-long-unbroken-token-" + std::string(80, 'x') + " ", "and words "};
    server_.setScript(s);
    for (int i = 0; i < 20; ++i) {
      QVERIFY(chat(QString("turn %1 ").arg(i) + QString(300, 'y')));
      window_->metricsStrip()->showMetrics(longMetrics());
    }
    QApplication::processEvents();
    const QSize least = window_->minimumSizeHint().expandedTo(window_->minimumSize());
    QVERIFY2(least.width() <= 1024 && least.height() <= 700,
             qPrintable(QString("minimum %1 × %2").arg(least.width()).arg(least.height())));
    for (QSize size : kScreens)
      if (placeWindow(size)) look(window_.get(), "main", size);
    // A local model: its own rows (the model's suggestions when it has them).
    const bool suggests = QFile::exists(suggestingModel() + "/generation_config.json");
    window_->setProviders({remoteProvider(), localProvider(), suggestingProvider()},
                          suggests ? 2 : 1);
    QApplication::processEvents();
    if (suggests) QVERIFY(window_->findChild<QWidget*>("modelSuggestions")->isVisible());
    const QSize local = window_->minimumSizeHint().expandedTo(window_->minimumSize());
    QVERIFY2(local.width() <= 1024 && local.height() <= 700,
             qPrintable(QString("local: minimum %1 × %2").arg(local.width()).arg(local.height())));
    for (QSize size : kScreens)
      if (placeWindow(size)) look(window_.get(), "main-local", size);
    // A provider with a very long name: cut with "…" (whole on hover), the toolbar's model
    // box still there at 1024 px.
    ProviderSettings named = remoteProvider();
    named.name = "A provider whose name goes on and on, as pasted from a wiki page";
    window_->setProviders({named, localProvider()}, 0);
    for (QSize size : kScreens) {
      if (!placeWindow(size)) continue;
      look(window_.get(), "main-long-name", size);
      if (!window_->findChild<QWidget*>("modelCombo")->isVisible())
        problems_ << "main-long-name at " + sizeName(size) + ": the model box is hidden";
    }
    report();
  }

  // The welcome (a first start), About, the keyboard shortcuts and the download dialog.
  void theHelpAndFirstRunWindows_data() { languages(); }
  void theHelpAndFirstRunWindows() {
    tour("welcome", "welcomeDialog", [&] { showWelcome(window_.get(), controller_.get()); });
    tour("about", "aboutBox", [&] { window_->findChild<QAction*>("aboutAction")->trigger(); });
    tour("shortcuts", "shortcutsDialog",
         [&] { window_->findChild<QAction*>("shortcutsAction")->trigger(); });
    tour("download", "downloadDialog",
         [&] { actionFor(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D))->trigger(); });
    // Nothing says "0%" before a download starts.
    actionFor(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D))->trigger();
    QWidget* download = nullptr;
    QTRY_VERIFY((download = window_->findChild<QWidget*>("downloadDialog")));
    QVERIFY(QTest::qWaitForWindowExposed(download));
    QVERIFY(!download->findChild<QProgressBar*>("downloadProgress")->isVisible());
    download->close();
    report();
  }

  // Provider → Add… / Manage providers… / API key… and File → Export configuration…: modal
  // dialogs, looked at while they wait for the user.
  void theProviderAndConfigurationDialogs_data() { languages(); }
  void theProviderAndConfigurationDialogs() {
    for (QSize size : kScreens) {
      if (!placeWindow(size)) continue;
      lookAtModal([&] { window_->providerBar()->editProvider(false); }, "provider", size);
      lookAtModal([&] { actionFor(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M))->trigger(); },
                  "providers", size);
      lookAtModal([&] { actionFor(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S))->trigger(); },
                  "config-export", size);
    }
    tour("api-key", "apiKeyDialog",
         [&] { actionFor(QKeySequence(Qt::CTRL | Qt::Key_K))->trigger(); });
    report();
  }

  // The connection doctor's result on the test server, and the local doctor's on the demo
  // model.
  void theDoctorsResults_data() { languages(); }
  void theDoctorsResults() {
    ServerScript s;
    s.chunks = 3;
    server_.setScript(s);
    const auto doctorDone = [&] {
      auto* d = window_->findChild<ui::TableDialog*>("doctorDialog");
      QTest::qWaitFor([&] { return d && d->actionButton()->isEnabled(); }, 60000);
    };
    tour("doctor", "doctorDialog", [&] {
      actionFor(QKeySequence(Qt::CTRL | Qt::Key_D))->trigger();
      doctorDone();
    });
    window_->setProviders({remoteProvider(), localProvider()}, 1);
    tour("doctor-local", "doctorDialog", [&] {
      actionFor(QKeySequence(Qt::CTRL | Qt::Key_D))->trigger();
      doctorDone();
    });
    report();
  }

  // Provider → Open a local model… on the demo model, before and after it is loaded; Serve
  // settings; and the server panel while the demo model is served and has answered once.
  void theLocalModelWindows_data() { languages(); }
  void theLocalModelWindows() {
    window_->setProviders({remoteProvider(), localProvider()}, 1);
    QAction* open = window_->findChild<QAction*>("openLocalModelAction");
    tour("model-manager", "modelManagerDialog", [&] { open->trigger(); });
    open->trigger();
    auto* dialog = controller_->modelManager().dialog();
    QVERIFY(dialog);
    QSignalSpy loaded(&controller_->modelManager(), &ModelManager::loaded);
    QTest::mouseClick(dialog->findChild<QPushButton*>("loadButton"), Qt::LeftButton);
    QVERIFY(loaded.wait(60000));
    QTRY_VERIFY(!controller_->modelManager().dialog());
    tour("model-manager-loaded", "modelManagerDialog", [&] { open->trigger(); });

    tour("serve-settings", "serveDialog",
         [&] { window_->findChild<QAction*>("serveSettingsAction")->trigger(); });

    saveServeChoice({false, false});
    window_->findChild<QAction*>("serveAction")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(controller_->serving().isServing(), 60000);
    httplib::Client http("127.0.0.1", controller_->serving().port());
    auto res = http.Post("/v1/chat/completions",
                         "{\"model\":\"local\",\"messages\":[{\"role\":\"user\",\"content\":"
                         "\"hello\"}],\"temperature\":0.3,\"max_tokens\":5}",
                         "application/json");
    QVERIFY(res && res->status == 200);
    auto* indicator = window_->statusBar()->findChild<QAbstractButton*>("serverIndicator");
    QTRY_VERIFY(indicator->text().contains("1"));
    tour("server", "serverWindow", [&] {
      if (!window_->findChild<QWidget*>("serverWindow")->isVisible()) indicator->click();
    });
    for (QSize size : kScreens)
      if (placeWindow(size)) look(window_.get(), "main-serving", size);
    window_->findChild<QAction*>("serveAction")->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(controller_->serving().state(), LocalServing::State::Off, 15000);
    report();
  }

  // Tools → Lever lab… (issue 43): idle with a remote provider (why there is nothing to run)
  // and on the demo model; then with a filled table after a small KV lever run, on both
  // screens, its table without scrollbars.
  void theLeverLab_data() { languages(); }
  void theLeverLab() {
    QAction* lab = actionFor(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L));
    QVERIFY(lab);
    tour("lever-lab-remote", "leverLabDialog", [&] { lab->trigger(); });
    window_->setProviders({remoteProvider(), localProvider()}, 1);
    tour("lever-lab", "leverLabDialog", [&] { lab->trigger(); });
    QJsonObject measured;
    for (QSize size : kScreens) {
      if (!placeWindow(size)) continue;
      lab->trigger();
      auto* d = window_->findChild<ui::LeverLabDialog*>("leverLabDialog");
      QVERIFY(d && QTest::qWaitForWindowExposed(d));
      if (measured.isEmpty()) {  // measured once, shown on both screens
        d->setLever("kv");
        d->findChild<QSpinBox*>("labRepeat")->setValue(2);
        d->findChild<QSpinBox*>("labPromptTokens")->setValue(16);
        d->findChild<QSpinBox*>("labGenTokens")->setValue(8);
        d->run();
        QTRY_VERIFY_WITH_TIMEOUT(!controller_->lab().isRunning(), 180000);
        measured = d->report();
        QVERIFY2(!measured.isEmpty(), qPrintable(d->findChild<QLabel*>("labStage")->text()));
      } else {
        d->setLever("kv");
        d->onReport(measured, {});
      }
      look(d, "lever-lab-report", size);
      for (const QString& bar : ts::testing::visibleScrollBars(d))
        problems_ << "lever-lab-report at " + sizeName(size) + ": " + bar;
      d->close();
      QApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    }
    report();
  }
};

// Offscreen, two screens side by side: 1024 × 700 and 1600 × 1000 (the platform's
// configuration file; its default is one 800 × 600 screen).
int main(int argc, char** argv) {
  QTemporaryDir config_dir;
  if (qEnvironmentVariable("QT_QPA_PLATFORM") == "offscreen") {
    QFile config(config_dir.filePath("screens.json"));
    if (config.open(QIODevice::WriteOnly)) {
      config.write(R"({"screens": [
        {"name": "small", "x": 0, "y": 0, "width": 1024, "height": 700, "logicalDpi": 96},
        {"name": "large", "x": 1024, "y": 0, "width": 1600, "height": 1000, "logicalDpi": 96}]})");
      config.close();
      qputenv("QT_QPA_PLATFORM", ("offscreen:configfile=" + config.fileName()).toUtf8());
    }
  }
  QApplication app(argc, argv);
  QTEST_SET_MAIN_SOURCE_PATH
  TestWindowTour test;
  return QTest::qExec(&test, argc, argv);
}

#include "test_window_tour.moc"
