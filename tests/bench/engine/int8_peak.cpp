#include "tests/bench/engine/int8_peak.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "inference/engine/core/thread_pool.h"
#include "tests/bench/engine/bench_clock.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define TS_X86 1
#else
#define TS_X86 0
#endif

namespace ts::bench {
namespace {

constexpr long kIterations = 1 << 22;  // per thread and run: ~0.1 s at a few hundred Gops

// Each function runs kIterations rounds of 12 independent instructions (12 chains: more
// than latency x throughput of any of them) and returns the int8 operations done, with the
// accumulators folded into `sink` so that nothing is optimized away.
#if TS_X86
__attribute__((target("avx512f,avx512vnni"))) double runZmmVnni(const uint8_t* in, int32_t* sink) {
  const __m512i u = _mm512_loadu_si512(in), s = _mm512_loadu_si512(in + 64);
  __m512i a[12];
  for (auto& v : a) v = _mm512_setzero_si512();
  for (long i = 0; i < kIterations; ++i)
#pragma GCC unroll 12
    for (int j = 0; j < 12; ++j) a[j] = _mm512_dpbusd_epi32(a[j], u, s);
  for (int j = 1; j < 12; ++j) a[0] = _mm512_add_epi32(a[0], a[j]);
  int32_t lanes[16];
  _mm512_storeu_si512(lanes, a[0]);
  *sink += lanes[0] + lanes[15];
  return 12.0 * kIterations * 64 * 2;  // 64 byte pairs, multiply + add each
}

// The 12 accumulators into `sink`; the int8 operations of a 256-bit run.
__attribute__((target("avx2"))) inline double foldYmm(__m256i* a, int32_t* sink) {
  for (int j = 1; j < 12; ++j) a[0] = _mm256_add_epi32(a[0], a[j]);
  int32_t lanes[8];
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(lanes), a[0]);
  *sink += lanes[0] + lanes[7];
  return 12.0 * kIterations * 32 * 2;  // 32 byte pairs, multiply + add each
}

__attribute__((target("avx2,avxvnni"))) double runYmmVnni(const uint8_t* in, int32_t* sink) {
  const __m256i u = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in)),
                s = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + 32));
  __m256i a[12];
  for (auto& v : a) v = _mm256_setzero_si256();
  for (long i = 0; i < kIterations; ++i)
#pragma GCC unroll 12
    for (int j = 0; j < 12; ++j) a[j] = _mm256_dpbusd_avx_epi32(a[j], u, s);
  return foldYmm(a, sink);
}

// AVX2: maddubs (32 pairs into 16 int16) then madd with ones into int32 and an add: the
// instruction sequence the AVX2 kernels use per 32 byte pairs.
__attribute__((target("avx2"))) double runYmmMaddubs(const uint8_t* in, int32_t* sink) {
  const __m256i u = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in)),
                s = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + 32)),
                ones = _mm256_set1_epi16(1);
  __m256i a[12];
  for (auto& v : a) v = _mm256_setzero_si256();
  for (long i = 0; i < kIterations; ++i)
#pragma GCC unroll 12
    for (int j = 0; j < 12; ++j)
      a[j] = _mm256_add_epi32(a[j], _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), ones));
  return foldYmm(a, sink);
}
#endif

double runPortable(const uint8_t* in, int32_t* sink) {
  constexpr long kRounds = kIterations / 16;  // plain C++ is far slower: keep the run short
  int32_t a[16] = {};
  for (long i = 0; i < kRounds; ++i)
    for (int j = 0; j < 16; ++j) a[j] += in[j] * static_cast<int8_t>(in[64 + j]);
  for (int j = 0; j < 16; ++j) *sink += a[j];
  return 16.0 * kRounds * 2;
}

}  // namespace

Int8Peak measureInt8Peak(int threads, const char* kernels) {
  using Run = double (*)(const uint8_t*, int32_t*);
  Run run = runPortable;
  Int8Peak peak{0, "scalar C++"};
#if TS_X86
  const std::string name = kernels;
  if (name == "avx512-vnni") run = runZmmVnni, peak.instruction = "vpdpbusd zmm";
  if (name == "avx-vnni") run = runYmmVnni, peak.instruction = "vpdpbusd ymm";
  if (name == "avx2") run = runYmmMaddubs, peak.instruction = "vpmaddubsw + vpmaddwd ymm";
#else
  (void)kernels;
#endif
  std::vector<uint8_t> in(128);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint8_t>(i * 37 + 11);
  engine::ThreadPool pool(threads);
  std::vector<double> rates;
  for (int r = 0; r < 3; ++r) {
    std::vector<double> ops(threads, 0);
    std::vector<int32_t> sinks(threads * 16, 0);  // a cache line apart
    const double t0 = now();
    pool.parallelFor(threads, [&](int b, int e) {
      for (int t = b; t < e; ++t) ops[t] = run(in.data(), &sinks[t * 16]);
    });
    const double dt = now() - t0;
    double total = 0;
    for (double o : ops) total += o;
    rates.push_back(total / dt / 1e9);
    if (sinks[0] == 0x7fffffff) std::printf("impossible\n");  // keeps the sums alive
  }
  peak.gops = median(rates);
  return peak;
}

}  // namespace ts::bench
