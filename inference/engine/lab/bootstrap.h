// Whether a measured difference is real: the change of the median from a baseline's
// samples to a variant's, in percent, with a 95 % percentile-bootstrap confidence
// interval. The lab runs the two arms interleaved (interleave.h), so sample i of each arm
// ran at nearly the same moment; with equal counts the resampling keeps those pairs
// together (a paired bootstrap), so machine drift that hit both arms cancels in the
// interval as it does in the medians. An interval that contains 0 means "no measurable
// difference".
#pragma once
#include <cstdint>
#include <span>

namespace ts::engine::lab {

struct ChangeInterval {
  double baseline_median = 0, variant_median = 0;
  double change_pct = 0;  // (variant_median / baseline_median - 1) x 100
  double ci95_low_pct = 0, ci95_high_pct = 0;
  bool valid = false;  // both arms have samples and the baseline's median is not 0
  // The interval excludes 0: the variant really differs.
  bool measurable() const { return valid && (ci95_low_pct > 0 || ci95_high_pct < 0); }
};

// The median (mean of the middle two for an even count); 0 for no samples.
double medianOf(std::span<const double> samples);
// The nearest-rank percentile p (0..100) of the samples, as serving-bench reports them; 0
// for none.
double percentileOf(std::span<const double> samples, double p);

// `resamples` draws with replacement from a generator seeded with `seed` (same inputs and
// seed, same interval). Equal counts: pairs (baseline[i], variant[i]) are drawn together;
// otherwise each arm is drawn on its own.
ChangeInterval bootstrapChange(std::span<const double> baseline, std::span<const double> variant,
                               uint64_t seed = 1, int resamples = 4000);

}  // namespace ts::engine::lab
