// Providers survive a restart; a damaged file is kept aside and reported, not lost.
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include "app/provider_store.h"

using namespace ts;

class TestProviderStore : public QObject {
  Q_OBJECT
 private slots:
  void missingFileGivesPresets() {
    QTemporaryDir dir;
    const ProviderList list = ProviderStore(dir.filePath("providers.json")).load();
    QCOMPARE(list.providers.front().name, std::string("TaoToken"));
    QCOMPARE(list.providers.front().base_url, std::string("https://taotoken.net/api"));
    QCOMPARE(list.providers.front().api_key_env, std::string("TAOTOKEN_API_KEY"));
  }
  void roundTrip() {
    QTemporaryDir dir;
    ProviderStore store(dir.filePath("sub/providers.json"));
    ProviderList list{{{"A", "http://127.0.0.1:1", "m1", "KEY_A", 30, 1},
                       {"B", "https://b.example/api", "m2", "", 90, 0}},
                      1};
    QCOMPARE(store.save(list), QString());
    const ProviderList back = store.load();
    QCOMPARE(back.providers.size(), size_t{2});
    QVERIFY(back.providers[0] == list.providers[0]);
    QVERIFY(back.providers[1] == list.providers[1]);
    QCOMPARE(back.current, 1);
  }
  void damagedFileIsKeptAsideAndReported() {
    QTemporaryDir dir;
    const QString path = dir.filePath("providers.json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"providers\": [ {\"name\": ");
    f.close();
    QString error;
    const ProviderList list = ProviderStore(path).load(&error);
    QVERIFY2(error.contains("damaged") && error.contains(".bad"), qPrintable(error));
    QVERIFY(QFile::exists(path + ".bad"));
    QCOMPARE(list.providers.front().name, std::string("TaoToken"));
  }
};

QTEST_GUILESS_MAIN(TestProviderStore)
#include "test_provider_store.moc"
