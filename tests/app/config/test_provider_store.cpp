// Providers survive a restart; a damaged file is kept aside and reported, not lost.
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include "app/config/provider_store.h"

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
                       {"B", "https://b.example/api", "m2", "", 90, 0, KeySource::Keychain,
                        ProviderKind::Remote, "id-b"}},
                      1};
    QCOMPARE(store.save(list), QString());
    ProviderList back = store.load();
    QCOMPARE(back.providers.size(), size_t{2});
    QVERIFY(!back.providers[0].id.empty());  // assigned on load
    back.providers[0].id.clear();
    QVERIFY(back.providers[0] == list.providers[0]);
    QVERIFY(back.providers[1] == list.providers[1]);
    QCOMPARE(back.providers[1].key_source, KeySource::Keychain);
    QCOMPARE(back.current, 1);
  }
  // A local provider keeps how the engine runs it (weights, KV cache, backend, device,
  // threads, context); a file from before these settings loads with the defaults.
  void localEngineSettingsSurviveARestart() {
    QTemporaryDir dir;
    ProviderStore store(dir.filePath("providers.json"));
    ProviderSettings local{"Tiny",
                           "/models/tiny.gguf",
                           "tiny",
                           "",
                           60,
                           0,
                           KeySource::Environment,
                           ProviderKind::LocalEngine,
                           "id-t"};
    local.local = {"int4", "int8", "cuda", 1, 6, 1024};
    QCOMPARE(store.save({{local}, 0}), QString());
    const ProviderList back = store.load();
    QVERIFY(back.providers.at(0) == local);
    QVERIFY(back.providers.at(0).local.weights == "int4" && back.providers.at(0).local.device == 1);
    QFile old(dir.filePath("old.json"));
    QVERIFY(old.open(QIODevice::WriteOnly));
    old.write(R"({"providers": [{"name": "Old", "base_url": "/m.gguf", "kind": "local"}]})");
    old.close();
    const ProviderList before = ProviderStore(dir.filePath("old.json")).load();
    QVERIFY(before.providers.at(0).local == LocalEngineSettings{});
  }
  void presetsAreTheThreeKinds() {
    const auto presets = ProviderStore::presets().providers;
    QCOMPARE(presets.size(), size_t{3});
    QCOMPARE(presets[1].name, std::string("OpenAI-compatible"));
    QCOMPARE(presets[2].name, std::string("TokenScope local server"));
    for (const auto& p : presets) QVERIFY(!p.id.empty());
  }

  void upsertKeepsTheKeychainLink() {
    std::vector<ProviderSettings> list{
        {"Gw", "http://a", "m", "", 60, 2, KeySource::Keychain, ProviderKind::Remote, "id-gw"}};
    upsertProvider(list, {"gw", "http://b", "m2", "", 30, 1});
    QCOMPARE(list.size(), size_t{1});
    QCOMPARE(list[0].base_url, std::string("http://b"));
    QCOMPARE(list[0].id, std::string("id-gw"));
    QCOMPARE(list[0].key_source, KeySource::Keychain);
    upsertProvider(list, {"New", "http://c", "m", "", 60, 2});
    QVERIFY(!list[1].id.empty());
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
