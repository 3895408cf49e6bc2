// settings.json and config.toml: the users' files, round trips, every kind of bad input,
// and where each effective value comes from.
#include <QDir>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

#include "app/config/config_files.h"
#include "app/config/config_schema.h"
#include "app/config/effective_config.h"

using namespace ts::config;

namespace {
QString sharedDir() {
  return qEnvironmentVariable("TOKENSCOPE_SHARED_DIR", "../shared");
}
const ConfigValues kExample = {{"provider", "taotoken"},
                               {"base_url", "https://taotoken.net/api"},
                               {"api_key_env", "TAOTOKEN_API_KEY"},
                               {"default_model", "baichuan"},
                               {"timeout_seconds", 60},
                               {"max_retries", 2},
                               {"inference.temperature", 0.7},
                               {"inference.top_p", 0.9},
                               {"inference.max_tokens", 512},
                               {"inference.stream", true},
                               {"observability.log_ttft", true},
                               {"observability.log_tpot", true},
                               {"observability.log_dir", "./logs/infer"}};
}  // namespace

class TestConfig : public QObject {
  Q_OBJECT
 private slots:
  void usersExampleFilesReadCompletely_data() {
    QTest::addColumn<QString>("name");
    QTest::newRow("json") << "settings.json";
    QTest::newRow("toml") << "config.toml";
  }
  void usersExampleFilesReadCompletely() {
    QFETCH(QString, name);
    const QString path = sharedDir() + "/config-examples/" + name;
    if (!QFile::exists(path)) QSKIP(qPrintable(path + " is absent (../shared not laid out)"));
    const ConfigFile f = readConfigFile(path);
    QVERIFY2(f.ok(), qPrintable(f.errorText()));
    QVERIFY(f.warnings.isEmpty());
    QCOMPARE(f.values, kExample);
  }

  void roundTripsBothFormatsAndAcross() {
    const ConfigFile json = parseSettingsJson(writeSettingsJson(kExample), "a.json");
    QVERIFY2(json.ok(), qPrintable(json.errorText()));
    QCOMPARE(json.values, kExample);
    const QByteArray toml_text = writeConfigToml(json.values);
    QVERIFY(toml_text.contains("top_p = 0.9\n"));  // not 0.90000000000000002
    QVERIFY(toml_text.contains("name = \"taotoken\""));
    const ConfigFile toml = parseConfigToml(toml_text, "a.toml");
    QVERIFY2(toml.ok(), qPrintable(toml.errorText()));
    QCOMPARE(toml.values, kExample);
    QCOMPARE(writeSettingsJson(toml.values), writeSettingsJson(kExample));
  }

  void exportedFilesNeverHoldAKey() {
    qputenv("TAOTOKEN_API_KEY", "sk-never-export-me");
    QTemporaryDir dir;
    EffectiveConfig cfg;
    for (const char* name : {"out.json", "out.toml"}) {
      const QString path = dir.filePath(name);
      QCOMPARE(writeConfigFile(path, cfg.values()), QString());
      QFile f(path);
      QVERIFY(f.open(QIODevice::ReadOnly));
      const QByteArray bytes = f.readAll();
      QVERIFY(bytes.contains("TAOTOKEN_API_KEY"));
      QVERIFY(!bytes.contains("sk-never-export-me"));
    }
    qunsetenv("TAOTOKEN_API_KEY");
  }

  void malformedJsonGivesLineAndColumn() {
    const ConfigFile f =
        parseSettingsJson("{\n  \"provider\": \"taotoken\",\n  \"max_retries\": 2,\n}", "s.json");
    QCOMPARE(f.errors.size(), 1);
    QCOMPARE(f.errors[0].line, 4);
    QVERIFY(f.errorText().startsWith("s.json:4:"));
  }

  void malformedTomlGivesLineAndColumn() {
    const ConfigFile f =
        parseConfigToml("[inference]\ntemperature = 0.7\ntop_p = = 0.9\n", "c.toml");
    QCOMPARE(f.errors.size(), 1);
    QCOMPARE(f.errors[0].line, 3);
    QVERIFY(f.errors[0].column > 0);
    QVERIFY2(f.errorText().contains("c.toml:3:"), qPrintable(f.errorText()));
  }

  void outOfRangeValuesNameTheFieldAndTheRange() {
    const ConfigFile f = parseConfigToml(
        "[provider]\nname = \"nope\"\n[inference]\ntemperature = -0.5\ntop_p = 1.2\nmax_tokens = "
        "0\n",
        "c.toml");
    const QString text = f.errorText();
    QCOMPARE(f.errors.size(), 4);
    QVERIFY(text.contains(
        "c.toml:4:15: inference.temperature: expected a number from 0 to 2, found -0.5"));
    QVERIFY(text.contains("inference.top_p: expected a number from 0 to 1, found 1.2"));
    QVERIFY(
        text.contains("inference.max_tokens: expected a whole number from 1 to 10000000, found 0"));
    QVERIFY(text.contains("provider: unknown provider 'nope'; expected one of taotoken"));
    // A configured provider's name is known; a new one with a base_url is fine too.
    QVERIFY(parseConfigToml("[provider]\nname = \"mine\"\n", "c.toml", {"mine"}).ok());
    QVERIFY(
        parseConfigToml("[provider]\nname = \"x\"\nbase_url = \"http://127.0.0.1:9\"\n", "c.toml")
            .ok());
  }

  void wrongTypesSayWhatWasFound() {
    const ConfigFile f = parseSettingsJson(
        "{\"timeout_seconds\": \"60\", \"inference\": {\"stream\": \"yes\", \"max_tokens\": 12.5}}",
        "s.json");
    const QString text = f.errorText();
    QVERIFY2(text.contains("timeout_seconds: expected a whole number from 1 to 86400, found '60'"),
             qPrintable(text));
    QVERIFY(text.contains("inference.stream: expected true or false, found 'yes'"));
    QVERIFY(text.contains(
        "inference.max_tokens: expected a whole number from 1 to 10000000, found 12.5"));
    QVERIFY(text.contains("s.json:1:"));  // the key's position is found in the text
  }

  void badBaseUrlIsAnError() {
    const ConfigFile f = parseSettingsJson("{\"base_url\": \"ftp://x\"}", "s.json");
    QVERIFY(f.errorText().contains("base_url: the base URL 'ftp://x' uses scheme 'ftp'"));
  }

  void unknownKeysAreWarnedAndIgnored() {
    const ConfigFile f =
        parseSettingsJson("{\"colour\": \"blue\", \"inference\": {\"top_k\": 5}}", "s.json");
    QVERIFY(f.ok());
    QCOMPARE(f.warnings.size(), 2);
    QVERIFY(f.values.isEmpty());
  }

  void environmentOverridesTheFile() {
    EffectiveConfig cfg;
    cfg.apply({{"inference.temperature", 0.2}, {"default_model", "from-file"}}, Source::File,
              "c.toml");
    QProcessEnvironment env;
    env.insert("TOKENSCOPE_TEMPERATURE", "1.1");
    env.insert("TOKENSCOPE_MAX_TOKENS", "many");
    const auto issues = cfg.applyEnvironment(env);
    QCOMPARE(cfg.value("inference.temperature").toDouble(), 1.1);
    QCOMPARE(cfg.describeSource("inference.temperature"),
             QString("environment variable TOKENSCOPE_TEMPERATURE"));
    QCOMPARE(cfg.value("default_model").toString(), QString("from-file"));
    QCOMPARE(cfg.describeSource("default_model"), QString("config file c.toml"));
    QCOMPARE(cfg.describeSource("max_retries"), QString("built-in default"));
    QCOMPARE(issues.size(), 1);  // the bad one is reported and not applied
    QVERIFY(issues[0].message.contains("TOKENSCOPE_MAX_TOKENS"));
    QCOMPARE(cfg.value("inference.max_tokens").toInt(), 512);
    cfg.apply({{"inference.temperature", 0.0}}, Source::UserInterface, {});
    QCOMPARE(cfg.describeSource("inference.temperature"), QString("set in the UI"));
  }

  void configFileIsLocatedInOrder() {
    QTemporaryDir dir;
    const QString old = QDir::currentPath();
    QDir::setCurrent(dir.path());
    qunsetenv("TOKENSCOPE_CONFIG");
    QCOMPARE(locateConfigFile({}, dir.filePath("cfgdir")), QString());
    QFile(dir.filePath("settings.json")).open(QIODevice::WriteOnly);
    QCOMPARE(locateConfigFile({}, {}), QString("settings.json"));
    QFile(dir.filePath("config.toml")).open(QIODevice::WriteOnly);
    QCOMPARE(locateConfigFile({}, {}), QString("config.toml"));
    qputenv("TOKENSCOPE_CONFIG", "/elsewhere.toml");
    QCOMPARE(locateConfigFile({}, {}), QString("/elsewhere.toml"));
    QCOMPARE(locateConfigFile("given.json", {}), QString("given.json"));
    qunsetenv("TOKENSCOPE_CONFIG");
    QDir::setCurrent(old);
  }
};

QTEST_GUILESS_MAIN(TestConfig)
#include "test_config.moc"
