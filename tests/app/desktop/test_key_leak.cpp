// A key set in the API key dialog goes to the real keychain, is sent to the server, and
// appears in no file the app wrote: settings, providers, logs, exports. Runs under
// tests/with_keyring.sh (a temporary HOME with an unlocked gnome-keyring).
#include <QDirIterator>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalSpy>
#include <QTest>

#include "app/desktop/app_controller.h"
#include "tests/support/openai_test_server.h"
#include "ui/api_key_dialog.h"
#include "ui/chat_panel.h"
#include "ui/main_window.h"

using namespace ts;
using ts::testing::OpenAiTestServer;
using ts::testing::ServerScript;

namespace {
const QByteArray kCanary = "sk-canary-7f3a9c51e2";
}

class TestKeyLeak : public QObject {
  Q_OBJECT
  OpenAiTestServer server_;

  static ui::ApiKeyDialog* openKeyDialog(ui::MainWindow& window) {
    emit window.apiKeyRequested(*window.currentProviderSettings());
    ui::ApiKeyDialog* dialog = nullptr;
    [&] {
      QTRY_VERIFY((dialog = window.findChild<ui::ApiKeyDialog*>("apiKeyDialog")) != nullptr);
    }();
    return dialog;
  }
  static void send(ui::MainWindow& window, const QString& text) {
    QSignalSpy shown(&window, &ui::MainWindow::runDisplayed);
    window.findChild<QPlainTextEdit*>("input")->setPlainText(text);
    window.send();
    QVERIFY(shown.wait(10000));
  }

 private slots:
  void initTestCase() { QVERIFY(server_.start() > 0); }
  void cleanupTestCase() { server_.stop(); }

  void keyFromTheKeychainIsUsedAndNeverWritten() {
    if (!KeyStore::probe().available) {
      if (qEnvironmentVariableIsEmpty("TOKENSCOPE_REQUIRE_KEYRING"))
        QSKIP("run under tests/with_keyring.sh");
      QFAIL(qPrintable(KeyStore::probe().reason));
    }
    const QString home = QDir::homePath();
    QVERIFY2(home.startsWith("/tmp"), "must run in a temporary HOME");
    ServerScript s;
    s.required_key = kCanary.toStdString();
    server_.setScript(s);

    ui::MainWindow window;
    AppController controller(&window, ProviderStore(), home + "/logs", true);
    window.setProviders({{"Gateway", server_.baseUrl(), "test-model", "", 5, 0}}, 0);
    window.show();

    ui::ApiKeyDialog* dialog = openKeyDialog(window);
    QVERIFY(dialog->findChild<QRadioButton*>("keychainRadio")->isEnabled());
    dialog->findChild<QRadioButton*>("keychainRadio")->setChecked(true);
    auto* key = dialog->findChild<QLineEdit*>("keyEdit");
    QCOMPARE(key->echoMode(), QLineEdit::Password);  // masked
    key->setText("  " + QString::fromLatin1(kCanary) + "  ");
    QVERIFY(dialog->findChild<QLabel*>("keyNote")->text().contains("will be removed"));
    QTest::mouseClick(dialog->findChild<QPushButton*>("testKeyButton"), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(
        dialog->findChild<QLabel*>("testResult")->text().contains("The key works"), 10000);
    dialog->accept();
    QTRY_COMPARE_WITH_TIMEOUT(window.currentProviderSettings()->key_source, KeySource::Keychain,
                              5000);

    send(window, "hello with a keychain key");
    QCOMPARE(window.chatPanel()->lastAssistantText(),
             QString::fromStdString(OpenAiTestServer::expectedText(s)));
    // A rejected key's error message does not contain it either.
    s.required_key = "sk-some-other-key";
    server_.setScript(s);
    send(window, "now rejected");
    QVERIFY(window.chatPanel()->transcriptText().contains("HTTP 401"));
    QCOMPARE(controller.exportConfig(home + "/export.toml"), QString());
    QCOMPARE(controller.exportConfig(home + "/export.json"), QString());

    // Every file written under HOME, except the keychain's own encrypted store.
    int files = 0;
    QDirIterator it(home, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
      const QString path = it.next();
      if (path.contains("/keyrings/")) continue;
      QFile f(path);
      if (!f.open(QIODevice::ReadOnly)) continue;
      ++files;
      QVERIFY2(!f.readAll().contains(kCanary), qPrintable("the key leaked into " + path));
    }
    QVERIFY2(files >= 4, qPrintable(QString("only %1 files were checked").arg(files)));
    QVERIFY(QFile::exists(home + "/.config/tokenscope/providers.json"));
  }

  void withoutASecretServiceTheDialogOffersTheOtherRoutes() {
    if (qEnvironmentVariableIsEmpty("TOKENSCOPE_EXPECT_NO_KEYRING"))
      QSKIP("only meaningful without a session bus (registered as test_key_dialog_no_service)");
    ui::MainWindow window;
    AppController controller(&window, ProviderStore(QDir::tempPath() + "/ts-no-service.json"),
                             QDir::tempPath() + "/ts-no-service-logs", false);
    window.setProviders({{"Gateway", server_.baseUrl(), "test-model", "GATEWAY_KEY", 5, 0}}, 0);
    ui::ApiKeyDialog* dialog = openKeyDialog(window);
    QVERIFY(!dialog->findChild<QRadioButton*>("keychainRadio")->isEnabled());
    QVERIFY(dialog->findChild<QRadioButton*>("envRadio")->isChecked());
    const QString note = dialog->findChild<QLabel*>("keychainNote")->text();
    QVERIFY2(note.contains("no Secret Service is reachable"), qPrintable(note));
    dialog->findChild<QRadioButton*>("fileRadio")->setChecked(true);
    QVERIFY(dialog->findChild<QLabel*>("fileWarning")->isVisible());
    QVERIFY(dialog->findChild<QLabel*>("fileWarning")->text().contains("0600"));
    dialog->reject();
  }
};

QTEST_MAIN(TestKeyLeak)
#include "test_key_leak.moc"
