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
#include "app/cli/runtime_options.h"
#include "app/local/free_port_server.h"
#include "app/store/run_store.h"
#include "inference/engine/core/thread_pool.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/serving/serving_limits.h"
#include "inference/remote/base_url.h"

namespace ts {
namespace {

void addBenchOptions(QCommandLineParser& p) {
  p.setApplicationDescription(
      "Benchmarks an OpenAI-compatible endpoint: the same prompt --requests times after "
      "--warmup runs, at a --concurrency (closed loop) or a --rate (open loop, Poisson or "
      "burstier), and reports TTFT, TPOT, ITL and E2E percentiles, throughput and goodput. "
      "With --model-path, the runtime options (--weights to --kv-memory-mb, as `serve` "
      "takes them) say how the local model loads, runs and is scheduled.");
  p.addOptions({
      {"base-url", "Endpoint root, e.g. http://127.0.0.1:8080 (a pasted /v1 is fine).", "URL"},
      {"model", "Model id sent with each request.", "NAME"},
      {"model-path",
       "Benchmark a local model instead: it is served in-process on 127.0.0.1 (as `serve` "
       "does: continuous batching, --parallel requests at once) and measured over HTTP.",
       "PATH"},
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
  addRuntimeOptions(p, kServingOptions);
}

// What bench will do, checked before anything starts (a model load, a serving thread).
struct BenchPlan {
  BenchOptions o;
  RuntimePlan runtime;  // with --model-path
  bool local = false;   // --model-path
  QString model_name;   // the id requested (and recorded)
  double timeout_s = 60;
};

// The flags that must (not) come together; "" when they are right.
QString missingFlags(const QCommandLineParser& p) {
  if (p.isSet("base-url") == p.isSet("model-path"))
    return "missing --base-url URL (the endpoint to benchmark, e.g. http://127.0.0.1:8080) or "
           "--model-path PATH (a local model), exactly one of them";
  if (!p.isSet("model") && !p.isSet("model-path"))
    return "missing --model NAME (the model id to request)";
  if (p.isSet("prompt") == p.isSet("prompt-file"))
    return "expected one of --prompt TEXT or --prompt-file F";
  if (!p.isSet("requests")) return "missing --requests N (how many measured requests)";
  return {};
}

// The load (requests, arrivals, SLOs) and the request's parameters; `err` says what is wrong.
void readLoad(const QCommandLineParser& p, BenchPlan& plan, OptionError& err) {
  const auto integer = [&](const char* flag, int fallback, int min, int max) {
    return p.isSet(flag) ? parseIntOption(flag, p.value(flag), min, max, err)
                         : std::optional<int>(fallback);
  };
  const auto real = [&](const char* flag, double min, double max) -> std::optional<double> {
    if (!p.isSet(flag)) return std::nullopt;
    return parseDoubleOption(flag, p.value(flag), min, max, err);
  };
  BenchOptions& o = plan.o;
  o.requests = integer("requests", 1, 1, 1'000'000).value_or(1);
  o.warmup = integer("warmup", 0, 0, 10'000).value_or(0);
  if (p.isSet("concurrency"))
    o.concurrency = integer("concurrency", 1, static_cast<int>(engine::kConcurrencyBound.lo),
                            static_cast<int>(engine::kConcurrencyBound.hi));
  o.rate = real("rate", 1e-6, 1e6);
  o.burstiness = real("burstiness", 1e-3, 1e3).value_or(1.0);
  o.seed = static_cast<uint64_t>(integer("seed", 0, 0, INT32_MAX).value_or(0));
  o.slo.ttft_ms = real("slo-ttft-ms", 0, 1e9);
  o.slo.tpot_ms = real("slo-tpot-ms", 0, 1e9);
  o.distinct_prompts = p.isSet("distinct-prompts");
  o.request.params.max_tokens = integer("max-tokens", 128, 1, 10'000'000).value_or(128);
  o.request.params.temperature = real("temperature", 0, 2).value_or(0);
  o.request.params.seed = static_cast<int64_t>(o.seed);
  plan.timeout_s = real("timeout", 0.001, 86'400).value_or(60);
}

// --prompt, or the text of --prompt-file; nullopt with `err` filled when it cannot be read.
std::optional<std::string> promptOf(const QCommandLineParser& p, OptionError& err) {
  if (!p.isSet("prompt-file")) return p.value("prompt").toStdString();
  QFile f(p.value("prompt-file"));
  if (f.open(QIODevice::ReadOnly)) return f.readAll().toStdString();
  err.message = QString("--prompt-file: cannot read %1: %2").arg(f.fileName(), f.errorString());
  return std::nullopt;
}

std::optional<BenchPlan> benchPlan(const QCommandLineParser& p, OptionError& err) {
  err.message = missingFlags(p);
  if (!err.message.isEmpty()) return std::nullopt;
  BenchPlan plan;
  readLoad(p, plan, err);
  const auto runtime = runtimePlan(p, kServingOptions, err);
  if (!err.message.isEmpty() || !runtime) return std::nullopt;
  if (p.isSet("burstiness") && !plan.o.rate) {
    err.message = "--burstiness needs --rate";
    return std::nullopt;
  }
  plan.local = p.isSet("model-path");
  if (!plan.local) {
    if (const NormalizedBaseUrl url = normalizeBaseUrl(p.value("base-url")); !url.ok()) {
      err.message = "base URL: " + url.error;
      return std::nullopt;
    }
  }
  const auto prompt = promptOf(p, err);
  if (!prompt) return std::nullopt;
  plan.runtime = *runtime;
  plan.model_name =
      p.isSet("model") ? p.value("model") : QFileInfo(p.value("model-path")).completeBaseName();
  plan.o.request.provider = "tokenscope-cli bench";
  plan.o.request.model = plan.model_name.toStdString();
  plan.o.request.messages = {{"user", *prompt}};
  plan.o.endpoint.provider_name = "bench";
  plan.o.endpoint.base_url = p.value("base-url");
  plan.o.endpoint.api_key_env = p.value("api-key-env");
  plan.o.endpoint.max_retries = 0;  // a benchmark measures what happens, without second chances
  plan.o.endpoint.timeouts = RemoteTimeouts::fromLimitSeconds(plan.timeout_s);
  return plan;
}

// --model-path: the model loaded and served on a free port of 127.0.0.1 (stopped and joined
// when the returned server goes); the plan's endpoint then points at it. Null after saying
// why.
std::unique_ptr<FreePortServer> serveLocal(const QCommandLineParser& p, BenchPlan& plan) {
  auto model = engine::loadModel(p.value("model-path").toStdString(), plan.runtime.load);
  if (!model) {
    printErr("tokenscope-cli bench: " + QString::fromStdString(model.error()));
    return nullptr;
  }
  const RuntimePlan& r = plan.runtime;
  FreePortServeSpec spec{model.value(), plan.model_name.toStdString(), r.context, r.kv, r.backend,
                         r.scheduling};
  // queued rather than refused (the server keeps a thread per admitted request)
  spec.max_queue = std::min(std::max(plan.o.requests, plan.o.concurrency.value_or(1)), 1024);
  auto served = FreePortServer::start(spec);
  if (!served) {
    printErr("tokenscope-cli bench: " + QString::fromStdString(served.error()));
    return nullptr;
  }
  const FreePortServer& s = *served.value();
  if (!s.note().empty()) printErr("tokenscope-cli bench: " + QString::fromStdString(s.note()));
  plan.o.endpoint.base_url = s.baseUrl();
  printErr(QString("tokenscope-cli bench: serving %1 on %2 (%3; %4)")
               .arg(plan.model_name, s.baseUrl(), QString::fromStdString(s.backend()),
                    QString::fromStdString(s.scheduling())));
  return std::move(served.value());
}

// How the requests are recorded: the endpoint, the model, the local runtime, the group.
RunContext contextOf(const QCommandLineParser& p, const BenchPlan& plan) {
  RunContext context{"tokenscope-cli bench", normalizeBaseUrl(plan.o.endpoint.base_url).root,
                     plan.model_name};
  if (plan.local) {
    context.backend = p.value("backend");
    context.weights = p.value("weights");
    context.kv = p.value("kv");
    context.threads =
        p.isSet("threads") ? p.value("threads").toInt() : engine::ThreadPool::defaultThreads();
  }
  const BenchOptions& o = plan.o;
  context.group = QString("bench %1 %2")
                      .arg(QDateTime::currentDateTimeUtc().toString(Qt::ISODate),
                           o.rate ? QString("rate=%1").arg(*o.rate)
                                  : QString("c=%1").arg(o.concurrency.value_or(1)));
  context.tags = QStringList{"bench"} + p.values("tag");
  return context;
}

// Runs the benchmark to its end (progress on a terminal's stderr); `first_error`: the first
// failed request's message. `served` stops once the clients have closed their connections
// (stopped first, it would wait for them to time out).
BenchResult measure(const BenchOptions& o, std::unique_ptr<FreePortServer> served,
                    QString& first_error) {
  auto runner = std::make_unique<BenchRunner>(o);
  const bool tty = ::isatty(STDERR_FILENO);
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
  BenchResult result = runner->result();
  runner.reset();
  served.reset();
  return result;
}

// The run store the requests go to; null (after saying why) when they are not recorded.
std::unique_ptr<RunStore> openStore(const QCommandLineParser& p) {
  if (p.isSet("no-store")) return nullptr;
  auto store =
      std::make_unique<RunStore>(p.isSet("store") ? p.value("store") : RunStore::defaultPath());
  if (store->isOpen()) return store;
  printErr("tokenscope-cli bench: requests not recorded: " + store->error());
  return nullptr;
}

QString line(const char* name, const QJsonObject& p) {
  return QString("%1  mean %2  p50 %3  p90 %4  p99 %5 ms")
      .arg(name, -5)
      .arg(p.value("mean").toDouble(), 8, 'f', 2)
      .arg(p.value("p50").toDouble(), 8, 'f', 2)
      .arg(p.value("p90").toDouble(), 8, 'f', 2)
      .arg(p.value("p99").toDouble(), 8, 'f', 2);
}

void printResult(const QJsonObject& out, bool json) {
  if (json) {
    std::printf("%s\n", QJsonDocument(out).toJson(QJsonDocument::Indented).constData());
    return;
  }
  printOut(QString("%1 completed, %2 failed in %3 s · %4 output tok/s · goodput %5 req/s")
               .arg(out.value("requests_completed").toInt())
               .arg(out.value("requests_failed").toInt())
               .arg(out.value("duration_s").toDouble(), 0, 'f', 2)
               .arg(out.value("output_throughput_tok_s").toDouble(), 0, 'f', 1)
               .arg(out.value("goodput_req_s").toDouble(), 0, 'f', 2));
  for (const char* name : {"ttft", "tpot", "itl", "e2e"})
    printOut(line(name, out.value(QString(name) + "_ms").toObject()));
}

}  // namespace

int runBenchCommand(const QStringList& args) {
  QCommandLineParser p;
  addBenchOptions(p);
  if (auto done = parseCommandLine(p, args, "bench")) return *done;
  OptionError err;
  auto plan = benchPlan(p, err);
  if (!plan) {
    printErr("tokenscope-cli bench: " + err.message);
    return 2;
  }
  std::unique_ptr<FreePortServer> served;
  if (plan->local && !(served = serveLocal(p, *plan))) return 1;
  const std::unique_ptr<RunStore> store = openStore(p);
  const RunContext context = contextOf(p, *plan);
  QString first_error;
  const BenchResult result = measure(plan->o, std::move(served), first_error);
  // Recorded now, not while measuring: a write on the measuring thread would delay the
  // chunks of the requests still streaming.
  if (store)
    for (const BenchRequest& r : result.requests)
      RunStoreWriter(*store, plan->o.request, context).finish(r.run);
  const QJsonObject out = result.json(plan->o);
  printResult(out, p.isSet("json"));
  if (!first_error.isEmpty()) printErr("tokenscope-cli bench: first failure: " + first_error);
  return out.value("requests_completed").toInt() > 0 ? 0 : 1;
}

}  // namespace ts
