#include "app/bench/bench_runner.h"

#include <QJsonArray>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <memory>

#include <QTimer>
#include <algorithm>
#include "inference/remote/base_url.h"

namespace ts {
namespace {

QJsonObject percentilesJson(const Summary& p) {
  return {{"mean", p.mean}, {"p50", p.p50}, {"p90", p.p90}, {"p99", p.p99}};
}

}  // namespace

QJsonObject BenchResult::json(const BenchOptions& o) const {
  std::vector<double> ttft, tpot, itl, e2e;
  int64_t output_tokens = 0, good = 0;
  for (const BenchRequest& r : requests) {
    if (!r.ok) continue;
    const RunMetrics& m = r.metrics;
    if (m.ttft_ns) ttft.push_back(*m.ttft_ns / 1e6);
    if (m.tpot_ns) tpot.push_back(*m.tpot_ns / 1e6);
    for (int64_t gap : m.itl_ns) itl.push_back(gap / 1e6);
    if (m.e2e_ns) e2e.push_back(*m.e2e_ns / 1e6);
    output_tokens += m.output_tokens;
    good += meetsSlo(m, o.slo);
  }
  const double seconds = std::max(duration_s, 1e-9);
  const Summary t = summarize(ttft), p = summarize(tpot), i = summarize(itl), e = summarize(e2e);
  QJsonObject out{{"requests", o.requests},
                  {"warmup", o.warmup},
                  {"requests_completed", completed},
                  {"requests_failed", failed},
                  {"duration_s", duration_s},
                  {"total_output_tokens", static_cast<qint64>(output_tokens)},
                  {"output_throughput_tok_s", output_tokens / seconds},
                  {"request_throughput_req_s", completed / seconds},
                  {"goodput_req_s", good / seconds},
                  {"ttft_ms", percentilesJson(t)},
                  {"tpot_ms", percentilesJson(p)},
                  {"itl_ms", percentilesJson(i)},
                  {"e2e_ms", percentilesJson(e)}};
  out.insert("concurrency", o.concurrency ? QJsonValue(*o.concurrency) : QJsonValue());
  out.insert("request_rate", o.rate ? QJsonValue(*o.rate) : QJsonValue("inf"));
  out.insert("burstiness", o.burstiness);
  QJsonObject slo;
  if (o.slo.ttft_ms) slo.insert("ttft_ms", *o.slo.ttft_ms);
  if (o.slo.tpot_ms) slo.insert("tpot_ms", *o.slo.tpot_ms);
  out.insert("slo", slo);
  // vLLM's benchmark_serving result names for the same figures.
  out.insert("completed", completed);
  out.insert("total_output_tokens", static_cast<qint64>(output_tokens));
  out.insert("request_throughput", completed / seconds);
  out.insert("output_throughput", output_tokens / seconds);
  for (auto [name, s] :
       {std::pair{"ttft", t}, std::pair{"tpot", p}, std::pair{"itl", i}, std::pair{"e2el", e}}) {
    out.insert(QString("mean_%1_ms").arg(name), s.mean);
    out.insert(QString("median_%1_ms").arg(name), s.p50);
    out.insert(QString("p90_%1_ms").arg(name), s.p90);
    out.insert(QString("p99_%1_ms").arg(name), s.p99);
  }
  if (o.slo.ttft_ms || o.slo.tpot_ms) out.insert("request_goodput", good / seconds);
  // Each request as measured, in the order they ended; start_monotonic_ns is
  // CLOCK_MONOTONIC (shared by the processes of one machine), so a server's own record
  // of when it sent each chunk can be set beside it.
  QJsonArray per_request;
  for (const BenchRequest& r : requests)
    per_request.append(QJsonObject{
        {"start_monotonic_ns", static_cast<qint64>(r.run.start_ns)},
        {"ok", r.ok},
        {"ttft_ms", r.metrics.ttft_ns ? QJsonValue(*r.metrics.ttft_ns / 1e6) : QJsonValue()},
        {"e2e_ms", r.metrics.e2e_ns ? QJsonValue(*r.metrics.e2e_ns / 1e6) : QJsonValue()},
        {"output_tokens", static_cast<qint64>(r.metrics.output_tokens)}});
  out.insert("per_request", per_request);
  return out;
}

BenchRunner::BenchRunner(BenchOptions options, QObject* parent)
    : QObject(parent), options_(std::move(options)), rng_(options_.seed) {
  if (!options_.request.params.seed) options_.request.params.seed = 0;  // repeatable samples
}

void BenchRunner::start() {
  openConnections();
}

void BenchRunner::openConnections() {
  const NormalizedBaseUrl url = normalizeBaseUrl(options_.endpoint.base_url);
  // Slots: the concurrency, else (open loop without a cap) a guess at what will overlap.
  const int connections =
      std::min(options_.requests, options_.concurrency.value_or(options_.rate ? 8 : 1));
  if (!url.ok() || connections <= 0) return beginRequests();
  auto pending = std::make_shared<int>(connections);
  for (int i = 0; i < connections; ++i) {
    auto* manager = new QNetworkAccessManager(this);
    QNetworkReply* reply = manager->get(QNetworkRequest(modelsUrl(url.root)));
    connect(reply, &QNetworkReply::finished, this, [this, reply, manager, pending] {
      reply->deleteLater();  // any answer (even 401 or 404) leaves the connection open
      idle_managers_.push_back(manager);
      if (--*pending == 0) beginRequests();
    });
  }
}

void BenchRunner::beginRequests() {
  warmups_left_ = options_.warmup;
  if (warmups_left_ > 0 && !cancelled_) return launch(true);
  clock_.start();
  if (cancelled_) return emit finished();
  scheduleNext();
}

void BenchRunner::cancel() {
  cancelled_ = true;
  for (OpenAiClient* c : clients_) c->cancel();
}

// Closed loop: fill up to the concurrency. Open loop: launch one now (unless at the cap)
// and set the timer for the next arrival.
void BenchRunner::scheduleNext() {
  if (cancelled_) return;
  if (!options_.rate) {
    const int cap = options_.concurrency.value_or(1);
    while (launched_ < options_.requests && in_flight_ < cap) launch(false);
    return;
  }
  if (launched_ >= options_.requests) return;
  if (options_.concurrency && in_flight_ >= *options_.concurrency) {
    waiting_for_slot_ = true;  // launched when a request ends
    return;
  }
  launch(false);
  if (launched_ >= options_.requests) return;
  // Gamma(shape B, scale 1 / (R B)): mean gap 1 / R for every burstiness.
  std::gamma_distribution<double> gap(options_.burstiness,
                                      1.0 / (*options_.rate * options_.burstiness));
  QTimer::singleShot(static_cast<int>(gap(rng_) * 1000), this, [this] { scheduleNext(); });
}

void BenchRunner::launch(bool warmup) {
  QNetworkAccessManager* manager = nullptr;  // one per request in flight: its own connection
  if (idle_managers_.empty()) {
    manager = new QNetworkAccessManager(this);
  } else {
    manager = idle_managers_.back();
    idle_managers_.pop_back();
  }
  auto* client = new OpenAiClient(this, manager);
  clients_.push_back(client);
  if (!warmup) {
    ++launched_;
    ++in_flight_;
  }
  connect(client, &OpenAiClient::runFinished, this,
          [this, client, manager, warmup] { onRequestEnd(client, manager, warmup); });
  ++sent_;
  if (!options_.distinct_prompts || options_.request.messages.empty())
    return client->start(options_.endpoint, options_.request);
  GenerationRequest request = options_.request;
  std::string& text = request.messages.back().content;
  text = std::to_string(sent_) + ": " + text;
  client->start(options_.endpoint, request);
}

void BenchRunner::onRequestEnd(OpenAiClient* client, QNetworkAccessManager* manager, bool warmup) {
  const RecordedRun run = client->result().run;
  clients_.erase(std::find(clients_.begin(), clients_.end(), client));
  client->deleteLater();
  idle_managers_.push_back(manager);
  if (warmup) {
    emit requestFinished(0, options_.requests, run, true);
    if (--warmups_left_ > 0 && !cancelled_) return launch(true);
    clock_.start();
    if (cancelled_) return emit finished();
    return scheduleNext();
  }
  --in_flight_;
  BenchRequest r;
  r.run = run;
  r.metrics = computeMetrics(run);
  const StreamEvent* end = run.terminal();
  r.ok = end && end->kind == EventKind::Finished && end->text != "cancelled";
  (r.ok ? result_.completed : result_.failed)++;
  result_.requests.push_back(std::move(r));
  emit requestFinished(static_cast<int>(result_.requests.size()), options_.requests, run, false);
  const bool done = static_cast<int>(result_.requests.size()) >= launched_ &&
                    (launched_ >= options_.requests || cancelled_);
  if (done) {
    result_.duration_s = clock_.nsecsElapsed() / 1e9;
    return emit finished();
  }
  if (!options_.rate || waiting_for_slot_) {
    waiting_for_slot_ = false;
    scheduleNext();
  }
}

}  // namespace ts
