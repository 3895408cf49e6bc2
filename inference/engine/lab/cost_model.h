// The lab's prediction of what a lever should do, from this machine's measured rates
// (machine_probe.h) and the model's bytes and multiply-adds (from the loaded file), never
// from spec sheets:
//   decode step   = sum over weight types t of bytes_t / decode rate_t
//                   + KV bytes read at the context / read bandwidth, where decode rate_t is
//                   t's kernels streaming weights from memory, as a share of the bandwidth
//   prefill       = sum over t of multiply-adds_t x positions / prefill rate_t(positions)
//                   + bytes_t / read bandwidth (a pass reads every weight once, and on
//                   this CPU that read does not hide behind the multiply-adds)
//                   (+ the classifier once, for the last position)
//   speculative   = E[tokens per step] / (verify cost + K x draft cost), both in decode
//                   steps, E from the measured per-position acceptance
//   tensor parallel (estimateTensorParallel): 1/N of the weights per device at its
//                   bandwidth, plus 2 all-reduces of hidden x 2 bytes per layer
// Pure functions: tests feed them known rates.
#pragma once
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "inference/engine/model/kv_cache.h"
#include "inference/engine/model/model.h"

namespace ts::engine::lab {

// One runtime type's share of a model: the layer matrices (and the classifier separately:
// a prefill runs it for the last position only).
struct TypeCost {
  double bytes = 0;           // read once per decode step
  double macs_per_token = 0;  // multiply-adds per position
};

struct ModelCost {
  std::map<std::string, TypeCost> layers;  // by runtime type name ("Q4_0", "q8_0", "f16" ...)
  std::string classifier_type;
  TypeCost classifier;
  double kv_bytes_per_position = 0;  // K and V rows of every layer, in the KV format
  int n_layers = 0, dim = 0;
  double weightBytes() const;
};

// Rates are keyed by QuantMatrix::formatName(): the stored type's name ("Q4_K") for stored
// matrices, the runtime format's ("q8_0", "int4") otherwise.
ModelCost modelCost(const Model& model, KvFormat kv);

// This machine's rates for one runtime type, at one thread count.
struct TypeRates {
  double decode_gb_s = 0;  // one position's products, weights streamed from memory
  // decode_gb_s over the read bandwidth measured alongside it (0: not measured). The
  // memory's bandwidth drifts by a third within minutes on a shared host; a share taken at
  // one moment stays true, so types measured at different times compare fairly.
  double decode_share = 0;
  double prefill_gmacs = 0;  // batched multiply-adds per second (64 positions at once, cached)
  // The same at other pass sizes (positions -> G multiply-adds / s): wider passes reuse each
  // weight for more positions. Empty: prefill_gmacs for every size.
  std::map<int, double> prefill_gmacs_at;
  // Decode's rate with the memory reading at read_gb_s: the share of it, or the streamed
  // rate capped by it where no share was measured.
  double decodeGbS(double read_gb_s) const;
  // Prefill's rate for a pass of `positions`: interpolated on log(positions) between the
  // sizes measured, the nearest one's outside them.
  double prefillGmacs(int positions) const;
};

struct MachineRates {
  double read_gb_s = 0;  // memory read bandwidth
  std::map<std::string, TypeRates> types;
  int threads = 0;
  std::string kernels;  // the instruction set the kernels run with
  // Rates for type; nullopt when it was never measured.
  std::optional<TypeRates> rates(const std::string& type) const;
};

// Seconds of one decode step at `context` positions of KV; nullopt when a type the model
// uses has no measured rate.
std::optional<double> decodeStepSeconds(const ModelCost& cost, const MachineRates& rates,
                                        int context);
// Seconds of a prefill of `tokens` positions (one pass); nullopt as above.
std::optional<double> prefillSeconds(const ModelCost& cost, const MachineRates& rates, int tokens);

// Expected tokens one speculative step yields: 1 + a1 + a1 a2 + ... + a1 ... aK, where
// acceptance[i] is the probability that draft position i + 1 is accepted given the ones
// before were (the bonus or resampled token is the 1).
double expectedTokensPerStep(std::span<const double> acceptance);
// Speed-up over plain decoding: expected tokens per step / the step's cost in plain decode
// steps (verifying K + 1 positions, plus K draft tokens).
double speculativeSpeedup(std::span<const double> acceptance, double verify_over_step,
                          double draft_token_over_step);

// A change predicted as percent: for rates (tok/s) new/old - 1, for times (ms) the same
// with times; both x 100.
inline double changePct(double baseline, double variant) {
  return (variant / baseline - 1) * 100;
}
// The lab's prediction error (issue interface): measured on the ratio,
// (1 + predicted/100) / (1 + measured/100) - 1, in percent.
inline double predictionErrorPct(double predicted_pct, double measured_pct) {
  return ((1 + predicted_pct / 100) / (1 + measured_pct / 100) - 1) * 100;
}

// An interconnect's small-message all-reduce latency, as published NCCL measurements
// report it (README, "Tensor parallelism estimate").
struct Interconnect {
  std::string name;              // "nvlink" | "pcie"
  double allreduce_us_low = 0;   // per all-reduce of a few KiB, best published case
  double allreduce_us_high = 0;  // worst typical case
  double bus_gb_s = 0;           // bandwidth a larger message moves at
};
// "nvlink" or "pcie"; nullopt for another name.
std::optional<Interconnect> interconnectNamed(const std::string& name);

struct TensorParallelEstimate {
  int devices = 0;
  double tok_s_low = 0, tok_s_high = 0;  // single-stream decode
  double allreduce_us_per_token = 0;     // at the middle of the latency range
  std::string assumptions;
};
// Decode over `devices` devices: each reads 1/N of the weights and KV at
// device_gb_s x [efficiency_low, efficiency_high], and every layer all-reduces twice a
// vector of dim x 2 bytes (f16) over `link`. The low end takes the low bandwidth and the
// high latency, the high end the reverse.
TensorParallelEstimate estimateTensorParallel(const ModelCost& cost, int devices,
                                              const Interconnect& link, double device_gb_s,
                                              int context, double efficiency_low = 0.55,
                                              double efficiency_high = 0.85);

}  // namespace ts::engine::lab
