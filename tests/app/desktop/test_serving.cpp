// Provider → Serve settings, as a user drives them (offscreen): where Serve listens and
// whether it requires an API key, kept between starts; the loud warning for every network
// without a key (in the dialog and, while serving, in the status bar); a required key made
// in the real keychain, shown once (copyable), demanded by the server (401 without it) and
// never written to a file; and no Serve at all when a key is required but no keychain is
// reachable. The keychain functions run under tests/with_keyring.sh.
#include <httplib.h>

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QDirIterator>
#include <QEventLoop>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QRadioButton>
#include <QRegularExpression>
#include <QSettings>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include "app/desktop/app_controller.h"
#include "app/desktop/serve_settings.h"
#include "app/desktop/serving_controller.h"
#include "ui/main_window.h"
#include "ui/serve_dialog.h"

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
  void setLocalProvider() {
    window_->setProviders({{"Local", localModel().toStdString(), "aidreams260K", "", 60, 0,
                            KeySource::Environment, ProviderKind::LocalEngine}},
                          0);
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
