#include "app/cli/serve_command.h"

#include <QFileInfo>
#include <QUrl>
#include <csignal>
#include <cstdio>
#include <optional>

#include "app/cli/common.h"
#include "app/cli/model_options.h"
#include "app/cli/options.h"
#include "app/cli/runtime_options.h"
#include "app/server/chat_api.h"
#include "app/server/model_server.h"
#include "inference/engine/serving/serving_limits.h"
#include "inference/engine/tokenizer/chat_template.h"

namespace ts {

namespace {

void addServeOptions(QCommandLineParser& p) {
  p.setApplicationDescription(
      "Serves the local engine as an OpenAI-compatible API (GET /v1/models, POST "
      "/v1/chat/completions, GET /health, GET /metrics), batching the requests that run at "
      "once into one pass per step.");
  addModelOptions(p, true);
  p.addOptions(
      {{"host", "Address to listen on (default 127.0.0.1: this machine only).", "HOST",
        "127.0.0.1"},
       {"port", "Port (default 8080; 0 picks a free one).", "N", "8080"},
       {"api-key-env", "Require `Authorization: Bearer <key>` with the key in this variable.",
        "VAR"},
       {"model-name", "The model id clients ask for (default: the model file's name).", "NAME"},
       {"chat",
        "Baichuan chat template: auto (Baichuan vocabularies), on or off (plain completion).",
        "MODE", "auto"},
       {"max-queue", "Requests waiting beyond the running ones; more get 429 (default 16).", "N",
        "16"},
       {"max-body-mb", "Largest request body in MiB; larger ones get 413 (default 8).", "MIB", "8"},
       {"cors-origin",
        "A web page origin (scheme://host[:port]) allowed to call the server from a browser: "
        "CORS headers and preflight answers for it; repeat for more. None by default.",
        "ORIGIN"},
       {"truncate-history",
        "A conversation longer than the context loses its oldest rounds (the response header "
        "X-TokenScope-Truncated says what was dropped) instead of a 400 "
        "context_length_exceeded: for chat UIs that send the whole history."},
       {"max-tokens",
        "Answer length when a request gives none (default: the model's generation_config.json "
        "max_new_tokens, else 256).",
        "N", "256"}});
  addRuntimeOptions(p, kServingOptions & ~kWeightOptions);
}

// What serve will do, checked before anything loads. The model decides the rest (the chat
// template with --chat auto, the default answer length without --max-tokens).
struct ServePlan {
  RuntimePlan runtime;
  server::ServerOptions server;
  QString chat;  // auto | on | off
  int max_tokens = 256;
  std::string host;
  int port = 8080;
};

// --cors-origin values, each an origin (scheme, host, port; no path).
bool readOrigins(const QCommandLineParser& p, std::vector<std::string>& out, OptionError& err) {
  for (const QString& given : p.values("cors-origin")) {
    const QString origin = given.trimmed();
    const QUrl url(origin);
    if (!url.isValid() || (url.scheme() != "http" && url.scheme() != "https") ||
        url.host().isEmpty() || !url.path().isEmpty()) {
      err.message = QString(
                        "--cors-origin: expected an origin such as http://localhost:3000 "
                        "(scheme, host and port, no path), found '%1'")
                        .arg(given);
      return false;
    }
    out.push_back(origin.toStdString());
  }
  return true;
}

// --api-key-env: the key clients must send, from the named variable ("" without the flag).
bool readApiKey(const QCommandLineParser& p, std::string& key, OptionError& err) {
  if (!p.isSet("api-key-env")) return true;
  key = qEnvironmentVariable(p.value("api-key-env").toLocal8Bit().constData()).toStdString();
  if (!key.empty()) return true;
  err.message = QString(
                    "--api-key-env: the variable %1 is empty or not set; set it to the key "
                    "clients must send")
                    .arg(p.value("api-key-env"));
  return false;
}

std::optional<ServePlan> servePlan(const QCommandLineParser& p, OptionError& err) {
  const auto runtime = runtimePlan(p, kServingOptions, err);
  if (!runtime) return std::nullopt;
  ServePlan plan{*runtime, {}, p.value("chat"), 256, p.value("host").toStdString(), 8080};
  const auto bounded = [&](const char* name, const engine::Bound& b) {
    return parseIntOption(name, p.value(name), static_cast<int>(b.lo), static_cast<int>(b.hi), err);
  };
  const auto port = parseIntOption("port", p.value("port"), 0, 65535, err);
  const auto max_queue = bounded("max-queue", engine::kQueueBound);
  const auto max_body = bounded("max-body-mb", engine::kMaxBodyMbBound);
  const auto max_tokens = parseIntOption("max-tokens", p.value("max-tokens"), 1, 1 << 20, err);
  if (!port || !max_queue || !max_body || !max_tokens) return std::nullopt;
  if (plan.chat != "auto" && plan.chat != "on" && plan.chat != "off") {
    err.message = QString("--chat: expected auto, on or off, found '%1'").arg(plan.chat);
    return std::nullopt;
  }
  if (!readApiKey(p, plan.server.api_key, err) || !readOrigins(p, plan.server.cors_origins, err))
    return std::nullopt;
  plan.port = *port;
  plan.max_tokens = *max_tokens;
  plan.server.max_queue = *max_queue;
  plan.server.max_body_mb = *max_body;
  plan.server.truncate_history = p.isSet("truncate-history");
  plan.server.model_name = p.isSet("model-name")
                               ? p.value("model-name").toStdString()
                               : QFileInfo(p.value("model")).completeBaseName().toStdString();
  return plan;
}

// The plan's server options completed by what the model says: the chat template (--chat
// auto: for chat models) and the answer length of requests that give none.
server::ServerOptions serverOptions(const QCommandLineParser& p, const ServePlan& plan,
                                    const engine::Model& model) {
  server::ServerOptions options = plan.server;
  options.chat =
      plan.chat == "on" ||
      (plan.chat == "auto" && engine::isChatModel(model.config.architecture, model.config.vocab));
  options.default_max_tokens = p.isSet("max-tokens")
                                   ? plan.max_tokens
                                   : model.generation.max_new_tokens.value_or(plan.max_tokens);
  return options;
}

// The first lines: where and how the model is served, the suggested sampling settings,
// and (on stderr) a warning when anyone on the network may use it without a key.
void sayServing(const server::ServedModel& served, const engine::Model& model,
                const server::ServerOptions& options, const std::string& host, int port) {
  std::printf("serving %s (%s, %s, %d positions, %s; %s) at http://%s:%d/v1%s\n",
              options.model_name.c_str(), model.config.describe().c_str(), served.backend.c_str(),
              served.positions, options.chat ? "chat template" : "plain completion",
              server::describeScheduling(*served.scheduler).c_str(), host.c_str(), port,
              options.api_key.empty() ? "" : " (API key required)");
  if (model.generation.suggestsSampling())
    std::printf(
        "requests that leave them out get the model's suggested settings "
        "(generation_config.json): %s\n",
        server::describeSuggestions(model.generation, options.default_max_tokens).c_str());
  std::fflush(stdout);
  if (const std::string warning = server::exposureWarning(host, !options.api_key.empty());
      !warning.empty())
    printErr(QString::fromStdString(warning));
}

// Listens, says where and how, and serves until SIGINT / SIGTERM (blocked in
// `stop_signals`).
int serveUntilStopped(const ServePlan& plan, const server::ServedModel& served,
                      const engine::Model& model, const server::ServerOptions& options,
                      const sigset_t& stop_signals) {
  server::LocalServer& server = *served.server;
  const int bound = server.bind(plan.host, plan.port);
  if (bound < 0) {
    printErr(QString("tokenscope-cli serve: cannot listen on %1:%2 (in use, or not an address of "
                     "this machine); choose another --port or --host")
                 .arg(QString::fromStdString(plan.host))
                 .arg(plan.port));
    return 1;
  }
  if (!server.start()) {
    printErr("tokenscope-cli serve: the server stopped as it started");
    return 1;
  }
  sayServing(served, model, options, plan.host, bound);
  int signal = 0;
  sigwait(&stop_signals, &signal);
  server.cancelAll();  // what runs ends within a step, instead of at its max_tokens
  server.stop();
  std::printf("stopped after %d completed requests\n", server.completedRequests());
  return 0;
}

// Loads the model, serves it on the plan's backend and scheduler until stopped.
int runServe(const QCommandLineParser& p, const ServePlan& plan) {
  auto model = load(p, plan.runtime.load);
  if (!model) {
    printErr("tokenscope-cli serve: " + QString::fromStdString(model.error()));
    return 1;
  }
  const server::ServerOptions options = serverOptions(p, plan, *model.value());
  // SIGINT / SIGTERM end the server: blocked here (and so in every thread started after),
  // awaited below while another thread serves.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  const RuntimePlan& r = plan.runtime;
  auto served =
      server::serveModel(model.value(), r.context, r.kv, r.backend, r.scheduling, options);
  if (!served) {
    printErr("tokenscope-cli serve: " + QString::fromStdString(served.error()));
    return 1;
  }
  if (!served->note.empty())
    printErr("tokenscope-cli serve: " + QString::fromStdString(served->note));
  return serveUntilStopped(plan, served.value(), *model.value(), options, stop_signals);
}

}  // namespace

int runServeCommand(const QStringList& args) {
  QCommandLineParser p;
  addServeOptions(p);
  if (auto done = parseCommandLine(p, args, "serve")) return *done;
  if (!p.isSet("model")) {
    printErr("tokenscope-cli serve: expected --model PATH");
    return 2;
  }
  OptionError err;
  const auto plan = servePlan(p, err);
  if (!plan) {
    printErr("tokenscope-cli serve: " + err.message);
    return 2;
  }
  return runServe(p, *plan);
}

}  // namespace ts
