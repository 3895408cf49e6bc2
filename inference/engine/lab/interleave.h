// The lab's run order: every arm (baseline "A", variants "B", "C", ...) once per round, in
// the same order each round, so that a machine that slows down halfway (another process,
// thermal limits, the page cache) slows every arm alike instead of the arm that ran last.
// Warm-up rounds come first and are discarded.
//
//   arms 2, warm-up 1, repeat 3:  [A B] A B A B A B     (bracketed: discarded)
#pragma once
#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "inference/engine/core/result.h"

namespace ts::engine::lab {

// One measured run: metric name -> value ("ttft_ms": 41.2, ...).
using Sample = std::map<std::string, double>;

// "A", "B", ... "Z", then "A27", ...: the name of arm i in reports.
std::string armName(int arm);

struct InterleavedRuns {
  std::vector<std::string> order;         // arm names of the measured runs, in run order
  std::vector<std::vector<Sample>> arms;  // per arm, its measured samples in run order
  // Values of `metric` over arm's samples that have it.
  std::vector<double> values(int arm, const std::string& metric) const;
};

// Calls measure(arm, round) for rounds 0 .. warmup + repeat - 1 (rounds below `warmup`
// are warm-ups: run, then dropped), each round arms 0 .. arms - 1. progress(done, total)
// after each run. Stops with an error when a run fails (its message, naming the arm) or
// with "cancelled" when *cancel is set between runs.
Result<InterleavedRuns> runInterleaved(
    int arms, int repeat, int warmup,
    const std::function<Result<Sample>(int arm, int round)>& measure,
    const std::function<void(int done, int total)>& progress = {},
    const std::atomic<bool>* cancel = nullptr);

}  // namespace ts::engine::lab
