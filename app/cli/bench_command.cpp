#include "app/cli/bench_command.h"

#include <unistd.h>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>

#include "app/bench/bench_runner.h"
#include "app/cli/common.h"
#include "app/cli/options.h"
#include "app/cli/scheduler_options.h"
#include "app/server/model_server.h"
#include "app/store/run_store.h"
#include "inference/engine/core/thread_pool.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/serving/serving_limits.h"
#include "inference/remote/base_url.h"

namespace ts {
namespace {

QString line(const char* name, const QJsonObject& p) {
  return QString("%1  mean %2  p50 %3  p90 %4  p99 %5 ms")
      .arg(name, -5)
      .arg(p.value("mean").toDouble(), 8, 'f', 2)
      .arg(p.value("p50").toDouble(), 8, 'f', 2)
      .arg(p.value("p90").toDouble(), 8, 'f', 2)
      .arg(p.value("p99").toDouble(), 8, 'f', 2);
}

}  // namespace

int runBenchCommand(const QStringList& args) {
  QCommandLineParser p;
  p.setApplicationDescription(
      "Benchmarks an OpenAI-compatible endpoint: the same prompt --requests times after "
      "--warmup runs, at a --concurrency (closed loop) or a --rate (open loop, Poisson or "
      "burstier), and reports TTFT, TPOT, ITL and E2E percentiles, throughput and goodput.");
  p.addOptions({
      {"base-url", "Endpoint root, e.g. http://127.0.0.1:8080 (a pasted /v1 is fine).", "URL"},
      {"model", "Model id sent with each request.", "NAME"},
      {"model-path",
       "Benchmark a local model instead: it is served in-process on 127.0.0.1 (as `serve` "
       "does: continuous batching, --parallel requests at once) and measured over HTTP.",
       "PATH"},
      {"weights",
       "With --model-path: runtime weights auto (default: as stored), f32, f16, int8, int4 or "
       "q8_0.",
       "FORMAT", "auto"},
      {"kv", "With --model-path: KV cache f16 (default), f32 or int8.", "FORMAT", "f16"},
      {"backend", "With --model-path: cpu, cuda or auto.", "NAME", "cpu"},
      {"api-key-env", "Environment variable that holds the API key.", "VAR"},
      {"prompt", "The user message.", "TEXT"},
      {"prompt-file", "Read the user message from a file.", "F"},
      {"requests", "Measured requests (required).", "N"},
      {"warmup", "Requests run first, one at a time, and not counted (default 0).", "W"},
      {"concurrency", "Requests in flight at most (closed loop; default 1).", "C"},
      {"rate", "Requests per second (open loop); with --concurrency, that caps it.", "R"},
      {"burstiness", "Gamma shape of the gaps with --rate: 1 Poisson, < 1 burstier.", "B"},
      {"max-tokens", "Most tokens per answer (default 128).", "N"},
      {"temperature", "Sampling temperature, 0..2 (default 0).", "T"},
      {"seed", "Seed of the requests and of the arrival times (default 0).", "S"},
      {"slo-ttft-ms", "Goodput counts requests whose TTFT is at most this.", "X"},
      {"slo-tpot-ms", "Goodput counts requests whose TPOT is at most this.", "Y"},
      {"timeout", "Longest wait in seconds for a connection, first token or gap (default 60).",
       "S"},
      {"store", "Run store to record the requests in (default: the app's runs.sqlite).", "FILE"},
      {"no-store", "Do not record the requests."},
      {"tag", "Tag the recorded requests (repeatable).", "TAG"},
      {"distinct-prompts",
       "Start each request's prompt with its own number, so that no prefix cache serves one "
       "request from another's (every prompt is read in full)."},
      {"json", "Print one JSON object with the results."},
  });
  addSchedulerOptions(p, "With --model-path: ");
  if (auto done = parseCommandLine(p, args, "bench")) return *done;
  const auto fail = [](const QString& message) {
    printErr("tokenscope-cli bench: " + message);
    return 2;
  };
  const bool local = p.isSet("model-path");
  if (p.isSet("base-url") == local)
    return fail(
        "missing --base-url URL (the endpoint to benchmark, e.g. http://127.0.0.1:8080) or "
        "--model-path PATH (a local model), exactly one of them");
  if (!p.isSet("model") && !local) return fail("missing --model NAME (the model id to request)");
  if (p.isSet("prompt") == p.isSet("prompt-file"))
    return fail("expected one of --prompt TEXT or --prompt-file F");
  if (!p.isSet("requests")) return fail("missing --requests N (how many measured requests)");
  OptionError err;
  const auto integer = [&](const char* flag, int fallback, int min, int max) {
    return p.isSet(flag) ? parseIntOption(flag, p.value(flag), min, max, err)
                         : std::optional<int>(fallback);
  };
  const auto real = [&](const char* flag, double min, double max) -> std::optional<double> {
    if (!p.isSet(flag)) return std::nullopt;
    return parseDoubleOption(flag, p.value(flag), min, max, err);
  };
  BenchOptions o;
  o.requests = integer("requests", 1, 1, 1'000'000).value_or(1);
  o.warmup = integer("warmup", 0, 0, 10'000).value_or(0);
  if (p.isSet("concurrency"))
    o.concurrency = integer("concurrency", 1, static_cast<int>(engine::kConcurrencyBound.lo),
                            static_cast<int>(engine::kConcurrencyBound.hi));
  o.rate = real("rate", 1e-6, 1e6);
  o.burstiness = real("burstiness", 1e-3, 1e3).value_or(1.0);
  const int max_tokens = integer("max-tokens", 128, 1, 10'000'000).value_or(128);
  const double temperature = real("temperature", 0, 2).value_or(0);
  o.seed = static_cast<uint64_t>(integer("seed", 0, 0, INT32_MAX).value_or(0));
  o.slo.ttft_ms = real("slo-ttft-ms", 0, 1e9);
  o.slo.tpot_ms = real("slo-tpot-ms", 0, 1e9);
  o.distinct_prompts = p.isSet("distinct-prompts");
  const double timeout = real("timeout", 0.001, 86'400).value_or(60);
  const auto scheduling = schedulerOptions(p, err);
  if (!err.message.isEmpty()) return fail(err.message);
  if (p.isSet("burstiness") && !o.rate) return fail("--burstiness needs --rate");
  // Every argument is checked before anything starts (a model load, a serving thread).
  auto weights = engine::parseWeightFormat(p.value("weights").toStdString());
  auto kv = engine::parseKvFormat(p.value("kv").toStdString());
  auto backend = engine::parseBackend(p.value("backend").toStdString());
  if (!weights) return fail("--weights: " + QString::fromStdString(weights.error()));
  if (!kv) return fail("--kv: " + QString::fromStdString(kv.error()));
  if (!backend) return fail("--backend: " + QString::fromStdString(backend.error()));
  if (!local) {
    if (const NormalizedBaseUrl url = normalizeBaseUrl(p.value("base-url")); !url.ok())
      return fail("base URL: " + url.error);
  }
  std::string prompt = p.value("prompt").toStdString();
  if (p.isSet("prompt-file")) {
    QFile f(p.value("prompt-file"));
    if (!f.open(QIODevice::ReadOnly))
      return fail(QString("--prompt-file: cannot read %1: %2").arg(f.fileName(), f.errorString()));
    prompt = f.readAll().toStdString();
  }
  // A local model: served in-process (its server owns its thread: every return below
  // stops and joins it), then measured like any endpoint.
  std::optional<server::ServedModel> served;
  QString base_url = p.value("base-url");
  const QString model_name =
      p.isSet("model") ? p.value("model") : QFileInfo(p.value("model-path")).completeBaseName();
  if (local) {
    engine::LoadOptions load;
    load.weights = weights.value();
    auto model = engine::loadModel(p.value("model-path").toStdString(), load);
    if (!model) {
      printErr("tokenscope-cli bench: " + QString::fromStdString(model.error()));
      return 1;
    }
    engine::BackendRequest request;
    request.name = backend.value();
    request.threads = engine::ThreadPool::defaultThreads();
    server::ServerOptions options;
    options.model_name = model_name.toStdString();
    options.chat = server::isChatModel(*model.value());
    // queued rather than refused (the server keeps a thread per admitted request)
    options.max_queue = std::min(std::max(o.requests, o.concurrency.value_or(1)), 1024);
    auto made = server::serveModel(model.value(), 0, kv.value(), request, *scheduling, options);
    if (!made) {
      printErr("tokenscope-cli bench: " + QString::fromStdString(made.error()));
      return 1;
    }
    if (!made->note.empty())
      printErr("tokenscope-cli bench: " + QString::fromStdString(made->note));
    served = std::move(made.value());
    const int port = served->server->bind("127.0.0.1", 0);
    if (port < 0 || !served->server->start()) {
      printErr("tokenscope-cli bench: cannot listen on 127.0.0.1 for the local model");
      return 1;
    }
    base_url = QString("http://127.0.0.1:%1").arg(port);
    printErr(QString("tokenscope-cli bench: serving %1 on %2 (%3; %4)")
                 .arg(model_name, base_url, QString::fromStdString(served->backend),
                      QString::fromStdString(server::describeScheduling(*served->scheduler))));
  }
  const NormalizedBaseUrl url = normalizeBaseUrl(base_url);

  o.request.provider = "tokenscope-cli bench";
  o.request.model = model_name.toStdString();
  o.request.messages = {{"user", prompt}};
  o.request.params.max_tokens = max_tokens;
  o.request.params.temperature = temperature;
  o.request.params.seed = static_cast<int64_t>(o.seed);
  o.endpoint.provider_name = "bench";
  o.endpoint.base_url = base_url;
  o.endpoint.api_key_env = p.value("api-key-env");
  o.endpoint.max_retries = 0;  // a benchmark measures what happens, without second chances
  o.endpoint.timeouts = RemoteTimeouts::fromLimitSeconds(timeout);

  std::unique_ptr<RunStore> store;
  if (!p.isSet("no-store")) {
    store =
        std::make_unique<RunStore>(p.isSet("store") ? p.value("store") : RunStore::defaultPath());
    if (!store->isOpen()) {
      printErr("tokenscope-cli bench: requests not recorded: " + store->error());
      store.reset();
    }
  }
  RunContext context{"tokenscope-cli bench", url.root, model_name};
  if (local) {
    context.backend = p.value("backend");
    context.weights = p.value("weights");
    context.kv = p.value("kv");
  }
  context.group = QString("bench %1 %2")
                      .arg(QDateTime::currentDateTimeUtc().toString(Qt::ISODate),
                           o.rate ? QString("rate=%1").arg(*o.rate)
                                  : QString("c=%1").arg(o.concurrency.value_or(1)));
  context.tags = QStringList{"bench"} + p.values("tag");

  auto runner = std::make_unique<BenchRunner>(o);
  const bool tty = ::isatty(STDERR_FILENO);
  QString first_error;
  QObject::connect(runner.get(), &BenchRunner::requestFinished,
                   [&](int done, int total, const RecordedRun& run, bool warmup) {
                     const StreamEvent* end = run.terminal();
                     if (end && end->kind == EventKind::Failed && first_error.isEmpty())
                       first_error = QString::fromStdString(end->text);
                     if (warmup) return;
                     if (tty) std::fprintf(stderr, "\r%d/%d requests", done, total);
                   });
  QObject::connect(runner.get(), &BenchRunner::finished, qApp, &QCoreApplication::quit);
  runner->start();
  QCoreApplication::exec();
  if (tty) std::fprintf(stderr, "\n");
  // The clients close their connections first; a server stopped while they stay open
  // would wait for them to time out.
  const BenchResult result = runner->result();
  runner.reset();
  if (served) served->server->stop();
  // Recorded now, not while measuring: a write on the measuring thread would delay the
  // chunks of the requests still streaming.
  if (store)
    for (const BenchRequest& r : result.requests)
      RunStoreWriter(*store, o.request, context).finish(r.run);

  const QJsonObject out = result.json(o);
  if (p.isSet("json")) {
    std::printf("%s\n", QJsonDocument(out).toJson(QJsonDocument::Indented).constData());
  } else {
    printOut(QString("%1 completed, %2 failed in %3 s · %4 output tok/s · goodput %5 req/s")
                 .arg(out.value("requests_completed").toInt())
                 .arg(out.value("requests_failed").toInt())
                 .arg(out.value("duration_s").toDouble(), 0, 'f', 2)
                 .arg(out.value("output_throughput_tok_s").toDouble(), 0, 'f', 1)
                 .arg(out.value("goodput_req_s").toDouble(), 0, 'f', 2));
    for (const char* name : {"ttft", "tpot", "itl", "e2e"})
      printOut(line(name, out.value(QString(name) + "_ms").toObject()));
  }
  if (!first_error.isEmpty()) printErr("tokenscope-cli bench: first failure: " + first_error);
  return out.value("requests_completed").toInt() > 0 ? 0 : 1;
}

}  // namespace ts
