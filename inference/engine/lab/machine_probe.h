// This machine's rates for the cost model (cost_model.h), measured with the engine's own
// kernels (the probes engine-bench reports): the memory's read bandwidth, and per runtime
// weight type the rate its matrix kernels consume weights streamed from memory (decode's,
// also as a share of the bandwidth measured beside it) and its multiply-adds per second
// over 16, 64 and 256 positions (prefill's).
// Measured once per machine, thread count and kernel set, and kept in
// $XDG_CACHE_HOME/tokenscope/machine-rates.json; `remeasure` measures again.
#pragma once
#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "inference/engine/core/result.h"
#include "inference/engine/lab/cost_model.h"
#include "inference/engine/model/model.h"

namespace ts::engine::lab {

// GB/s of summing a buffer of `bytes` with `threads` threads (the kernels' vector sum, so
// the figure is the memory's limit, not the adder's); median of 3 passes per measure().
// Allocated as the weights are (huge pages where granted), kept for measuring again:
// engine-bench measures right after each decode run, as the bandwidth drifts.
class ReadBandwidthProbe {
 public:
  ReadBandwidthProbe(int threads, size_t bytes);
  ~ReadBandwidthProbe();
  double measure();

 private:
  struct State;
  std::unique_ptr<State> state_;
};
// One 512 MiB probe's measure().
double measureReadBandwidth(int threads);
// Rates of matrix m's kernels on `threads` threads: decode streaming copies of m from
// memory, each pass after one of `bandwidth` (the share: median of 21 pairs' ratios), and
// prefill over m's own rows at 16, 64 and 256 positions (median of 3 passes each).
TypeRates measureTypeRates(const QuantMatrix& m, int threads, ReadBandwidthProbe& bandwidth);

// The rates for every runtime type `model` uses, at `threads`: read from the cache file
// (cache_path; "" for the default), the missing ones measured (a few seconds each) and
// written back. remeasure: measure all of them again. progress(text) says what is being
// measured. The cache failing to write is not an error (the rates are still returned).
Result<MachineRates> machineRatesFor(const Model& model, int threads, bool remeasure = false,
                                     const std::function<void(const std::string&)>& progress = {},
                                     std::string cache_path = "");
// Where the rates are kept: $XDG_CACHE_HOME/tokenscope/machine-rates.json ("" without a
// cache directory).
std::string machineRatesPath();

}  // namespace ts::engine::lab
