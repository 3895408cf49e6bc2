// Runs one benchmark step against an OpenAI-compatible endpoint: W warm-up requests one
// at a time (not counted), then N measured requests, either closed-loop (at most C in
// flight, the next starting when one ends) or open-loop at a request rate R with gamma-
// distributed gaps (shape B = burstiness: 1 is a Poisson process, lower is burstier, as
// vLLM's benchmark), optionally capped at C in flight. Each request in flight has its own
// network manager and so its own connection; a manager is reused (with its kept-alive
// connection) by the next request once its request ended. Before anything is measured,
// one connection per slot is opened with GET /v1/models (not counted), so no measured
// request pays for starting a connection (with Qt, ~7 ms on loopback). Lives on one
// thread (its event loop drives the clients); nothing else should block that thread while
// it runs (record results afterwards), or the delay shows up in the measurements.
#pragma once
#include <QJsonObject>
#include <QObject>
#include <optional>
#include <random>
#include <vector>

#include "inference/remote/openai_client.h"
#include "inference/stream/bench_stats.h"

namespace ts {

struct BenchOptions {
  RemoteEndpoint endpoint;
  GenerationRequest request;  // the same prompt and parameters for every request
  int requests = 10;
  int warmup = 0;
  std::optional<int> concurrency;  // closed loop (default 1 without a rate); a cap with one
  std::optional<double> rate;      // requests per second: open loop
  double burstiness = 1.0;
  uint64_t seed = 0;  // arrival times
  Slo slo;
  // Each request's last message starts with its own number ("17: "), so that no prefix
  // cache serves one request's prompt from another's: every prompt is read in full.
  bool distinct_prompts = false;
};

struct BenchRequest {
  RecordedRun run;
  RunMetrics metrics;
  bool ok = false;  // finished (not failed)
};

struct BenchResult {
  std::vector<BenchRequest> requests;  // measured requests, in the order they ended
  double duration_s = 0;               // first measured request sent -> last one ended
  int completed = 0, failed = 0;
  // requests_completed, requests_failed, duration_s, output_throughput_tok_s, goodput_req_s,
  // ttft_ms / tpot_ms / itl_ms / e2e_ms as {mean, p50, p90, p99}, and vLLM's names for the
  // same figures (completed, request_throughput, output_throughput, mean_ttft_ms, ...).
  QJsonObject json(const BenchOptions& options) const;
};

class BenchRunner : public QObject {
  Q_OBJECT
 public:
  explicit BenchRunner(BenchOptions options, QObject* parent = nullptr);
  void start();
  void cancel();  // requests in flight end "cancelled" (counted as failed)
  const BenchResult& result() const { return result_; }

 signals:
  // After each request: measured ones count towards `total`; warm-ups have warmup = true.
  void requestFinished(int done, int total, const ts::RecordedRun& run, bool warmup);
  void finished();

 private:
  void openConnections();  // then warm-ups, then the measured requests
  void beginRequests();
  void launch(bool warmup);
  void scheduleNext();
  void onRequestEnd(OpenAiClient* client, QNetworkAccessManager* manager, bool warmup);

  BenchOptions options_;
  BenchResult result_;
  std::mt19937_64 rng_;
  int warmups_left_ = 0;
  int launched_ = 0;               // measured requests started
  int sent_ = 0;                   // requests started, warm-ups included
  int in_flight_ = 0;              // measured requests running
  bool waiting_for_slot_ = false;  // open loop: an arrival came while at the cap
  bool cancelled_ = false;
  QElapsedTimer clock_;
  std::vector<OpenAiClient*> clients_;
  std::vector<QNetworkAccessManager*> idle_managers_;
};

}  // namespace ts
