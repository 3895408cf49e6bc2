#include "app/cli/serve_command.h"

#include <QFileInfo>
#include <QUrl>
#include <csignal>
#include <cstdio>
#include <optional>

#include "app/cli/common.h"
#include "app/cli/model_options.h"
#include "app/cli/options.h"
#include "app/cli/scheduler_options.h"
#include "app/server/chat_api.h"
#include "app/server/model_server.h"
#include "inference/engine/core/thread_pool.h"
#include "inference/engine/decode/open_session.h"
#include "inference/engine/serving/serving_limits.h"

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
       {"context",
        "Positions of one request, prompt and answer (default: the model's context, at most "
        "4096).",
        "N"},
       {"max-tokens",
        "Answer length when a request gives none (default: the model's generation_config.json "
        "max_new_tokens, else 256).",
        "N", "256"},
       {"backend", "cpu, cuda or auto.", "NAME", "cpu"},
       {"device", "CUDA device index.", "N", "0"},
       {"kv", "KV cache format: f16 (default), f32 or int8.", "FORMAT", "f16"},
       {"threads", "CPU threads (default: one per core).", "N"}});
  addSchedulerOptions(p, "");
}

// serve's settings, checked; nullopt after saying why.
struct ServeSettings {
  int port = 8080, max_queue = 16, max_tokens = 256, device = 0, threads = 1, context = 0;
  int max_body_mb = 8;
  engine::SchedulerOptions scheduling;
  engine::KvFormat kv = engine::KvFormat::F16;
  QString chat;
  std::string api_key;
};
std::optional<ServeSettings> serveSettings(const QCommandLineParser& p) {
  OptionError err;
  const auto port = parseIntOption("port", p.value("port"), 0, 65535, err);
  const auto scheduling = schedulerOptions(p, err);
  const auto bounded = [&](const char* name, const engine::Bound& b) {
    return parseIntOption(name, p.value(name), static_cast<int>(b.lo), static_cast<int>(b.hi), err);
  };
  const auto max_queue = bounded("max-queue", engine::kQueueBound);
  const auto max_body = bounded("max-body-mb", engine::kMaxBodyMbBound);
  const auto max_tokens = parseIntOption("max-tokens", p.value("max-tokens"), 1, 1 << 20, err);
  const auto device = parseIntOption("device", p.value("device"), 0, 63, err);
  const auto threads = p.isSet("threads")
                           ? parseIntOption("threads", p.value("threads"), 1, 1024, err)
                           : std::optional<int>(engine::ThreadPool::defaultThreads());
  const auto context =
      p.isSet("context") ? bounded("context", engine::kContextBound) : std::optional<int>(0);
  const QString chat = p.value("chat");
  if (err.message.isEmpty() && chat != "auto" && chat != "on" && chat != "off")
    err.message = QString("--chat: expected auto, on or off, found '%1'").arg(chat);
  const auto kv = engine::parseKvFormat(p.value("kv").toStdString());
  if (err.message.isEmpty() && !kv) err.message = "--kv: " + QString::fromStdString(kv.error());
  if (auto backend = engine::parseBackend(p.value("backend").toStdString());
      err.message.isEmpty() && !backend)
    err.message = "--backend: " + QString::fromStdString(backend.error());
  std::string api_key;
  if (err.message.isEmpty() && p.isSet("api-key-env")) {
    api_key = qEnvironmentVariable(p.value("api-key-env").toLocal8Bit().constData()).toStdString();
    if (api_key.empty())
      err.message = QString(
                        "--api-key-env: the variable %1 is empty or not set; set it to the key "
                        "clients must send")
                        .arg(p.value("api-key-env"));
  }
  if (!err.message.isEmpty()) {
    printErr("tokenscope-cli serve: " + err.message);
    return std::nullopt;
  }
  return ServeSettings{*port,     *max_queue,  *max_tokens, *device, *threads, *context,
                       *max_body, *scheduling, kv.value(),  chat,    api_key};
}

// Listens, says where and how, and serves until SIGINT / SIGTERM (blocked in
// `stop_signals`).
int serveUntilStopped(const QCommandLineParser& p, const server::ServedModel& served,
                      const engine::Model& model, const server::ServerOptions& options, int port,
                      const sigset_t& stop_signals) {
  server::LocalServer& server = *served.server;
  const std::string host = p.value("host").toStdString();
  const int bound = server.bind(host, port);
  if (bound < 0) {
    printErr(QString("tokenscope-cli serve: cannot listen on %1:%2 (in use, or not an address of "
                     "this machine); choose another --port or --host")
                 .arg(p.value("host"))
                 .arg(port));
    return 1;
  }
  if (!server.start()) {
    printErr("tokenscope-cli serve: the server stopped as it started");
    return 1;
  }
  std::printf("serving %s (%s, %s, %d positions, %s; %s) at http://%s:%d/v1%s\n",
              options.model_name.c_str(), model.config.describe().c_str(), served.backend.c_str(),
              served.positions, options.chat ? "chat template" : "plain completion",
              server::describeScheduling(*served.scheduler).c_str(), host.c_str(), bound,
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
  int signal = 0;
  sigwait(&stop_signals, &signal);
  server.cancelAll();  // what runs ends within a step, instead of at its max_tokens
  server.stop();
  std::printf("stopped after %d completed requests\n", server.completedRequests());
  return 0;
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
  const auto settings = serveSettings(p);
  if (!settings) return 2;
  auto model = load(p, true);
  if (!model) {
    printErr("tokenscope-cli serve: " + QString::fromStdString(model.error()));
    return 1;
  }
  engine::BackendRequest request;
  request.name = p.value("backend").toStdString();
  request.threads = settings->threads;
  request.cuda.device = settings->device;
  server::ServerOptions options;
  options.api_key = settings->api_key;
  options.model_name = p.isSet("model-name")
                           ? p.value("model-name").toStdString()
                           : QFileInfo(p.value("model")).completeBaseName().toStdString();
  options.chat =
      settings->chat == "on" || (settings->chat == "auto" && server::isChatModel(*model.value()));
  options.default_max_tokens =
      p.isSet("max-tokens")
          ? settings->max_tokens
          : model.value()->generation.max_new_tokens.value_or(settings->max_tokens);
  options.max_queue = settings->max_queue;
  options.max_body_mb = settings->max_body_mb;
  options.truncate_history = p.isSet("truncate-history");
  for (const QString& given : p.values("cors-origin")) {
    const QString origin = given.trimmed();
    const QUrl url(origin);
    if (!url.isValid() || (url.scheme() != "http" && url.scheme() != "https") ||
        url.host().isEmpty() || !url.path().isEmpty()) {
      printErr(QString("tokenscope-cli serve: --cors-origin: expected an origin such as "
                       "http://localhost:3000 (scheme, host and port, no path), found '%1'")
                   .arg(given));
      return 2;
    }
    options.cors_origins.push_back(origin.toStdString());
  }
  // SIGINT / SIGTERM end the server: blocked here (and so in every thread started after),
  // awaited below while another thread serves.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  auto served = server::serveModel(model.value(), settings->context, settings->kv, request,
                                   settings->scheduling, options);
  if (!served) {
    printErr("tokenscope-cli serve: " + QString::fromStdString(served.error()));
    return 1;
  }
  if (!served->note.empty())
    printErr("tokenscope-cli serve: " + QString::fromStdString(served->note));
  return serveUntilStopped(p, served.value(), *model.value(), options, settings->port,
                           stop_signals);
}

}  // namespace ts
