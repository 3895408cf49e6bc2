#include "inference/engine/lab/interleave.h"

namespace ts::engine::lab {

std::string armName(int arm) {
  if (arm < 26) return std::string(1, static_cast<char>('A' + arm));
  return "A" + std::to_string(arm + 1);
}

std::vector<double> InterleavedRuns::values(int arm, const std::string& metric) const {
  std::vector<double> out;
  for (const Sample& s : arms.at(arm)) {
    const auto it = s.find(metric);
    if (it != s.end()) out.push_back(it->second);
  }
  return out;
}

Result<InterleavedRuns> runInterleaved(
    int arms, int repeat, int warmup,
    const std::function<Result<Sample>(int arm, int round)>& measure,
    const std::function<void(int done, int total)>& progress, const std::atomic<bool>* cancel) {
  InterleavedRuns out;
  out.arms.resize(arms);
  const int total = arms * (warmup + repeat);
  int done = 0;
  for (int round = 0; round < warmup + repeat; ++round)
    for (int arm = 0; arm < arms; ++arm) {
      if (cancel && cancel->load()) return fail("cancelled");
      Result<Sample> sample = measure(arm, round);
      if (!sample)
        return fail("run " + std::to_string(done + 1) + " (arm " + armName(arm) +
                    "): " + sample.error());
      if (round >= warmup) {
        out.order.push_back(armName(arm));
        out.arms[arm].push_back(std::move(sample.value()));
      }
      ++done;
      if (progress) progress(done, total);
    }
  return out;
}

}  // namespace ts::engine::lab
