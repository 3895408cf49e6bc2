#include "inference/engine/lab/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace ts::engine::lab {

double medianOf(std::span<const double> samples) {
  if (samples.empty()) return 0;
  std::vector<double> v(samples.begin(), samples.end());
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  if (v.size() % 2) return v[mid];
  const double upper = v[mid];
  return (*std::max_element(v.begin(), v.begin() + mid) + upper) / 2;
}

double percentileOf(std::span<const double> samples, double p) {
  if (samples.empty()) return 0;
  std::vector<double> v(samples.begin(), samples.end());
  std::sort(v.begin(), v.end());
  const size_t rank = static_cast<size_t>(std::ceil(p / 100 * v.size()));
  return v[std::clamp<size_t>(rank, 1, v.size()) - 1];
}

namespace {

// The value at quantile q (0..1) of sorted values, interpolated between neighbours.
double quantile(const std::vector<double>& sorted, double q) {
  const double at = q * (sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(at));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (at - lo) * (sorted[hi] - sorted[lo]);
}

}  // namespace

ChangeInterval bootstrapChange(std::span<const double> baseline, std::span<const double> variant,
                               uint64_t seed, int resamples) {
  ChangeInterval out;
  out.baseline_median = medianOf(baseline);
  out.variant_median = medianOf(variant);
  if (baseline.empty() || variant.empty() || out.baseline_median == 0) return out;
  out.valid = true;
  out.change_pct = (out.variant_median / out.baseline_median - 1) * 100;
  const bool paired = baseline.size() == variant.size();
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> pick_a(0, baseline.size() - 1),
      pick_b(0, variant.size() - 1);
  std::vector<double> a(baseline.size()), b(variant.size()), changes;
  changes.reserve(resamples);
  for (int r = 0; r < resamples; ++r) {
    for (size_t i = 0; i < a.size(); ++i) {
      const size_t k = pick_a(rng);
      a[i] = baseline[k];
      if (paired) b[i] = variant[k];
    }
    if (!paired)
      for (double& x : b) x = variant[pick_b(rng)];
    const double ma = medianOf(a);
    if (ma != 0) changes.push_back((medianOf(b) / ma - 1) * 100);
  }
  if (changes.empty()) return out;
  std::sort(changes.begin(), changes.end());
  out.ci95_low_pct = quantile(changes, 0.025);
  out.ci95_high_pct = quantile(changes, 0.975);
  return out;
}

}  // namespace ts::engine::lab
