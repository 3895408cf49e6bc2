// LargeBuffer (core/large_buffer.h), what a session's activations, KV cache and the weights
// live in: its values behave as a std::vector's, a large block starts on a 2 MiB boundary
// and holds no memory past its last 4 KiB page, and writing 64 MiB of it takes a few dozen
// page faults instead of one per 4 KiB page (the faults a new session's first prompt paid:
// about 10 us each on this project's VMs).
#include <sys/resource.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "inference/engine/core/large_buffer.h"
#include "tests/inference/engine/check.h"

using ts::testing::check;
using namespace ts::engine;

namespace {

long minorFaults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// The end of the mapping in /proc/self/maps that holds address p; 0 if none does.
uintptr_t mappingEnd(const void* p) {
  const auto at = reinterpret_cast<uintptr_t>(p);
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream in(line);
    in >> std::hex >> begin >> dash >> end;
    if (begin <= at && at < end) return end;
  }
  return 0;
}

std::string hugePageMode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string all;
  std::getline(in, all);
  const size_t open = all.find('['), close = all.find(']');
  return open == std::string::npos || close == std::string::npos
             ? std::string("unknown")
             : all.substr(open + 1, close - open - 1);
}

}  // namespace

int main() {
  // Values: zeros when made, kept when the buffer grows, small buffers as well as large.
  for (const size_t n : {size_t{100}, size_t{3} << 20}) {
    LargeBuffer<float> v(n);
    bool zeros = true;
    for (float x : v) zeros = zeros && x == 0.f;
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % 1000);
    v.resize(n * 2 + 12345);
    bool kept = true, grown_zeros = true;
    for (size_t i = 0; i < n; ++i) kept = kept && v[i] == static_cast<float>(i % 1000);
    for (size_t i = n; i < v.size(); ++i) grown_zeros = grown_zeros && v[i] == 0.f;
    const std::string what = std::to_string(n) + " floats: ";
    check(zeros, what + "zeros when made");
    check(kept && grown_zeros, what + "values kept and the new ones zero after growing");
  }

  // A large block: 2 MiB-aligned, the mapping ends at its last 4 KiB page.
  const size_t bytes = (size_t{5} << 20) + 100;
  LargeBuffer<uint8_t> block(bytes);
  const auto at = reinterpret_cast<uintptr_t>(block.data());
  check(at % (size_t{2} << 20) == 0, "a 5 MiB block starts on a 2 MiB boundary");
  const uintptr_t end = mappingEnd(block.data()), want = at + (bytes + 4095) / 4096 * 4096;
  std::printf("mapping ends %zu bytes past the block's start, its last page at %zu\n",
              static_cast<size_t>(end - at), static_cast<size_t>(want - at));
  check(end == want, "the block's mapping ends at its last 4 KiB page (no memory held past it)");

  // Writing 64 MiB: a few dozen faults with 2 MiB pages, not 16,384.
  const std::string mode = hugePageMode();
  if (mode == "never") {
    std::printf("SKIP page-fault count: transparent huge pages are off on this machine (%s)\n",
                mode.c_str());
  } else {
    const long before = minorFaults();
    LargeBuffer<float> big(size_t{16} << 20);
    for (size_t i = 0; i < big.size(); i += 1024) big[i] = 1.f;
    const long faults = minorFaults() - before;
    std::printf("64 MiB written with %ld page faults (4 KiB pages: 16384; huge pages: %s)\n",
                faults, mode.c_str());
    check(faults < 1024, "64 MiB written with fewer than 1,024 page faults");
  }
  return ts::testing::finish();
}
