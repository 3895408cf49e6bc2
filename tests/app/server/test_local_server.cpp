// `serve`'s OpenAI-compatible server on the real aidreams260K model, over real HTTP on
// 127.0.0.1: the foundation's streaming client against it (text, usage, errors, cancel),
// raw HTTP for bad requests, the fair queue and its 429, 64 concurrent streams, and the
// CLI command as a user starts and stops it.
#include <httplib.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>
#include <condition_variable>
#include <csignal>
#include <mutex>
#include <thread>

#include "app/server/http_server.h"
#include "app/server/local_server.h"
#include "inference/engine/cpu/cpu_forward.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/remote/openai_client.h"
#include "tests/app/server/server_fixture.h"

using namespace ts;

namespace {

// A real CPU session whose passes wait while the gate is closed: holds a generation at a
// known point so that the queue's behaviour can be observed without timing guesses.
class GatedSession : public engine::DecodeSession {
 public:
  GatedSession(std::shared_ptr<const engine::Model> model, int positions)
      : cpu_(model, positions) {}
  std::span<const float> forwardBatch(std::span<const int> tokens, int pos, bool all) override {
    std::unique_lock lock(mutex_);
    ++entered_;
    changed_.notify_all();
    changed_.wait(lock, [&] { return open_; });
    lock.unlock();
    return cpu_.forwardBatch(tokens, pos, all);
  }
  void truncate(int length) override { cpu_.truncate(length); }
  int vocab() const override { return cpu_.vocab(); }
  int maxPositions() const override { return cpu_.maxPositions(); }
  void open() {
    std::lock_guard lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }
  bool waitEntered() {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(10), [&] { return entered_ > 0; });
  }

 private:
  engine::CpuSession cpu_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool open_ = false;
  int entered_ = 0;
};

// A LocalServer listening on 127.0.0.1 in its own thread for the life of the object.
struct RunningServer {
  std::unique_ptr<server::LocalServer> server;
  int port = -1;
  RunningServer(std::shared_ptr<const engine::Model> model,
                std::unique_ptr<engine::DecodeSession> session, server::ServerOptions options,
                engine::SchedulerOptions scheduling = {}) {
    server = std::make_unique<server::LocalServer>(
        model,
        std::make_shared<engine::Scheduler>(std::move(session), engine::Tokenizer(model->vocab),
                                            scheduling),
        options);
    port = server->bind("127.0.0.1", 0);
    server->start();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port); }
};

std::string body(const std::string& content, int max_tokens, bool stream,
                 const std::string& extra = "", const std::string& model = "aidreams") {
  return "{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"user\",\"content\":\"" + content +
         "\"}],\"temperature\":0,\"max_tokens\":" + std::to_string(max_tokens) +
         ",\"stream\":" + (stream ? "true" : "false") + extra + "}";
}

}  // namespace

class TestLocalServer : public QObject {
  Q_OBJECT
  QString models_ = qEnvironmentVariable("TOKENSCOPE_SHARED_DIR", "../shared") + "/models";
  std::shared_ptr<engine::Model> model_;
  QJsonObject reference_;

  std::unique_ptr<engine::DecodeSession> cpuSession() {
    return std::make_unique<engine::CpuSession>(model_, 128);
  }
  std::shared_ptr<engine::Scheduler> scheduler() {
    return std::make_shared<engine::Scheduler>(cpuSession(), engine::Tokenizer(model_->vocab),
                                               engine::SchedulerOptions{});
  }
  static server::ServerOptions options(const std::string& key = "", int max_queue = 16) {
    return testing::serverOptions(key, max_queue);
  }
  QString referenceText() const { return reference_.value("generated_text").toString(); }
  int referenceTokens() const { return reference_.value("generated_ids").toArray().size(); }

  RemoteResult runClient(const std::string& url, const std::string& model, bool stream,
                         const QString& key = "", int cancel_after = -1) {
    RemoteEndpoint e;
    e.provider_name = "local";
    e.base_url = QString::fromStdString(url);
    e.api_key = key;
    e.max_retries = 0;
    e.timeouts = {2000, 10000, 10000, 30000};
    GenerationRequest r;
    r.model = model;
    r.messages = {{"user", "I dreamed"}};
    r.params.temperature = 0;
    r.params.max_tokens = referenceTokens();
    r.params.stream = stream;
    OpenAiClient client;
    QSignalSpy done(&client, &OpenAiClient::runFinished);
    int chunks = 0;
    connect(&client, &OpenAiClient::eventReady, &client, [&](const StreamEvent& ev) {
      if (ev.kind == EventKind::TokenChunk && ++chunks == cancel_after) client.cancel();
    });
    client.start(e, r);
    if (done.isEmpty()) [&] { QVERIFY(done.wait(30000)); }();
    return client.result();
  }

 private slots:
  void initTestCase() {
    const QString path = models_ + "/aidreams260K/aidreams260K.gguf";
    if (!QFile::exists(path))
      QSKIP(qPrintable(models_ + " is absent (the shared fixtures are not laid out here)"));
    auto loaded = engine::loadModel(path.toStdString());
    QVERIFY(loaded.ok());
    model_ = loaded.value();
    QFile f(models_ + "/aidreams260K/reference/I_dreamed.json");
    QVERIFY(f.open(QIODevice::ReadOnly));
    reference_ = QJsonDocument::fromJson(f.readAll()).object();
    QVERIFY(referenceTokens() > 0);
  }

  // The foundation's client, streaming and not: the reference's greedy text, usage counts.
  void theStreamingClientGetsTheReferenceText() {
    RunningServer s(model_, cpuSession(), options());
    QVERIFY(s.port > 0);
    const RemoteResult streamed = runClient(s.url(), "aidreams", true);
    QVERIFY2(streamed.run.terminal() && streamed.run.terminal()->kind == EventKind::Finished,
             streamed.run.terminal() ? streamed.run.terminal()->text.c_str() : "no end");
    QCOMPARE(QString::fromStdString(streamed.run.contentText()), referenceText());
    QVERIFY(streamed.stream_options_sent && !streamed.stream_options_rejected);
    bool usage = false;
    for (const StreamEvent& ev : streamed.run.events)
      if (ev.kind == EventKind::Usage) {
        usage = true;
        QCOMPARE(ev.completion_tokens, static_cast<int64_t>(referenceTokens()));
        QVERIFY(ev.prompt_tokens > 1);
      }
    QVERIFY(usage);
    const RemoteResult whole = runClient(s.url(), "aidreams", false);
    QCOMPARE(QString::fromStdString(whole.run.contentText()), referenceText());
  }

  // The observer (the app's server panel and run store) hears of every admitted request
  // once it has ended: the client's model id, parameters and messages, each token with its
  // time, the counts; an alias ("local", the app's preset) is answered like the model's id,
  // and a request for another model is refused (404) and not reported.
  void theObserverHearsEveryRequestAndAnAliasIsAnswered() {
    server::ServerOptions o = options();
    o.aliases = {"local"};
    std::mutex mutex;
    std::vector<server::ServedRequest> heard;
    o.on_request = [&](const server::ServedRequest& r) {
      std::lock_guard lock(mutex);
      heard.push_back(r);
    };
    const auto count = [&] {
      std::lock_guard lock(mutex);
      return heard.size();
    };
    RunningServer s(model_, cpuSession(), o);
    const RemoteResult streamed = runClient(s.url(), "local", true);
    QVERIFY2(streamed.run.terminal() && streamed.run.terminal()->kind == EventKind::Finished,
             streamed.run.terminal() ? streamed.run.terminal()->text.c_str() : "no end");
    QCOMPARE(QString::fromStdString(streamed.run.contentText()), referenceText());
    httplib::Client http("127.0.0.1", s.port);
    auto whole = http.Post("/v1/chat/completions",
                           "{\"messages\":[{\"role\":\"user\",\"content\":\"I dreamed\"}],"
                           "\"temperature\":0.5,\"top_p\":0.8}",
                           "application/json");
    QVERIFY(whole && whole->status == 200);
    QVERIFY(QString::fromStdString(whole->body).contains("\"model\":\"aidreams\""));
    auto other =
        http.Post("/v1/chat/completions", body("x", 4, false, "", "llama-70b"), "application/json");
    QVERIFY(other && other->status == 404);
    auto models = http.Get("/v1/models");
    QVERIFY(models && !QString::fromStdString(models->body).contains("\"local\""));
    QVERIFY(testing::waitFor([&] { return count() >= 2; }));
    QCOMPARE(count(), size_t(2));

    std::lock_guard lock(mutex);
    const server::ServedRequest& a = heard[0];
    QCOMPARE(a.model, std::string("local"));
    QVERIFY(a.stream);
    QCOMPARE(a.max_tokens, std::optional<int>(referenceTokens()));
    QCOMPARE(a.sampling.temperature, 0.f);
    QCOMPARE(a.messages.size(), size_t(1));
    QCOMPARE(a.messages[0].content, std::string("I dreamed"));
    QCOMPARE(QString::fromStdString(a.text), referenceText());
    QCOMPARE(a.completion_tokens, referenceTokens());
    QCOMPARE(int(a.tokens.size()), referenceTokens());
    QVERIFY(a.prompt_tokens > 1);
    QCOMPARE(a.status, 200);
    QVERIFY(a.finish == "length" || a.finish == "stop");
    QVERIFY(a.ttftMs() > 0 && a.tpotMs() > 0);
    QVERIFY(a.end_ns >= a.tokens.back().t_ns && a.tokens.front().t_ns > a.start_ns);
    const server::ServedRequest& b = heard[1];
    QCOMPARE(b.model, std::string());
    QVERIFY(!b.stream && !b.max_tokens);  // left out: the server's default ran
    QVERIFY(b.max_tokens_used > 0 && b.max_tokens_used <= o.default_max_tokens);
    QCOMPARE(b.sampling.temperature, 0.5f);
    QCOMPARE(b.sampling.top_p, 0.8f);
  }

  void theClientReportsKeyModelAndCancel() {
    RunningServer s(model_, cpuSession(), options("secret-key"));
    const RemoteResult no_key = runClient(s.url(), "aidreams", true);
    QVERIFY(no_key.run.terminal() && no_key.run.terminal()->failure == FailureKind::Auth);
    const RemoteResult with_key = runClient(s.url(), "aidreams", true, "secret-key");
    QCOMPARE(QString::fromStdString(with_key.run.contentText()), referenceText());
    const RemoteResult unknown = runClient(s.url(), "gpt-9", true, "secret-key");
    QVERIFY(unknown.run.terminal() &&
            unknown.run.terminal()->failure == FailureKind::ModelNotFound);
    QVERIFY2(unknown.available_models.contains("aidreams"),
             qPrintable(unknown.available_models.join(",")));
    const RemoteResult cancelled = runClient(s.url(), "aidreams", true, "secret-key", 3);
    QVERIFY(cancelled.cancelled);
    QVERIFY(referenceText().startsWith(QString::fromStdString(cancelled.run.contentText())));
  }

  // A request that leaves the sampling fields out gets the model's generation_config.json
  // suggestions: a model that suggests greedy decoding (do_sample false: temperature 0)
  // answers with the reference's greedy text whatever the seed; without suggestions the
  // same request samples at OpenAI's temperature 1, and seeds then differ.
  void requestsWithoutSamplingFieldsGetTheModelsSuggestions() {
    auto greedy = std::make_shared<engine::Model>(*model_);
    greedy->generation.temperature = 0.0;
    greedy->generation.top_k = 5;
    const auto ask = [&](const RunningServer& s, int seed) {
      httplib::Client http("127.0.0.1", s.port);
      const std::string b =
          "{\"messages\":[{\"role\":\"user\",\"content\":\"I dreamed\"}],"
          "\"max_tokens\":" +
          std::to_string(referenceTokens()) + ",\"seed\":" + std::to_string(seed) + "}";
      auto res = http.Post("/v1/chat/completions", b, "application/json");
      if (!res || res->status != 200) return QString("HTTP error");
      return QJsonDocument::fromJson(QByteArray::fromStdString(res->body))
          .object()["choices"]
          .toArray()[0]
          .toObject()["message"]
          .toObject()["content"]
          .toString();
    };
    {
      RunningServer s(greedy, std::make_unique<engine::CpuSession>(greedy, 128), options());
      QCOMPARE(ask(s, 1), referenceText());
      QCOMPARE(ask(s, 2), referenceText());
    }
    RunningServer plain(model_, cpuSession(), options());
    QVERIFY(ask(plain, 1) != ask(plain, 2));
  }

  // Raw HTTP: each mistake a 400 naming the field, an OpenAI-style error body.
  void badRequestsGetOpenAiErrors() {
    RunningServer s(model_, cpuSession(), options());
    httplib::Client http("127.0.0.1", s.port);
    const auto error = [&](const std::string& b, int status, const QString& param,
                           const QString& says) {
      auto res = http.Post("/v1/chat/completions", b, "application/json");
      QVERIFY(res);
      QCOMPARE(res->status, status);
      const QJsonObject e = QJsonDocument::fromJson(QByteArray::fromStdString(res->body))
                                .object()
                                .value("error")
                                .toObject();
      QVERIFY2(e.value("message").toString().contains(says),
               qPrintable(e.value("message").toString()));
      if (!param.isEmpty()) QCOMPARE(e.value("param").toString(), param);
      QCOMPARE(e.value("type").toString().isEmpty(), false);
    };
    error("{\"model\": \"aidreams\", \"messages\": [", 400, "", "not valid JSON");
    error("[1, 2]", 400, "", "expected a JSON object");
    error("{\"model\": \"aidreams\"}", 400, "messages", "missing required field 'messages'");
    error("{\"messages\": \"hello\"}", 400, "messages", "found \"hello\"");
    error("{\"messages\": [{\"role\": \"robot\", \"content\": \"x\"}]}", 400, "messages[0].role",
          "found \"robot\"");
    error(body("x", 4, false, ",\"temperature\":\"hot\""), 400, "temperature",
          "expected a number from 0 to 2, found \"hot\"");
    error(body("x", 4, false, ",\"stream_options\":{\"include_usage\":\"yes\"}"), 400,
          "stream_options", "include_usage");
    error("{\"messages\": [{\"role\": \"user\", \"content\": \"x\"}], \"max_tokens\": 0}", 400,
          "max_tokens", "found 0");
    error("{\"model\": 7, \"messages\": [{\"role\": \"user\", \"content\": \"x\"}]}", 400, "model",
          "expected a string");
    error("{\"model\": \"llama-70b\", \"messages\": [{\"role\": \"user\", \"content\": \"x\"}]}",
          404, "model", "does not exist");
    auto models = http.Get("/v1/models");
    QVERIFY(models && models->status == 200);
    QVERIFY(QString::fromStdString(models->body).contains("\"id\":\"aidreams\""));
    RunningServer keyed(model_, cpuSession(), options("k1"));
    httplib::Client keyed_http("127.0.0.1", keyed.port);
    auto unauthorised = keyed_http.Get("/v1/models");
    QVERIFY(unauthorised && unauthorised->status == 401);
    QVERIFY(QString::fromStdString(unauthorised->body).contains("Authorization: Bearer"));
    // GET /health: 200 {"status":"ok"}, with or without a key configured, none sent
    for (httplib::Client* client : {&http, &keyed_http}) {
      auto health = client->Get("/health");
      QVERIFY(health && health->status == 200);
      QCOMPARE(QString::fromStdString(health->body), QString("{\"status\":\"ok\"}"));
    }
  }

  // A conversation's next request finds its previous turn in the prefix cache (whole
  // blocks, and the last one copied part-way) and prefills only what is new
  // (usage.prompt_tokens_details.cached_tokens), with the same answer at temperature 0 as
  // a fresh server gives.
  void aNextTurnReusesTheCachedPrefix() {
    RunningServer s(model_, cpuSession(), options());
    httplib::Client http("127.0.0.1", s.port);
    const auto post = [&](httplib::Client& client, const std::string& messages) {
      auto res = client.Post("/v1/chat/completions",
                             "{\"model\":\"aidreams\",\"temperature\":0,\"max_tokens\":12,"
                             "\"messages\":[" +
                                 messages + "]}",
                             "application/json");
      return res && res->status == 200
                 ? QJsonDocument::fromJson(QByteArray::fromStdString(res->body)).object()
                 : QJsonObject();
    };
    const auto cached = [](const QJsonObject& r) {
      return r.value("usage")
          .toObject()
          .value("prompt_tokens_details")
          .toObject()
          .value("cached_tokens");
    };
    const std::string opening =
        "{\"role\":\"user\",\"content\":\"I dreamed of a little dog that ran over the "
        "green hill to the old house by the river\"}";
    const QJsonObject first = post(http, opening);
    QCOMPARE(cached(first).toInt(-1), 0);
    const int first_prompt = first.value("usage").toObject().value("prompt_tokens").toInt();
    const QString answer = first.value("choices")
                               .toArray()
                               .at(0)
                               .toObject()
                               .value("message")
                               .toObject()
                               .value("content")
                               .toString();
    QVERIFY(!answer.isEmpty());
    // Another conversation in between: it shares only the leading BOS token.
    QCOMPARE(cached(post(http, "{\"role\":\"user\",\"content\":\"Once upon a time\"}")).toInt(-1),
             1);
    const std::string next = opening + ",{\"role\":\"assistant\",\"content\":\"" +
                             answer.toStdString() +
                             "\"},{\"role\":\"user\",\"content\":\"and then\"}";
    const QJsonObject second = post(http, next);
    const int second_prompt = second.value("usage").toObject().value("prompt_tokens").toInt();
    QVERIFY2(cached(second).toInt() >= first_prompt - 1 && cached(second).toInt() < second_prompt,
             qPrintable(QString("cached %1 of %2 (the first turn's prompt: %3)")
                            .arg(cached(second).toInt())
                            .arg(second_prompt)
                            .arg(first_prompt)));
    RunningServer fresh(model_, cpuSession(), options());
    httplib::Client fresh_http("127.0.0.1", fresh.port);
    const QJsonObject alone = post(fresh_http, next);
    QCOMPARE(cached(alone).toInt(-1), 0);
    QCOMPARE(second.value("choices").toArray().at(0).toObject().value("message").toObject().value(
                 "content"),
             alone.value("choices").toArray().at(0).toObject().value("message").toObject().value(
                 "content"));
  }

  // GET /metrics after six requests: valid Prometheus text (every sample of a declared
  // metric, histograms cumulative up to a +Inf bucket equal to their count), and counters
  // that equal what the responses' usage said.
  void metricsAreValidPrometheusTextThatAddsUp() {
    RunningServer s(model_, cpuSession(), options());
    httplib::Client http("127.0.0.1", s.port);
    int prompt_tokens = 0, completion_tokens = 0, cached_tokens = 0;
    for (int i = 0; i < 6; ++i) {
      auto res =
          http.Post("/v1/chat/completions", body("I dreamed", 3 + i, false), "application/json");
      QVERIFY(res && res->status == 200);
      const QJsonObject usage = QJsonDocument::fromJson(QByteArray::fromStdString(res->body))
                                    .object()
                                    .value("usage")
                                    .toObject();
      prompt_tokens += usage.value("prompt_tokens").toInt();
      completion_tokens += usage.value("completion_tokens").toInt();
      cached_tokens +=
          usage.value("prompt_tokens_details").toObject().value("cached_tokens").toInt();
    }
    auto res = http.Get("/metrics");
    QVERIFY(res && res->status == 200);
    QVERIFY(QString::fromStdString(res->get_header_value("Content-Type")).startsWith("text/plain"));
    const QRegularExpression sample(
        "^([a-zA-Z_:][a-zA-Z0-9_:]*)\\{model_name=\"aidreams\"(?:,le=\"([^\"]+)\")?\\} (\\S+)$");
    const QRegularExpression type("^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (gauge|counter|histogram)$");
    QMap<QString, QString> types;
    QMap<QString, double> values;
    QMap<QString, QList<double>> buckets;
    for (const QString& line : QString::fromStdString(res->body).split('\n', Qt::SkipEmptyParts)) {
      if (line.startsWith("# HELP ")) continue;
      if (const auto t = type.match(line); t.hasMatch()) {
        types[t.captured(1)] = t.captured(2);
        continue;
      }
      const auto m = sample.match(line);
      QVERIFY2(m.hasMatch(), qPrintable("not a Prometheus sample: " + line));
      QString name = m.captured(1);
      bool number = false;
      const double value = m.captured(3).toDouble(&number);
      QVERIFY2(number, qPrintable(line));
      QString family = name;
      for (const char* suffix : {"_bucket", "_sum", "_count"})
        if (name.endsWith(suffix) && types.value(name.chopped(qstrlen(suffix))) == "histogram")
          family = name.chopped(qstrlen(suffix));
      QVERIFY2(types.contains(family), qPrintable("a sample before its # TYPE: " + line));
      if (name.endsWith("_bucket")) {
        QVERIFY(buckets[family].isEmpty() || value >= buckets[family].last());
        buckets[family].append(value);
        if (m.captured(2) == "+Inf") values[family + "_inf"] = value;
      } else {
        values[name] = value;
      }
    }
    QCOMPARE(values.value("tokenscope:generation_tokens_total"), double(completion_tokens));
    QCOMPARE(values.value("tokenscope:prompt_tokens_total"), double(prompt_tokens));
    QCOMPARE(values.value("tokenscope:prefix_cache_queries_total"), double(prompt_tokens));
    QCOMPARE(values.value("tokenscope:prefix_cache_hits_total"), double(cached_tokens));
    QVERIFY(cached_tokens > 0);  // the same prompt six times
    QCOMPARE(values.value("tokenscope:request_finished_total"), 6.0);
    QCOMPARE(values.value("tokenscope:num_requests_running"), 0.0);
    QCOMPARE(values.value("tokenscope:num_requests_waiting"), 0.0);
    QCOMPARE(values.value("tokenscope:kv_cache_blocks_used"), 0.0);
    QVERIFY(values.value("tokenscope:kv_cache_blocks_total") > 0);
    for (const char* h : {"tokenscope:step_duration_seconds", "tokenscope:iteration_tokens_total",
                          "tokenscope:step_batch_size"}) {
      QCOMPARE(types.value(h), QString("histogram"));
      QCOMPARE(values.value(QString(h) + "_inf"), values.value(QString(h) + "_count"));
    }
    // One observation per step in each histogram; the tokens of all steps add up to the
    // prompts' computed tokens and the answers' fed-back tokens.
    const double steps = values.value("tokenscope:step_batch_size_count");
    QVERIFY(steps > 0);
    QCOMPARE(values.value("tokenscope:iteration_tokens_total_count"), steps);
    QCOMPARE(values.value("tokenscope:iteration_tokens_total_sum"),
             double(prompt_tokens - cached_tokens + completion_tokens - 6));
  }

  // One running generation (held at its first pass), one waiting, the third refused with
  // 429; then both finish, in arrival order.
  void theQueueIsFairAndBounded() {
    // The gated session has no paged KV: its scheduler runs one request at a time.
    auto gated = std::make_unique<GatedSession>(model_, 128);
    GatedSession* gate = gated.get();
    RunningServer s(model_, std::move(gated), options("", 1));
    std::string first, second;
    std::thread a([&] {
      httplib::Client c("127.0.0.1", s.port);
      c.set_read_timeout(30, 0);
      if (auto r = c.Post("/v1/chat/completions", body("I dreamed", 8, false), "application/json"))
        first = r->body;
    });
    QVERIFY(gate->waitEntered());
    std::thread b([&] {
      httplib::Client c("127.0.0.1", s.port);
      c.set_read_timeout(30, 0);
      if (auto r = c.Post("/v1/chat/completions", body("I dreamed", 4, false), "application/json"))
        second = r->body;
    });
    QTRY_COMPARE_WITH_TIMEOUT(s.server->admittedRequests(), 2, 10000);
    httplib::Client c("127.0.0.1", s.port);
    auto refused = c.Post("/v1/chat/completions", body("I dreamed", 4, false), "application/json");
    QVERIFY(refused);
    QCOMPARE(refused->status, 429);
    QVERIFY(QString::fromStdString(refused->body).contains("busy"));
    gate->open();
    a.join();
    b.join();
    QVERIFY2(QString::fromStdString(first).contains("\"completion_tokens\":8"), first.c_str());
    QVERIFY2(QString::fromStdString(second).contains("\"completion_tokens\":4"), second.c_str());
    QCOMPARE(s.server->admittedRequests(), 0);
  }

  // 64 streams at once, each with its own length: every one completes with its own token
  // count and the reference text's prefix.
  void sixtyFourConcurrentStreams() {
    server::ServerOptions o = options("", 64);
    RunningServer s(model_, cpuSession(), o);
    constexpr int kStreams = 64;
    std::vector<std::string> texts(kStreams);
    std::vector<int> usage(kStreams, -1), chunks(kStreams, 0);
    std::vector<std::thread> threads;
    for (int i = 0; i < kStreams; ++i)
      threads.emplace_back([&, i] {
        httplib::Client c("127.0.0.1", s.port);
        c.set_read_timeout(60, 0);
        const auto res = c.Post(
            "/v1/chat/completions",
            body("I dreamed", 4 + i % 20, true, ",\"stream_options\":{\"include_usage\":true}"),
            "application/json");
        if (!res) {
          texts[i] = "request failed: " + httplib::to_string(res.error());
          return;
        }
        const std::string raw = res->body;
        for (const QByteArray& line : QByteArray::fromStdString(raw).split('\n')) {
          if (!line.startsWith("data: {")) continue;
          const QJsonObject chunk = QJsonDocument::fromJson(line.mid(6)).object();
          const QJsonArray choices = chunk.value("choices").toArray();
          if (!choices.isEmpty()) {
            const QString piece =
                choices[0].toObject().value("delta").toObject().value("content").toString();
            texts[i] += piece.toStdString();
            chunks[i] += piece.isEmpty() ? 0 : 1;
          }
          if (chunk.contains("usage"))
            usage[i] = chunk.value("usage").toObject().value("completion_tokens").toInt();
        }
      });
    for (auto& t : threads) t.join();
    for (int i = 0; i < kStreams; ++i) {
      QVERIFY2(usage[i] == 4 + i % 20,
               (std::to_string(i) + ": usage " + std::to_string(usage[i]) + ", text: " + texts[i])
                   .c_str());
      QCOMPARE(chunks[i], 4 + i % 20);
      QVERIFY2(referenceText().startsWith(QString::fromStdString(texts[i])), texts[i].c_str());
    }
    QCOMPARE(s.server->completedRequests(), kStreams);
  }

  // The command as a user runs it: the address it prints answers; SIGTERM stops it.
  // One way of starting and stopping every server: stop at any moment after start (or
  // without one) returns, also when the accept loop had not begun yet.
  void serversStopAtAnyMoment() {
    for (int i = 0; i < 200; ++i) {
      server::HttpServer http;
      QVERIFY(http.bind_to_any_port("127.0.0.1") > 0);
      if (i % 4 != 3) QVERIFY(http.startListening());  // every 4th: stopped, never started
      http.stopListening();
      http.stopListening();  // twice is fine
      QVERIFY(!http.is_running());
    }
    for (int i = 0; i < 50; ++i) {
      server::LocalServer local(model_, scheduler(), options());
      QVERIFY(local.bind("127.0.0.1", 0) > 0);
      QVERIFY(local.start());
    }  // the destructor stops it
  }

  // A port a server listens on is refused to a second one (Serve in a second TokenScope
  // moves on to the next port instead of sharing 8080's connections with the first), and is
  // free again as soon as the first stops.
  void aPortInUseIsRefused() {
    server::LocalServer first(model_, scheduler(), options());
    const int port = first.bind("127.0.0.1", 0);
    QVERIFY(port > 0);
    QVERIFY(first.start());
    {
      server::LocalServer second(model_, scheduler(), options());
      QCOMPARE(second.bind("127.0.0.1", port), -1);
    }
    first.stop();
    server::LocalServer again(model_, scheduler(), options());
    QCOMPARE(again.bind("127.0.0.1", port), port);
  }

  void theServeCommandStartsAndStops() {
    QProcess p;
    p.start(TOKENSCOPE_CLI,
            {"serve", "--model", models_ + "/aidreams260K/aidreams260K.gguf", "--port", "0"});
    QVERIFY(p.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(p.canReadLine(), 15000);
    const QString line = QString::fromUtf8(p.readLine());
    QVERIFY2(line.contains("plain completion") && line.contains("http://127.0.0.1:"),
             qPrintable(line));
    const int port = line.section("127.0.0.1:", 1).section('/', 0, 0).toInt();
    httplib::Client c("127.0.0.1", port);
    auto res = c.Post("/v1/chat/completions", body("I dreamed", 5, false, "", "aidreams260K"),
                      "application/json");
    QVERIFY(res);
    QCOMPARE(res->status, 200);
    ::kill(static_cast<pid_t>(p.processId()), SIGTERM);
    QVERIFY(p.waitForFinished(10000));
    QCOMPARE(p.exitCode(), 0);
    QVERIFY(QString::fromUtf8(p.readAllStandardOutput())
                .contains("stopped after 1 completed requests"));
    QProcess bad;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove("TS_EMPTY_KEY");
    bad.setProcessEnvironment(env);
    bad.start(TOKENSCOPE_CLI, {"serve", "--model", "m.gguf", "--api-key-env", "TS_EMPTY_KEY"});
    QVERIFY(bad.waitForFinished(10000));
    QCOMPARE(bad.exitCode(), 2);
    QVERIFY(
        QString::fromUtf8(bad.readAllStandardError()).contains("TS_EMPTY_KEY is empty or not set"));
  }
};

QTEST_GUILESS_MAIN(TestLocalServer)
#include "test_local_server.moc"
