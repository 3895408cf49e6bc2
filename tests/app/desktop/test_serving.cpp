// Provider → Serve settings, as a user drives them (offscreen): where Serve listens and
// whether it requires an API key, kept between starts; the loud warning for every network
// without a key (in the dialog and, while serving, in the status bar); a required key made
// in the real keychain, shown once (copyable), demanded by the server (401 without it) and
// never written to a file; and no Serve at all when a key is required but no keychain is
// reachable. The keychain functions run under tests/with_keyring.sh. The server panel: a
// request served over real HTTP shows in it and in the run store (tagged "served", with the
// client's parameters), the preset's model id is answered; and the doctor on a local
// provider (its file, engine and server).
#include <httplib.h>

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QDirIterator>
#include <QEventLoop>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QRadioButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QToolButton>

#include "app/desktop/app_controller.h"
#include "app/desktop/serve_settings.h"
#include "app/desktop/serving_controller.h"
#include "app/store/run_store.h"
#include "ui/main_window.h"
#include "ui/serve_dialog.h"
#include "ui/server_panel.h"
#include "ui/table_dialog.h"

using namespace ts;

#define CHECKED(call)                       \
  do {                                      \
    call;                                   \
    if (QTest::currentTestFailed()) return; \
  } while (false)

namespace {

int getStatus(int port, const QString& key = {}) {
  httplib::Client client("127.0.0.1", port);
  httplib::Headers headers;
  if (!key.isEmpty()) headers.emplace("Authorization", "Bearer " + key.toStdString());
  auto res = client.Get("/v1/models", headers);
  return res ? res->status : -1;
}

QString storedKey() {
  KeyStore store;
  QString key;
  QEventLoop loop;
  store.read(kServeKeyAccount, [&](QString k, QString) {
    key = k;
    loop.quit();
  });
  loop.exec();
  return key;
}

}  // namespace

class TestServing : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  std::unique_ptr<ui::MainWindow> window_;
  std::unique_ptr<AppController> controller_;
  QString shared_ = qEnvironmentVariable("TOKENSCOPE_SHARED_DIR", "../shared") + "/models";
  QString localModel() const { return shared_ + "/aidreams260K/aidreams260K.gguf"; }

  QAction* action(const char* name) const { return window_->findChild<QAction*>(name); }
  ui::ServeDialog* openSettings() {
    action("serveSettingsAction")->trigger();
    return window_->findChild<ui::ServeDialog*>("serveDialog");
  }
  QLabel* warningIn(ui::ServeDialog* dialog) const {
    return dialog->findChild<QLabel*>("serveWarning");
  }
  static ProviderSettings localProvider(const QString& path) {
    return {"Local", path.toStdString(),     "aidreams260K",           "", 60,
            0,       KeySource::Environment, ProviderKind::LocalEngine};
  }
  void setLocalProvider() { window_->setProviders({localProvider(localModel())}, 0); }
  // The doctor's dialog for `provider`, once its steps are in: "step → result · text" rows
  // (CHECKED: the test ends on failure).
  void doctorRows(const ProviderSettings& provider, QStringList& rows) {
    rows.clear();
    emit window_->doctorRequested(provider);
    auto* dialog = window_->findChild<ui::TableDialog*>("doctorDialog");
    QVERIFY(dialog);
    QPushButton* again = dialog->actionButton();
    QTRY_VERIFY_WITH_TIMEOUT(again->isEnabled(), 30000);  // finished
    for (int r = 0; r < dialog->table()->rowCount(); ++r)
      rows << dialog->table()->item(r, 0)->text() + " → " + dialog->table()->item(r, 1)->text() +
                  " · " + dialog->table()->item(r, 2)->text();
    dialog->close();
    QTRY_VERIFY(!window_->findChild<ui::TableDialog*>("doctorDialog"));
  }
  // Serve on, until it serves; off, until it has stopped (CHECKED: the test ends on failure).
  void serveOn() {
    action("serveAction")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(controller_->serving().isServing(), 30000);
  }
  void serveOff() {
    action("serveAction")->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(controller_->serving().state(), LocalServing::State::Off, 15000);
  }

 private slots:
  void initTestCase() {
    qputenv("TOKENSCOPE_CONFIG_DIR", dir_.filePath("config").toUtf8());  // ui.ini
  }
  void init() {
    QFile::remove(dir_.filePath("config/ui.ini"));
    window_ = std::make_unique<ui::MainWindow>();
    controller_ = std::make_unique<AppController>(
        window_.get(), ProviderStore(dir_.filePath("providers.json")), dir_.filePath("logs"), true);
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
  }
  void cleanup() {
    controller_.reset();
    window_.reset();
  }

  // The settings are kept (ui.ini) and the dialog warns, in red, while every network is
  // chosen without a key.
  void settingsRoundTripAndTheExposureWarning() {
    QCOMPARE(ServingController::exposureWarning("127.0.0.1", false), QString());
    QCOMPARE(ServingController::exposureWarning("0.0.0.0", true), QString());
    QVERIFY(!ServingController::exposureWarning("0.0.0.0", false).isEmpty());

    ui::ServeDialog* dialog = openSettings();
    QVERIFY(dialog);
    QVERIFY(dialog->findChild<QRadioButton*>("serveLoopback")->isChecked());  // the default
    QVERIFY(!dialog->findChild<QCheckBox*>("serveRequireKey")->isChecked());
    QVERIFY(!warningIn(dialog)->isVisible());
    dialog->findChild<QRadioButton*>("serveEveryNetwork")->click();
    QVERIFY(warningIn(dialog)->isVisible());
    QVERIFY2(warningIn(dialog)->text().contains(
                 "Anyone who can reach this computer over the network can use the model"),
             qPrintable(warningIn(dialog)->text()));
    QVERIFY(warningIn(dialog)->styleSheet().contains("#c0392b"));  // red
    auto* require = dialog->findChild<QCheckBox*>("serveRequireKey");
    require->click();
    QVERIFY(!warningIn(dialog)->isVisible());
    require->click();
    QVERIFY(warningIn(dialog)->isVisible());
    dialog->findChild<QDialogButtonBox*>("serveButtons")->button(QDialogButtonBox::Ok)->click();
    QTRY_VERIFY(!window_->findChild<ui::ServeDialog*>("serveDialog"));
    QCOMPARE(loadServeChoice(), (ui::ServeChoice{true, false}));
    QSettings ini(dir_.filePath("config/ui.ini"), QSettings::IniFormat);
    QCOMPARE(ini.value("serve/host").toString(), QString("0.0.0.0"));
    QCOMPARE(ini.value("serve/requireKey").toBool(), false);
    // Opened again: as saved, the warning already there.
    dialog = openSettings();
    QVERIFY(dialog->findChild<QRadioButton*>("serveEveryNetwork")->isChecked());
    QVERIFY(warningIn(dialog)->isVisible());
    dialog->findChild<QRadioButton*>("serveLoopback")->click();
    QVERIFY(!warningIn(dialog)->isVisible());
    dialog->findChild<QDialogButtonBox*>("serveButtons")->button(QDialogButtonBox::Cancel)->click();
    QCOMPARE(loadServeChoice(), (ui::ServeChoice{true, false}));  // cancelled: unchanged
    saveServeChoice({false, true});
    QCOMPARE(loadServeChoice(), (ui::ServeChoice{false, true}));
  }

  // Serving to every network without a key: it serves (on 0.0.0.0) and says so loudly, in
  // the status bar and with a lasting red mark there, until it stops.
  void everyNetworkWithoutAKeyWarnsWhileServing() {
    if (!QFile::exists(localModel())) QSKIP("the shared fixtures are absent");
    saveServeChoice({true, false});
    setLocalProvider();
    CHECKED(serveOn());
    QCOMPARE(controller_->serving().host(), QString("0.0.0.0"));
    QVERIFY2(window_->statusBar()->currentMessage().startsWith("WARNING: serving the local model"),
             qPrintable(window_->statusBar()->currentMessage()));
    auto* mark = window_->findChild<QLabel*>("serveWarningLabel");
    QVERIFY(mark && mark->isVisible());
    QVERIFY(mark->toolTip().contains("Anyone who can reach this computer"));
    QCOMPARE(getStatus(controller_->serving().port()), 200);  // no key needed
    CHECKED(serveOff());
    QVERIFY(!mark->isVisible());
  }

  // "Require an API key": made at the first Serve, kept in the real keychain, shown once
  // with a Copy button; the server answers 401 without it and 200 with it; "New key"
  // replaces it (from the next start). It is in no file the app wrote, nor the status bar.
  void aRequiredKeyIsMadeShownOnceAndRequired() {
    if (!KeyStore::probe().available) {
      if (qEnvironmentVariableIsEmpty("TOKENSCOPE_REQUIRE_KEYRING"))
        QSKIP("no Secret Service here: run under tests/with_keyring.sh");
      QFAIL(qPrintable(KeyStore::probe().reason));
    }
    if (!QFile::exists(localModel())) QSKIP("the shared fixtures are absent");
    QVERIFY2(QDir::homePath().startsWith("/tmp"), "must run in a temporary HOME");
    saveServeChoice({false, true});
    setLocalProvider();
    CHECKED(serveOn());
    ui::ServeKeyDialog* shown = window_->findChild<ui::ServeKeyDialog*>("serveKeyDialog");
    QVERIFY(shown && shown->isVisible());
    const QString key = shown->findChild<QLineEdit*>("serveKeyEdit")->text();
    QVERIFY2(QRegularExpression("^ts-[A-Za-z0-9_-]{40}$").match(key).hasMatch(), "key shape");
    QVERIFY2(window_->statusBar()->currentMessage().contains("requests need the API key"),
             qPrintable(window_->statusBar()->currentMessage()));
    QTest::mouseClick(shown->findChild<QPushButton*>("serveKeyCopy"), Qt::LeftButton);
    QCOMPARE(QGuiApplication::clipboard()->text(), key);
    QVERIFY(!window_->statusBar()->currentMessage().contains(key));
    shown->close();
    QCOMPARE(storedKey(), key);
    QVERIFY(controller_->serving().requiresKey());
    const int port = controller_->serving().port();
    QCOMPARE(getStatus(port), 401);
    QCOMPARE(getStatus(port, "ts-wrong"), 401);
    QCOMPARE(getStatus(port, key), 200);
    CHECKED(serveOff());

    // Served again: the stored key, not shown again.
    QTRY_VERIFY(!window_->findChild<ui::ServeKeyDialog*>("serveKeyDialog"));
    CHECKED(serveOn());
    QVERIFY(!window_->findChild<ui::ServeKeyDialog*>("serveKeyDialog"));
    QCOMPARE(getStatus(controller_->serving().port(), key), 200);

    // New key: shown once, stored in place of the old one, used from the next start.
    ui::ServeDialog* dialog = openSettings();
    QVERIFY(dialog);
    auto* state = dialog->findChild<QLabel*>("serveKeyState");
    QTRY_VERIFY2(state->text().startsWith("A key is kept in the keychain"),
                 qPrintable(state->text()));
    QVERIFY(dialog->findChild<QLabel*>("serveRunningNote"));
    QTest::mouseClick(dialog->findChild<QPushButton*>("serveNewKey"), Qt::LeftButton);
    QTRY_VERIFY(window_->findChild<ui::ServeKeyDialog*>("serveKeyDialog"));
    shown = window_->findChild<ui::ServeKeyDialog*>("serveKeyDialog");
    const QString fresh = shown->findChild<QLineEdit*>("serveKeyEdit")->text();
    QVERIFY(fresh != key && fresh.startsWith("ts-"));
    QCOMPARE(storedKey(), fresh);
    shown->close();
    dialog->close();
    CHECKED(serveOff());
    CHECKED(serveOn());
    QCOMPARE(getStatus(controller_->serving().port(), key), 401);
    QCOMPARE(getStatus(controller_->serving().port(), fresh), 200);
    CHECKED(serveOff());

    // Neither key is in any file the app wrote (settings, logs).
    QDirIterator files(dir_.path(), QDir::Files, QDirIterator::Subdirectories);
    while (files.hasNext()) {
      QFile f(files.next());
      QVERIFY(f.open(QIODevice::ReadOnly));
      const QByteArray bytes = f.readAll();
      QVERIFY2(!bytes.contains(key.toUtf8()) && !bytes.contains(fresh.toUtf8()),
               qPrintable(f.fileName()));
    }
  }

  // A request to the app's server over real HTTP, as another tool sends it with the
  // "TokenScope local server" preset's model id: answered (not 404), shown in the server
  // panel (a tool window with the address and the model id, and a status-bar button that stays)
  // with its TTFT and the client's temperature and max_tokens, recorded in the run store tagged
  // "served" with those parameters; Copy puts the address on the clipboard; Stop serving in
  // the panel stops it.
  void aServedRequestShowsInThePanelAndTheRunStore() {
    if (!QFile::exists(localModel())) QSKIP("the shared fixtures are absent");
    saveServeChoice({false, false});
    // A window with its serving controller and a run store of its own.
    ui::MainWindow window;
    ServingController serving(&window);
    RunStore store(dir_.filePath("served.sqlite"));
    QVERIFY2(store.isOpen(), qPrintable(store.error()));
    serving.setRunStore([&store] { return &store; });
    QSignalSpy recorded(&serving, &ServingController::runRecorded);
    window.setProviders({localProvider(localModel())}, 0);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.findChild<QAction*>("serveAction")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(serving.serving().isServing(), 30000);
    const int port = serving.serving().port();
    const QString url = QString("http://127.0.0.1:%1/v1").arg(port);

    auto* panel_window = window.findChild<QWidget*>("serverWindow");
    QVERIFY(panel_window && panel_window->isVisible());
    ui::ServerPanel* panel = serving.panel();
    QVERIFY(panel->findChild<QLabel*>("serverUrl")->text().contains(url));
    QVERIFY2(panel->findChild<QLabel*>("serverModel")->text().contains("aidreams260K"),
             qPrintable(panel->findChild<QLabel*>("serverModel")->text()));
    // The indicator leaves the window usable at 1024 × 700.
    window.resize(1024, 700);
    QTRY_COMPARE(window.width(), 1024);
    QVERIFY2(window.minimumSizeHint().width() <= 1024 && window.minimumSizeHint().height() <= 700,
             qPrintable(QString("%1×%2")
                            .arg(window.minimumSizeHint().width())
                            .arg(window.minimumSizeHint().height())));
    auto* indicator = window.findChild<QToolButton*>("serverIndicator");
    QVERIFY(indicator && indicator->isVisible());
    QVERIFY2(indicator->text().contains(QString(":%1 · 0 served").arg(port)),
             qPrintable(indicator->text()));

    // The preset another tool (or this app) would use names this model id.
    std::string preset_model;
    for (const ProviderSettings& p : ProviderStore::presets().providers)
      if (p.name == "TokenScope local server") preset_model = p.default_model;
    QVERIFY(!preset_model.empty());
    httplib::Client http("127.0.0.1", port);
    auto res = http.Post("/v1/chat/completions",
                         "{\"model\":\"" + preset_model +
                             "\",\"messages\":[{\"role\":\"user\",\"content\":\"I "
                             "dreamed\"}],\"temperature\":0.3,\"max_tokens\":5,\"stream\":true}",
                         "application/json");
    QVERIFY(res);
    QCOMPARE(res->status, 200);
    QVERIFY(QString::fromStdString(res->body).contains("[DONE]"));

    QTRY_COMPARE(panel->servedCount(), 1);
    auto* table = panel->findChild<QTableWidget*>("serverRequests");
    QCOMPARE(table->rowCount(), 1);
    QCOMPARE(table->item(0, 1)->text(), QString::fromStdString(preset_model));  // as asked
    QCOMPARE(table->item(0, 4)->text(), QString("5"));                          // output tokens
    QVERIFY2(table->item(0, 5)->text().endsWith("ms") || table->item(0, 5)->text().endsWith(" s"),
             qPrintable(table->item(0, 5)->text()));  // TTFT
    QCOMPARE(table->item(0, 7)->text(), QString("0.3"));
    QCOMPARE(table->item(0, 8)->text(), QString("5"));
    QVERIFY2(indicator->text().contains("1 served"), qPrintable(indicator->text()));
    // Closed, the status-bar button brings the panel back.
    panel_window->close();
    QTest::mouseClick(indicator, Qt::LeftButton);
    QTRY_VERIFY(panel_window->isVisible());

    QTRY_COMPARE(recorded.count(), 1);
    RunFilter served;
    served.tag = ServingController::kServedTag;
    const QList<StoredRun> runs = store.list(served);
    QCOMPARE(runs.size(), 1);
    const StoredRun& run = runs.first();
    QCOMPARE(run.status, QString("finished"));
    QVERIFY(run.context.tags.contains("served"));
    QCOMPARE(run.context.base_url, url);
    QCOMPARE(run.context.model, QString("aidreams260K"));
    QCOMPARE(run.request.params.temperature, 0.3);
    QCOMPARE(run.request.params.max_tokens, 5);
    QVERIFY(run.request.params.stream);
    QCOMPARE(run.request.messages.back().content, std::string("I dreamed"));
    QVERIFY2(run.metrics.value("ttft_ms").toDouble() > 0,
             QJsonDocument(run.metrics).toJson().constData());
    QVERIFY(!run.text.isEmpty());

    QTest::mouseClick(panel->findChild<QPushButton*>("serverCopyUrl"), Qt::LeftButton);
    QCOMPARE(QGuiApplication::clipboard()->text(), url);
    QTest::mouseClick(panel->findChild<QPushButton*>("serverStop"), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(serving.serving().state(), LocalServing::State::Off, 15000);
    QVERIFY(!indicator->isVisible());
    QVERIFY(panel->findChild<QLabel*>("serverUrl")->text().startsWith("Not serving"));
    QVERIFY(!window.findChild<QAction*>("serveAction")->isChecked());
  }

  // The doctor on a local provider checks what a local model needs, not a URL: the file
  // (a real GGUF: PASS with its format and size), the engine (PASS, the backend it runs on)
  // and, while Serve runs, the app's own server over HTTP (PASS); a missing file FAILs
  // with the path and what to do, and nothing speaks of base URLs.
  void theDoctorOnALocalProvider() {
    if (!QFile::exists(localModel())) QSKIP("the shared fixtures are absent");
    saveServeChoice({false, false});
    setLocalProvider();
    QStringList rows;
    CHECKED(doctorRows(localProvider(localModel()), rows));
    QCOMPARE(rows.size(), 3);
    QVERIFY2(rows[0].startsWith("model file → PASS · GGUF · llama · 4 layers"),
             qPrintable(rows[0]));
    QVERIFY2(rows[0].contains("MiB on disk"), qPrintable(rows[0]));
    QVERIFY2(rows[1].startsWith("engine → PASS · The model loads and runs on the CPU"),
             qPrintable(rows[1]));
    QVERIFY2(rows[2].startsWith("server → skipped · Not serving"), qPrintable(rows[2]));

    CHECKED(serveOn());
    CHECKED(doctorRows(localProvider(localModel()), rows));
    QVERIFY2(rows[2].startsWith(QString("server → PASS · The server answers on port %1")
                                    .arg(controller_->serving().port())),
             qPrintable(rows[2]));
    CHECKED(serveOff());

    const QString missing = dir_.filePath("moved/model.gguf");
    CHECKED(doctorRows(localProvider(missing), rows));
    QVERIFY2(rows[0].startsWith("model file → FAIL · " + missing + " does not exist."),
             qPrintable(rows[0]));
    QVERIFY2(rows[0].contains("Fix: Check the path"), qPrintable(rows[0]));
    QVERIFY2(rows[1].startsWith("engine → skipped"), qPrintable(rows[1]));
    QVERIFY(!rows.join("\n").contains("base URL"));
  }

  // A key is required but no Secret Service is reachable: Serve says so and does not start
  // (never serving with the key silently missing); the settings say it too.
  void withoutAKeychainARequiredKeyStopsServe() {
    if (KeyStore::probe().available) {
      if (!qEnvironmentVariableIsEmpty("TOKENSCOPE_EXPECT_NO_KEYRING"))
        QFAIL("a keychain was reachable");
      QSKIP("a keychain is reachable here: run as test_serving_no_keychain");
    }
    saveServeChoice({false, true});
    setLocalProvider();
    QString error;
    QTimer closer;  // showError's message box is modal: read it and close it
    connect(&closer, &QTimer::timeout, this, [&] {
      if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
        error = box->text();
        box->close();
      }
    });
    closer.start(20);
    action("serveAction")->trigger();
    QTRY_VERIFY(!error.isEmpty());
    closer.stop();
    QVERIFY2(error.contains("require an API key, but the keychain cannot be used") &&
                 error.contains("Serve did not start"),
             qPrintable(error));
    QCOMPARE(controller_->serving().state(), LocalServing::State::Off);
    QVERIFY(!action("serveAction")->isChecked());

    ui::ServeDialog* dialog = openSettings();
    QVERIFY(dialog);
    auto* state = dialog->findChild<QLabel*>("serveKeyState");
    QVERIFY2(state->text().startsWith("The keychain cannot be used"), qPrintable(state->text()));
    QVERIFY(!dialog->findChild<QPushButton*>("serveNewKey")->isEnabled());
    dialog->close();
  }
};

QTEST_MAIN(TestServing)
#include "test_serving.moc"
