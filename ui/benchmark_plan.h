// What the benchmark dialog asks the app to run: values only (the app turns a plan into a
// sweep of benchmark steps and reports each step back as its figures, a JSON object).
#pragma once
#include <QList>
#include <QString>
#include <map>
#include <optional>

namespace ts::ui {

// What varies between steps. PrefillChunk, MaxRunning and TpotTarget (ms per output token
// the scheduler paces prompt chunks to; 0: unpaced): the local model's scheduler settings
// (each step serves it anew with that setting), at the plan's concurrency.
enum class SweepKind { Concurrency, Rate, PromptLength, PrefillChunk, MaxRunning, TpotTarget };

inline bool sweepsScheduler(SweepKind kind) {
  return kind == SweepKind::PrefillChunk || kind == SweepKind::MaxRunning ||
         kind == SweepKind::TpotTarget;
}
// Whole numbers from 0 (0 meaning "whole prompts" or "unpaced"), where the others are > 0.
inline bool sweepAllowsZero(SweepKind kind) {
  return kind == SweepKind::PrefillChunk || kind == SweepKind::TpotTarget;
}

// The whole numbers a value may take, from lo to hi (the app passes the engine's serving
// bounds, engine/serving/serving_limits.h: one place for the CLI, the app and the config).
struct ValueBounds {
  long long lo = 0, hi = 0;
  bool contains(double v) const {
    return v >= static_cast<double>(lo) && v <= static_cast<double>(hi);
  }
};

struct BenchmarkPlan {
  QString prompt;
  int requests = 1, warmup = 0, max_tokens = 128;  // per step
  SweepKind kind = SweepKind::Concurrency;
  QList<double> values;           // one step per value: concurrency, req/s, prompt words, prompt
                                  // tokens per step (0: whole prompts), running sequences or
                                  // a TPOT target in ms (0: unpaced)
  int concurrency = 8;            // scheduler sweeps: requests in flight
  bool distinct_prompts = false;  // each request's prompt numbered: no prefix-cache hits
  double burstiness = 1;          // rate sweeps: gamma shape of the gaps (1: Poisson)
  std::optional<double> slo_ttft_ms, slo_tpot_ms;
};

}  // namespace ts::ui
