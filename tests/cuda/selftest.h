// engine-selftest's shared pieces: the report (one line per check, then "N passed,
// N failed"), seeded non-zero random inputs, and the normalised error every comparison
// uses: ||got - want|| / ||want|| (NaN, e.g. a poisoned output left unwritten, fails).
#pragma once
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "inference/engine/backend/plugin_abi.h"
#include "inference/engine/model/model.h"

namespace ts::selftest {

class Report {
 public:
  // Passes when err < limit; prints the error and the limit.
  bool close(const std::string& name, double err, double limit) {
    char detail[96];
    std::snprintf(detail, sizeof detail, "error %.3g < %.3g", err, limit);
    return check(name, err < limit, detail);
  }
  bool check(const std::string& name, bool ok, const std::string& detail = "") {
    std::printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", name.c_str(), detail.empty() ? "" : ": ",
                detail.c_str());
    std::fflush(stdout);
    (ok ? passed_ : failed_)++;
    return ok;
  }
  void note(const std::string& line) {
    std::printf("NOTE %s\n", line.c_str());
    std::fflush(stdout);
  }
  int passed() const { return passed_; }
  int failed() const { return failed_; }

 private:
  int passed_ = 0, failed_ = 0;
};

inline double normalisedError(const float* got, const float* want, size_t n) {
  double diff = 0, norm = 0;
  for (size_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(got[i]) - want[i];
    diff += d * d;
    norm += static_cast<double>(want[i]) * want[i];
  }
  if (norm == 0) return std::isnan(diff) ? NAN : std::sqrt(diff);
  return std::sqrt(diff / norm);
}
inline double normalisedError(const std::vector<float>& got, const std::vector<float>& want) {
  return got.size() != want.size() ? INFINITY
                                   : normalisedError(got.data(), want.data(), want.size());
}

// Uniform in [-amplitude, amplitude], never all zero.
inline std::vector<float> randomVector(size_t n, uint64_t seed, float amplitude = 1.f) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-amplitude, amplitude);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  if (n) v[0] = amplitude * 0.5f;  // a zero vector would hide a kernel that writes zeros
  return v;
}

// The plugin when it loaded and a device is usable (else null, with the reason noted).
struct Device {
  const TsCudaApi* api = nullptr;
  std::string name;
};

// Small random-weight shapes of every architecture: RoPE (Baichuan-7B style), ALiBi
// (13B style, 5 heads: slopes of a non-power-of-two count), GQA (LLaMA, 8 heads over 2),
// NormHead (Baichuan2's 125,696-token vocabulary).
std::vector<std::pair<std::string, ts::engine::ModelConfig>> architectureConfigs();

void cpuChecks(Report& report, const std::string& models_dir);
// The plugin's entry points refuse bad arguments with a message before touching CUDA:
// runs wherever the plugin loads, device or not.
void abiChecks(Report& report, const TsCudaApi& api);
void opChecks(Report& report, const TsCudaApi& api);
void modelChecks(Report& report, const std::string& models_dir);

}  // namespace ts::selftest
