// API keys in a real Secret Service (gnome-keyring under dbus-run-session, see
// tests/with_keyring.sh), the no-service path, and the 0600 plaintext route.
#include <QEventLoop>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include "app/config/key_store.h"

using namespace ts;

namespace {
QString writeKey(KeyStore& store, const QString& provider, const QString& key) {
  QString result = "pending";
  QEventLoop loop;
  store.write(provider, key, [&](QString error) {
    result = error;
    loop.quit();
  });
  loop.exec();
  return result;
}
std::pair<QString, QString> readKey(KeyStore& store, const QString& provider) {
  std::pair<QString, QString> result;
  QEventLoop loop;
  store.read(provider, [&](QString key, QString error) {
    result = {key, error};
    loop.quit();
  });
  loop.exec();
  return result;
}
QString removeKey(KeyStore& store, const QString& provider) {
  QString result;
  QEventLoop loop;
  store.remove(provider, [&](QString error) {
    result = error;
    loop.quit();
  });
  loop.exec();
  return result;
}
}  // namespace

class TestKeyStore : public QObject {
  Q_OBJECT
 private slots:
  void storeReadDeleteInTheRealKeychain() {
    const KeychainStatus status = KeyStore::probe();
    if (!status.available && qEnvironmentVariableIsEmpty("TOKENSCOPE_REQUIRE_KEYRING"))
      QSKIP("no Secret Service here: run under tests/with_keyring.sh");
    QVERIFY2(status.available, qPrintable(status.reason));
    KeyStore store;
    QCOMPARE(writeKey(store, "TaoToken", "sk-test-123"), QString());
    QCOMPARE(readKey(store, "TaoToken"), std::make_pair(QString("sk-test-123"), QString()));
    QCOMPARE(writeKey(store, "TaoToken", "sk-test-456"), QString());  // replaced, not added
    QCOMPARE(readKey(store, "TaoToken").first, QString("sk-test-456"));
    QCOMPARE(removeKey(store, "TaoToken"), QString());
    const auto missing = readKey(store, "TaoToken");
    QVERIFY(missing.first.isEmpty());
    QVERIFY2(missing.second.contains("no key is stored"), qPrintable(missing.second));
  }

  void noSecretServiceIsExplained() {
    if (!qEnvironmentVariableIsSet("TOKENSCOPE_EXPECT_NO_KEYRING"))
      QSKIP("only meaningful without a session bus (registered as test_key_store_no_service)");
    const KeychainStatus status = KeyStore::probe();
    QVERIFY(!status.available);
    QVERIFY2(status.reason.contains("no Secret Service is reachable"), qPrintable(status.reason));
    QVERIFY(status.reason.contains("environment variable"));
    KeyStore store;
    const QString error = writeKey(store, "TaoToken", "sk-x");
    QVERIFY2(error.contains("Could not store the API key") &&
                 error.contains("no Secret Service is reachable"),
             qPrintable(error));
  }

  void plaintextFileIsReadableByTheUserAlone() {
    QTemporaryDir dir;
    qputenv("TOKENSCOPE_CONFIG_DIR", dir.path().toUtf8());
    QCOMPARE(KeyStore::writePlaintext("My/Provider", "  sk-plain\n"), QString());
    const QString path = KeyStore::plaintextPath("My/Provider");
    QVERIFY(path.startsWith(dir.path() + "/keys/"));
    QCOMPARE(QFileInfo(path).permissions() &
                 (QFile::ReadGroup | QFile::ReadOther | QFile::WriteGroup | QFile::WriteOther),
             QFile::Permissions());
    QString error;
    QCOMPARE(KeyStore::readPlaintext("My/Provider", &error), QString("sk-plain"));
    KeyStore::removePlaintext("My/Provider");
    QVERIFY(KeyStore::readPlaintext("My/Provider", &error).isEmpty());
    QVERIFY(error.contains("cannot read the key file"));
    qunsetenv("TOKENSCOPE_CONFIG_DIR");
  }
};

QTEST_GUILESS_MAIN(TestKeyStore)
#include "test_key_store.moc"
