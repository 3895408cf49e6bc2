// Request bodies, chunk parsing, error bodies and base URL normalisation.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include "inference/remote/api_key.h"
#include "inference/remote/base_url.h"
#include "inference/remote/chat_json.h"

using namespace ts;

class TestChatJson : public QObject {
  Q_OBJECT
 private slots:
  void baseUrlShapesNormalise_data() {
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("root");
    QTest::newRow("plain") << "https://taotoken.net/api"
                           << "https://taotoken.net/api";
    QTest::newRow("slash") << "https://taotoken.net/api/"
                           << "https://taotoken.net/api";
    QTest::newRow("v1") << "https://taotoken.net/api/v1"
                        << "https://taotoken.net/api";
    QTest::newRow("v1 slash") << "https://taotoken.net/api/v1/"
                              << "https://taotoken.net/api";
    QTest::newRow("full") << "https://taotoken.net/api/v1/chat/completions"
                          << "https://taotoken.net/api";
    QTest::newRow("spaces") << "  http://127.0.0.1:8000/v1  "
                            << "http://127.0.0.1:8000";
    QTest::newRow("no scheme local") << "localhost:8000"
                                     << "http://localhost:8000";
    QTest::newRow("no scheme remote") << "api.example.com/v1"
                                      << "https://api.example.com";
  }
  void baseUrlShapesNormalise() {
    QFETCH(QString, input);
    QFETCH(QString, root);
    const auto n = normalizeBaseUrl(input);
    QVERIFY2(n.ok(), qPrintable(n.error));
    QCOMPARE(n.root, root);
    QCOMPARE(chatCompletionsUrl(n.root).toString(), root + "/v1/chat/completions");
  }
  void badBaseUrlsSayWhatWasExpected() {
    QVERIFY(normalizeBaseUrl("").error.contains("empty"));
    const auto ftp = normalizeBaseUrl("ftp://host/api");
    QVERIFY(ftp.error.contains("scheme 'ftp'"));
    QVERIFY(ftp.error.contains("expected http or https"));
    QVERIFY(normalizeBaseUrl("http://").error.contains("not a valid URL"));
  }
  void notesSayWhatChanged() {
    const auto n = normalizeBaseUrl("https://h/api/v1/chat/completions");
    QCOMPARE(n.notes.size(), 2);
    QVERIFY(n.notes.join(" ").contains("/v1"));
  }
  void requestBodyCarriesParameters() {
    GenerationRequest r;
    r.model = "baichuan";
    r.messages = {{"system", "be brief"}, {"user", "你好"}};
    r.params = {0.3, 0.8, 64, true, 7};
    const auto body = QJsonDocument::fromJson(buildChatRequestBody(r, true)).object();
    QCOMPARE(body.value("model").toString(), QString("baichuan"));
    QCOMPARE(body.value("messages").toArray().size(), 2);
    QCOMPARE(body.value("messages").toArray()[1].toObject().value("content").toString(),
             QString("你好"));
    QCOMPARE(body.value("temperature").toDouble(), 0.3);
    QCOMPARE(body.value("top_p").toDouble(), 0.8);
    QCOMPARE(body.value("max_tokens").toInt(), 64);
    QCOMPARE(body.value("seed").toInt(), 7);
    QVERIFY(body.value("stream_options").toObject().value("include_usage").toBool());
    // top_k and repetition_penalty: extensions, sent only when set (OpenAI refuses them)
    QVERIFY(!body.contains("top_k") && !body.contains("repetition_penalty"));
    r.params.top_k = 5;
    r.params.repetition_penalty = 1.05;
    const auto extended = QJsonDocument::fromJson(buildChatRequestBody(r, true)).object();
    QCOMPARE(extended.value("top_k").toInt(), 5);
    QCOMPARE(extended.value("repetition_penalty").toDouble(), 1.05);
    r.params.top_k = 0;
    r.params.repetition_penalty = 1.0;
    QVERIFY(!QJsonDocument::fromJson(buildChatRequestBody(r, false))
                 .object()
                 .contains("stream_options"));
    r.params.stream = false;  // stream_options is only valid with stream=true
    QVERIFY(!QJsonDocument::fromJson(buildChatRequestBody(r, true))
                 .object()
                 .contains("stream_options"));
  }
  void chunkParsing() {
    const auto c = parseChatChunk(
        R"({"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]})");
    QVERIFY(c.valid_json);
    QCOMPARE(c.content, std::string("Hi"));
    QVERIFY(c.finish_reason.empty());
    const auto u =
        parseChatChunk(R"({"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":9}})");
    QCOMPARE(*u.prompt_tokens, 5);
    QCOMPARE(*u.completion_tokens, 9);
    const auto f = parseChatChunk(R"({"choices":[{"delta":{},"finish_reason":"length"}]})");
    QCOMPARE(f.finish_reason, std::string("length"));
    const auto bad = parseChatChunk("{not json");
    QVERIFY(!bad.valid_json);
    QVERIFY(!bad.parse_error.isEmpty());
    const auto err = parseChatChunk(R"({"error":{"message":"overloaded"}})");
    QCOMPARE(err.api_error, QString("overloaded"));
  }
  void completionParsing() {
    const auto c = parseChatCompletion(
        R"({"choices":[{"message":{"role":"assistant","content":"Full"},"finish_reason":"stop"}],"usage":{"completion_tokens":1}})");
    QCOMPARE(c.content, std::string("Full"));
    QCOMPARE(c.finish_reason, std::string("stop"));
    QCOMPARE(*c.completion_tokens, 1);
  }
  void errorBodies() {
    QCOMPARE(apiErrorMessage(R"({"error":{"message":"Invalid key"}})"), QString("Invalid key"));
    QCOMPARE(apiErrorMessage(R"({"detail":"Not Found"})"), QString("Not Found"));
    QCOMPARE(apiErrorMessage("<html>bad gateway</html>"), QString("<html>bad gateway</html>"));
    QVERIFY(bodySaysModelNotFound(R"({"error":{"message":"x","code":"model_not_found"}})"));
    QVERIFY(bodySaysModelNotFound(R"({"error":{"message":"The model `gpt-5` does not exist"}})"));
    QVERIFY(!bodySaysModelNotFound(R"({"error":{"message":"Not Found"}})"));
    QCOMPARE(parseModelIds(R"({"data":[{"id":"a"},{"id":"b"}]})"), (QStringList{"a", "b"}));
  }
  void apiKeyResolution() {
    qputenv("TS_TEST_KEY_SPACES", "  sk-abc\n");
    const auto spaced = resolveApiKey({}, "TS_TEST_KEY_SPACES");
    QCOMPARE(spaced.key, QByteArray("sk-abc"));
    QVERIFY(spaced.had_whitespace);
    qunsetenv("TS_TEST_KEY_UNSET");
    const auto unset = resolveApiKey({}, "TS_TEST_KEY_UNSET");
    QCOMPARE(unset.state, KeyState::EnvUnset);
    QVERIFY(authFixHint(unset).contains("TS_TEST_KEY_UNSET is not set"));
    qputenv("TS_TEST_KEY_EMPTY", " ");
    QCOMPARE(resolveApiKey({}, "TS_TEST_KEY_EMPTY").state, KeyState::EnvEmpty);
    QCOMPARE(resolveApiKey("explicit", "TS_TEST_KEY_UNSET").key, QByteArray("explicit"));
    QCOMPARE(resolveApiKey({}, {}).state, KeyState::NotConfigured);
  }
};

QTEST_GUILESS_MAIN(TestChatJson)
#include "test_chat_json.moc"
