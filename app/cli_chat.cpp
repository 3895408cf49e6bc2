#include "app/cli_chat.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <cstdio>

#include "app/cli_options.h"
#include "app/run_json.h"
#include "app/run_log.h"
#include "inference/remote/base_url.h"
#include "inference/remote/openai_client.h"

namespace ts {
namespace {

void printErr(const QString& s) {
  std::fprintf(stderr, "%s\n", s.toLocal8Bit().constData());
}

QString formatMs(const QJsonValue& v) {
  return v.isNull() ? QString("n/a") : QString::number(v.toDouble(), 'f', 1) + " ms";
}

}  // namespace

int runChatCommand(const QStringList& args) {
  QCommandLineParser p;
  p.setApplicationDescription(
      "Streams one chat completion from an OpenAI-compatible endpoint and measures it.");
  p.addHelpOption();
  p.addOptions({
      {"base-url", "Endpoint root, e.g. https://taotoken.net/api (a pasted /v1 is fine).", "URL"},
      {"model", "Model id.", "NAME"},
      {"api-key-env", "Environment variable that holds the API key.", "VAR"},
      {"prompt", "The user message.", "TEXT"},
      {"system", "A system message.", "TEXT"},
      {"max-tokens", "Most tokens to generate (default 512).", "N", "512"},
      {"temperature", "Sampling temperature, 0..2 (default 0.7).", "T", "0.7"},
      {"top-p", "Nucleus sampling, 0..1 (default 0.9).", "P", "0.9"},
      {"seed", "Sampling seed, sent when given.", "S"},
      {"no-stream", "Ask for one complete response instead of a stream."},
      {"timeout",
       "Longest wait in seconds for the connection, the first token and between "
       "chunks (default 60); the whole run may take 10x this.",
       "S", "60"},
      {"max-retries", "Retries before the first token (default 2).", "N", "2"},
      {"provider", "Provider name used in logs (default: cli).", "NAME", "cli"},
      {"log-dir", "Where the run is appended as a JSON line (default ./logs/infer).", "DIR"},
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
  QStringList missing;
  for (const char* required : {"base-url", "model", "prompt"})
    if (!p.isSet(required)) missing << QString("--") + required;
  if (!missing.isEmpty()) {
    printErr("tokenscope-cli chat: missing " + missing.join(", ") +
             "\nExample: tokenscope-cli chat --base-url https://taotoken.net/api --model baichuan "
             "--api-key-env TAOTOKEN_API_KEY --prompt \"Hello\" --json");
    return 2;
  }
  OptionError err;
  const auto max_tokens = parseIntOption("max-tokens", p.value("max-tokens"), 1, 10'000'000, err);
  const auto temperature = parseDoubleOption("temperature", p.value("temperature"), 0, 2, err);
  const auto top_p = parseDoubleOption("top-p", p.value("top-p"), 0, 1, err);
  const auto timeout = parseDoubleOption("timeout", p.value("timeout"), 0.001, 86'400, err);
  const auto retries = parseIntOption("max-retries", p.value("max-retries"), 0, 20, err);
  std::optional<int> seed;
  if (p.isSet("seed")) seed = parseIntOption("seed", p.value("seed"), 0, INT32_MAX, err);
  if (!err.message.isEmpty()) {
    printErr("tokenscope-cli chat: " + err.message);
    return 2;
  }
  const NormalizedBaseUrl url = normalizeBaseUrl(p.value("base-url"));
  if (!url.ok()) {
    printErr("tokenscope-cli chat: --base-url: " + url.error);
    return 2;
  }

  GenerationRequest request;
  request.provider = p.value("provider").toStdString();
  request.model = p.value("model").toStdString();
  if (p.isSet("system")) request.messages.push_back({"system", p.value("system").toStdString()});
  request.messages.push_back({"user", p.value("prompt").toStdString()});
  request.params = {*temperature, *top_p, *max_tokens, !p.isSet("no-stream"), seed};

  RemoteEndpoint endpoint;
  endpoint.provider_name = p.value("provider");
  endpoint.base_url = p.value("base-url");
  endpoint.api_key_env = p.value("api-key-env");
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
    const QString dir = p.isSet("log-dir") ? p.value("log-dir") : defaultLogDir();
    const QString log_error = appendRunLog(
        dir, request, result.run, {url.root, result.final_url, result.attempts, result.warnings});
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
