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

}  // namespace

int runChatCommand(const QStringList& args) {
  QCommandLineParser p;
  p.setApplicationDescription(
      "Streams one chat completion from an OpenAI-compatible endpoint and measures it.\n"
      "Options not given come from the configuration (see `tokenscope-cli config show`).");
  p.addHelpOption();
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
  QStringList argv = args;
  argv.prepend("tokenscope-cli chat");
  if (!p.parse(argv)) {
    printErr(p.errorText() + "\nSee: tokenscope-cli chat --help");
    return 2;
  }
  if (p.isSet("help")) {
    std::printf("%s", p.helpText().toLocal8Bit().constData());
    return 0;
  }
  if (!p.isSet("prompt")) {
    printErr(
        "tokenscope-cli chat: missing --prompt\nExample: tokenscope-cli chat --base-url "
        "https://taotoken.net/api --model baichuan --api-key-env TAOTOKEN_API_KEY --prompt "
        "\"Hello\" --json");
    return 2;
  }
  config::EffectiveConfig cfg;
  if (!loadConfig(p, "chat", cfg)) return 2;
  // A flag wins over the configuration; numbers from flags are range-checked here.
  const auto text = [&](const char* flag, const char* key) {
    return p.isSet(flag) ? p.value(flag) : cfg.value(key).toString();
  };
  OptionError err;
  const auto number = [&](const char* flag, const char* key, double min, double max) {
    return p.isSet(flag) ? parseDoubleOption(flag, p.value(flag), min, max, err)
                         : std::optional<double>(cfg.value(key).toDouble());
  };
  const auto whole = [&](const char* flag, const char* key, int min, int max) {
    return p.isSet(flag) ? parseIntOption(flag, p.value(flag), min, max, err)
                         : std::optional<int>(cfg.value(key).toInt());
  };
  const auto max_tokens = whole("max-tokens", "inference.max_tokens", 1, 10'000'000);
  const auto temperature = number("temperature", "inference.temperature", 0, 2);
  const auto top_p = number("top-p", "inference.top_p", 0, 1);
  const auto timeout = number("timeout", "timeout_seconds", 0.001, 86'400);
  const auto retries = whole("max-retries", "max_retries", 0, 20);
  std::optional<int> seed;
  if (p.isSet("seed")) seed = parseIntOption("seed", p.value("seed"), 0, INT32_MAX, err);
  if (!err.message.isEmpty()) {
    printErr("tokenscope-cli chat: " + err.message);
    return 2;
  }
  const QString base_url = text("base-url", "base_url");
  const NormalizedBaseUrl url = normalizeBaseUrl(base_url);
  if (!url.ok()) {
    printErr("tokenscope-cli chat: base URL: " + url.error);
    return 2;
  }
  const bool stream =
      p.isSet("no-stream") ? false : (p.isSet("stream") || cfg.value("inference.stream").toBool());

  GenerationRequest request;
  request.provider = text("provider", "provider").toStdString();
  request.model = text("model", "default_model").toStdString();
  if (p.isSet("system")) request.messages.push_back({"system", p.value("system").toStdString()});
  request.messages.push_back({"user", p.value("prompt").toStdString()});
  request.params.temperature = *temperature;
  request.params.top_p = *top_p;
  request.params.max_tokens = *max_tokens;
  request.params.stream = stream;
  request.params.seed = seed;

  RemoteEndpoint endpoint;
  endpoint.provider_name = QString::fromStdString(request.provider);
  endpoint.base_url = base_url;
  endpoint.api_key_env = text("api-key-env", "api_key_env");
  // The built-in key variable belongs to the built-in URL: never send it elsewhere.
  if (p.isSet("base-url") && !p.isSet("api-key-env") &&
      cfg.entry("api_key_env").source == config::Source::Default)
    endpoint.api_key_env.clear();
  endpoint.max_retries = *retries;
  endpoint.timeouts = RemoteTimeouts::fromLimitSeconds(*timeout);

  const bool json = p.isSet("json");
  OpenAiClient client;
  if (!json)
    QObject::connect(&client, &OpenAiClient::eventReady, [](const StreamEvent& e) {
      if (e.kind != EventKind::TokenChunk) return;
      std::fwrite(e.text.data(), 1, e.text.size(), stdout);
      std::fflush(stdout);
    });
  QObject::connect(&client, &OpenAiClient::runFinished, qApp, &QCoreApplication::quit);
  client.start(endpoint, request);
  if (client.isRunning()) QCoreApplication::exec();

  const RemoteResult& result = client.result();
  const RunMetrics metrics = computeMetrics(result.run);
  QJsonObject out = runResultJson(result.run, metrics);
  out.insert("final_url", result.final_url);
  out.insert("attempts", result.attempts);
  out.insert("warnings", QJsonArray::fromStringList(result.warnings));

  if (!p.isSet("no-log")) {
    RunLogContext context{url.root, result.final_url, result.attempts, result.warnings};
    context.log_ttft = cfg.value("observability.log_ttft").toBool();
    context.log_tpot = cfg.value("observability.log_tpot").toBool();
    const QString log_error =
        appendRunLog(text("log-dir", "observability.log_dir"), request, result.run, context);
    if (!log_error.isEmpty()) printErr("warning: run log not written: " + log_error);
  }

  if (json) {
    std::printf("%s\n", QJsonDocument(out).toJson(QJsonDocument::Indented).constData());
  } else {
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
  return out.value("error").isNull() ? 0 : 1;
}

}  // namespace ts
