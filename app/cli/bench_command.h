// tokenscope-cli bench: the same prompt N times (after W warm-ups) against an endpoint,
// closed-loop at a concurrency or open-loop at a request rate; prints mean / p50 / p90 /
// p99 of TTFT, TPOT, ITL and E2E, throughput and goodput, and records every request in
// the run store.
#pragma once
#include <QStringList>

namespace ts {

int runBenchCommand(const QStringList& args);

}  // namespace ts
