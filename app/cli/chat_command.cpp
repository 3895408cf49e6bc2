#include "app/cli/chat_command.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <cstdio>

#include "app/cli/common.h"
#include "app/cli/options.h"
#include "app/store/run_json.h"
#include "app/store/run_log.h"
#include "inference/remote/base_url.h"
#include "inference/remote/openai_client.h"

namespace ts {
namespace {

QString formatMs(const QJsonValue& v) {
  return v.isNull() ? QString("n/a") : QString::number(v.toDouble(), 'f', 1) + " ms";
}

void addChatOptions(QCommandLineParser& p) {
  p.setApplicationDescription(
      "Streams one chat completion from an OpenAI-compatible endpoint and measures it.\n"
      "Options not given come from the configuration (see `tokenscope-cli config show`).");
  addConfigOption(p);
  p.addOptions({
      {"base-url", "Endpoint root, e.g. https://taotoken.net/api (a pasted /v1 is fine).", "URL"},
      {"model", "Model id.", "NAME"},
      {"api-key-env", "Environment variable that holds the API key.", "VAR"},
      {"prompt", "The user message (required).", "TEXT"},
      {"system", "A system message.", "TEXT"},
      {"max-tokens", "Most tokens to generate.", "N"},
      {"temperature", "Sampling temperature, 0..2.", "T"},
      {"top-p", "Nucleus sampling, 0..1.", "P"},
      {"seed", "Sampling seed, sent when given.", "S"},
      {"stream", "Stream the answer (overrides inference.stream = false)."},
      {"no-stream", "Ask for one complete response instead of a stream."},
      {"timeout",
       "Longest wait in seconds for the connection, the first token and between "
       "chunks; the whole run may take 10x this.",
       "S"},
      {"max-retries", "Retries before the first token.", "N"},
      {"provider", "Provider name used in logs.", "NAME"},
      {"log-dir", "Where the run is appended as a JSON line.", "DIR"},
      {"no-log", "Do not write the run log."},
      {"json", "Print one JSON object with the text and the metrics."},
  });
}

// The request and where it goes: flags over the configuration, numbers range-checked.
struct ChatPlan {
  config::EffectiveConfig cfg;
  GenerationRequest request;
  RemoteEndpoint endpoint;
  QString url_root;
};

// A flag wins over the configuration key; "" without either.
QString textOf(const QCommandLineParser& p, const config::EffectiveConfig& cfg, const char* flag,
               const char* key) {
  return p.isSet(flag) ? p.value(flag) : cfg.value(key).toString();
}

// The sampling parameters and limits (flags over the configuration); `err` says what is wrong.
struct ChatNumbers {
  std::optional<int> max_tokens, retries, seed;
  std::optional<double> temperature, top_p, timeout;
};
ChatNumbers numbersOf(const QCommandLineParser& p, const config::EffectiveConfig& cfg,
                      OptionError& err) {
  const auto number = [&](const char* flag, const char* key, double min, double max) {
    return p.isSet(flag) ? parseDoubleOption(flag, p.value(flag), min, max, err)
                         : std::optional<double>(cfg.value(key).toDouble());
  };
  const auto whole = [&](const char* flag, const char* key, int min, int max) {
    return p.isSet(flag) ? parseIntOption(flag, p.value(flag), min, max, err)
                         : std::optional<int>(cfg.value(key).toInt());
  };
  ChatNumbers n;
  n.max_tokens = whole("max-tokens", "inference.max_tokens", 1, 10'000'000);
  n.temperature = number("temperature", "inference.temperature", 0, 2);
  n.top_p = number("top-p", "inference.top_p", 0, 1);
  n.timeout = number("timeout", "timeout_seconds", 0.001, 86'400);
  n.retries = whole("max-retries", "max_retries", 0, 20);
  if (p.isSet("seed")) n.seed = parseIntOption("seed", p.value("seed"), 0, INT32_MAX, err);
  return n;
}

std::optional<ChatPlan> chatPlan(const QCommandLineParser& p, const config::EffectiveConfig& cfg,
                                 OptionError& err) {
  const ChatNumbers n = numbersOf(p, cfg, err);
  if (!err.message.isEmpty()) return std::nullopt;
  ChatPlan plan{cfg, {}, {}, {}};
  const QString base_url = textOf(p, cfg, "base-url", "base_url");
  const NormalizedBaseUrl url = normalizeBaseUrl(base_url);
  if (!url.ok()) {
    err.message = "base URL: " + url.error;
    return std::nullopt;
  }
  plan.url_root = url.root;
  GenerationRequest& request = plan.request;
  request.provider = textOf(p, cfg, "provider", "provider").toStdString();
  request.model = textOf(p, cfg, "model", "default_model").toStdString();
  if (p.isSet("system")) request.messages.push_back({"system", p.value("system").toStdString()});
  request.messages.push_back({"user", p.value("prompt").toStdString()});
  request.params.temperature = *n.temperature;
  request.params.top_p = *n.top_p;
  request.params.max_tokens = *n.max_tokens;
  request.params.stream =
      p.isSet("no-stream") ? false : (p.isSet("stream") || cfg.value("inference.stream").toBool());
  request.params.seed = n.seed;
  RemoteEndpoint& endpoint = plan.endpoint;
  endpoint.provider_name = QString::fromStdString(request.provider);
  endpoint.base_url = base_url;
  endpoint.api_key_env = textOf(p, cfg, "api-key-env", "api_key_env");
  // The built-in key variable belongs to the built-in URL: never send it elsewhere.
  if (p.isSet("base-url") && !p.isSet("api-key-env") &&
      cfg.entry("api_key_env").source == config::Source::Default)
    endpoint.api_key_env.clear();
  endpoint.max_retries = *n.retries;
  endpoint.timeouts = RemoteTimeouts::fromLimitSeconds(*n.timeout);
  return plan;
}

// Runs the request, the answer's text on stdout as it streams unless `json`.
RemoteResult runRequest(const ChatPlan& plan, bool json) {
  OpenAiClient client;
  if (!json)
    QObject::connect(&client, &OpenAiClient::eventReady, [](const StreamEvent& e) {
      if (e.kind != EventKind::TokenChunk) return;
      std::fwrite(e.text.data(), 1, e.text.size(), stdout);
      std::fflush(stdout);
    });
  QObject::connect(&client, &OpenAiClient::runFinished, qApp, &QCoreApplication::quit);
  client.start(plan.endpoint, plan.request);
  if (client.isRunning()) QCoreApplication::exec();
  return client.result();
}

void logRun(const QCommandLineParser& p, const ChatPlan& plan, const RemoteResult& result) {
  if (p.isSet("no-log")) return;
  RunLogContext context{plan.url_root, result.final_url, result.attempts, result.warnings};
  context.log_ttft = plan.cfg.value("observability.log_ttft").toBool();
  context.log_tpot = plan.cfg.value("observability.log_tpot").toBool();
  const QString log_error = appendRunLog(textOf(p, plan.cfg, "log-dir", "observability.log_dir"),
                                         plan.request, result.run, context);
  if (!log_error.isEmpty()) printErr("warning: run log not written: " + log_error);
}

void printRun(const QJsonObject& out, const RemoteResult& result, const RunMetrics& metrics,
              bool json) {
  if (json) {
    std::printf("%s\n", QJsonDocument(out).toJson(QJsonDocument::Indented).constData());
    return;
  }
  std::printf("\n");
  for (const QString& w : result.warnings) printErr("warning: " + w);
  if (!out.value("error").isNull())
    printErr("error: " + out.value("error").toObject().value("message").toString());
  printErr(QString("TTFT %1 · TPOT %2 · E2E %3 · %4 output tokens (%5)")
               .arg(formatMs(out.value("ttft_ms")), formatMs(out.value("tpot_ms")),
                    formatMs(out.value("e2e_ms")))
               .arg(metrics.output_tokens)
               .arg(tokenCountSourceName(metrics.output_tokens_source)));
}

}  // namespace

int runChatCommand(const QStringList& args) {
  QCommandLineParser p;
  addChatOptions(p);
  if (auto done = parseCommandLine(p, args, "chat")) return *done;
  if (!p.isSet("prompt")) {
    printErr(
        "tokenscope-cli chat: missing --prompt\nExample: tokenscope-cli chat --base-url "
        "https://taotoken.net/api --model baichuan --api-key-env TAOTOKEN_API_KEY --prompt "
        "\"Hello\" --json");
    return 2;
  }
  config::EffectiveConfig cfg;
  if (!loadConfig(p, "chat", cfg)) return 2;
  OptionError err;
  const auto plan = chatPlan(p, cfg, err);
  if (!plan) {
    printErr("tokenscope-cli chat: " + err.message);
    return 2;
  }
  const bool json = p.isSet("json");
  const RemoteResult result = runRequest(*plan, json);
  const RunMetrics metrics = computeMetrics(result.run);
  QJsonObject out = runResultJson(result.run, metrics);
  out.insert("final_url", result.final_url);
  out.insert("attempts", result.attempts);
  out.insert("warnings", QJsonArray::fromStringList(result.warnings));
  logRun(p, *plan, result);
  printRun(out, result, metrics, json);
  return out.value("error").isNull() ? 0 : 1;
}

}  // namespace ts
