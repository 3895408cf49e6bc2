#include "inference/engine/lab/cost_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>

namespace ts::engine::lab {

double ModelCost::weightBytes() const {
  double total = classifier.bytes;
  for (const auto& [type, c] : layers) total += c.bytes;
  return total;
}

ModelCost modelCost(const Model& model, KvFormat kv) {
  ModelCost out;
  const ModelConfig& c = model.config;
  out.n_layers = c.n_layers;
  out.dim = c.dim;
  for (const LayerWeights& l : model.layers)
    for (const QuantMatrix* w : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down}) {
      TypeCost& t = out.layers[w->formatName()];
      t.bytes += static_cast<double>(w->bytes());
      t.macs_per_token += static_cast<double>(w->rows()) * w->cols();
    }
  out.classifier_type = model.classifier.formatName();
  out.classifier = {static_cast<double>(model.classifier.bytes()),
                    static_cast<double>(model.classifier.rows()) * model.classifier.cols()};
  // A pool block's bytes cover kKvBlock positions of every layer's K and V (int8's scales
  // included).
  out.kv_bytes_per_position =
      static_cast<double>(kvBlockBytes(kv, c.n_layers, c.n_kv_heads, c.head_dim)) / kKvBlock;
  return out;
}

std::optional<TypeRates> MachineRates::rates(const std::string& type) const {
  const auto it = types.find(type);
  if (it == types.end() || it->second.decode_gb_s <= 0 || it->second.prefill_gmacs <= 0)
    return std::nullopt;
  return it->second;
}

double TypeRates::decodeGbS(double read_gb_s) const {
  return decode_share > 0 ? decode_share * read_gb_s : std::min(read_gb_s, decode_gb_s);
}

double TypeRates::prefillGmacs(int positions) const {
  if (prefill_gmacs_at.empty()) return prefill_gmacs;
  const auto above = prefill_gmacs_at.lower_bound(positions);
  if (above == prefill_gmacs_at.end()) return std::prev(above)->second;
  if (above->first == positions || above == prefill_gmacs_at.begin()) return above->second;
  const auto below = std::prev(above);
  const double f =
      std::log(double(positions) / below->first) / std::log(double(above->first) / below->first);
  return below->second + f * (above->second - below->second);
}

std::optional<double> decodeStepSeconds(const ModelCost& cost, const MachineRates& rates,
                                        int context) {
  if (rates.read_gb_s <= 0) return std::nullopt;
  double seconds = cost.kv_bytes_per_position * context / (rates.read_gb_s * 1e9);
  auto add = [&](const std::string& type, const TypeCost& c) {
    const auto r = rates.rates(type);
    if (!r) return false;
    seconds += c.bytes / (r->decodeGbS(rates.read_gb_s) * 1e9);
    return true;
  };
  for (const auto& [type, c] : cost.layers)
    if (!add(type, c)) return std::nullopt;
  if (!add(cost.classifier_type, cost.classifier)) return std::nullopt;
  return seconds;
}

std::optional<double> prefillSeconds(const ModelCost& cost, const MachineRates& rates, int tokens) {
  if (rates.read_gb_s <= 0) return std::nullopt;
  const double read_s = 1 / (rates.read_gb_s * 1e9);  // seconds per byte
  double seconds = 0;
  for (const auto& [type, c] : cost.layers) {
    const auto r = rates.rates(type);
    if (!r) return std::nullopt;
    seconds += c.macs_per_token * tokens / (r->prefillGmacs(tokens) * 1e9) + c.bytes * read_s;
  }
  const auto r = rates.rates(cost.classifier_type);
  if (!r) return std::nullopt;
  // the classifier runs for the last position alone
  return seconds + cost.classifier.macs_per_token / (r->prefillGmacs(1) * 1e9) +
         cost.classifier.bytes * read_s;
}

double expectedTokensPerStep(std::span<const double> acceptance) {
  double expected = 1, run = 1;
  for (double a : acceptance) {
    run *= std::clamp(a, 0.0, 1.0);
    expected += run;
  }
  return expected;
}

double speculativeSpeedup(std::span<const double> acceptance, double verify_over_step,
                          double draft_token_over_step) {
  const double cost = verify_over_step + acceptance.size() * draft_token_over_step;
  return cost > 0 ? expectedTokensPerStep(acceptance) / cost : 0;
}

std::optional<Interconnect> interconnectNamed(const std::string& name) {
  // Small-message (8 B - 64 KiB) all-reduce latencies published with nccl-tests; sources in
  // the README. NVLink: about 6 us on 2 H100s with NVLink SHARP and CUDA graphs
  // (NVIDIA/nccl#1259) up to about 25 us for a few KiB on 8 H100s as NCCL's own tuner
  // models it (NVIDIA/nccl#1453). PCIe: about 15 us between 2 GPUs up to 54 us on 8 GPUs
  // without NVLink (NVIDIA/nccl#1439).
  if (name == "nvlink") return Interconnect{"nvlink", 6, 25, 150};
  if (name == "pcie") return Interconnect{"pcie", 15, 55, 20};
  return std::nullopt;
}

TensorParallelEstimate estimateTensorParallel(const ModelCost& cost, int devices,
                                              const Interconnect& link, double device_gb_s,
                                              int context, double efficiency_low,
                                              double efficiency_high) {
  TensorParallelEstimate out;
  out.devices = devices;
  const double bytes = (cost.weightBytes() + cost.kv_bytes_per_position * context) / devices;
  const int allreduces = devices > 1 ? 2 * cost.n_layers : 0;
  const double message_s = cost.dim * 2.0 / (link.bus_gb_s * 1e9);  // f16 hidden state
  const double slow_s = bytes / (device_gb_s * efficiency_low * 1e9) +
                        allreduces * (link.allreduce_us_high * 1e-6 + message_s);
  const double fast_s = bytes / (device_gb_s * efficiency_high * 1e9) +
                        allreduces * (link.allreduce_us_low * 1e-6 + message_s);
  out.tok_s_low = 1 / slow_s;
  out.tok_s_high = 1 / fast_s;
  out.allreduce_us_per_token =
      allreduces * ((link.allreduce_us_low + link.allreduce_us_high) / 2 + message_s * 1e6);
  char text[400];
  std::snprintf(text, sizeof text,
                "estimate - no measurement possible on this machine: %d device(s) each reading "
                "1/%d of %.0f MB of weights and KV at %.0f-%.0f%% of %.0f GB/s; %d all-reduces "
                "of %d bytes per token over %s at %.0f-%.0f us each (published NCCL "
                "measurements)",
                devices, devices, (cost.weightBytes() + cost.kv_bytes_per_position * context) / 1e6,
                efficiency_low * 100, efficiency_high * 100, device_gb_s, allreduces, cost.dim * 2,
                link.name.c_str(), link.allreduce_us_low, link.allreduce_us_high);
  out.assumptions = text;
  return out;
}

}  // namespace ts::engine::lab
