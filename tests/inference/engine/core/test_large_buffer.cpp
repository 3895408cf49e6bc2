// LargeBuffer (core/large_buffer.h), what a session's activations, KV cache and the weights
// live in: its values behave as a std::vector's, a large block starts on a 2 MiB boundary
// and holds no memory past its last 4 KiB page, and writing 64 MiB of it takes a few dozen
// page faults instead of one per 4 KiB page (the faults a new session's first prompt paid:
// about 10 us each on this project's VMs).
#include <sys/resource.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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

// A "Name:   value kB" line of /proc/self/status, in KiB.
double statusKiB(const std::string& name) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(name, 0) == 0) return std::stod(line.substr(name.size()));
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
  // ScratchBuffer: a freed large block is kept and handed to the next buffer of its size
  // (a new session's first prompt maps and zeroes nothing again), at most kScratchKeep
  // bytes in all, and releaseScratch gives the kept memory back to the system.
  {
    releaseScratch();
    const size_t floats = size_t{3} << 20;  // 12 MiB
    const void* first = nullptr;
    {
      ScratchBuffer<float> a(floats);
      a[floats - 1] = 2.f;
      first = a.data();
    }
    const size_t kept = keptScratchBytes();
    ScratchBuffer<float> b(floats);
    check(kept >= floats * sizeof(float) && b.data() == first && keptScratchBytes() == 0,
          "a freed 12 MiB scratch block is kept and handed to the next 12 MiB buffer (kept " +
              std::to_string(kept) + " bytes)");
    b.resize(floats + 100);
    check(b[floats - 1] == 2.f, "its values stay when it grows");

    std::vector<ScratchBuffer<uint8_t>> many;
    for (int i = 0; i < 3; ++i) {  // written whole: resident whatever the kernel's advice
      ScratchBuffer<uint8_t>& block = many.emplace_back(size_t{100} << 20);
      std::fill(block.begin(), block.end(), uint8_t{1});
    }
    many.clear();
    check(keptScratchBytes() <= kScratchKeep && keptScratchBytes() >= (size_t{200} << 20),
          "three freed 100 MiB blocks: two kept, within kScratchKeep (" +
              std::to_string(keptScratchBytes() >> 20) + " MiB kept)");
    const double before = statusKiB("VmRSS:");
    const size_t released = releaseScratch();
    const double after = statusKiB("VmRSS:");
    std::printf("released %zu MiB: resident %.0f -> %.0f MiB\n", released >> 20, before / 1024,
                after / 1024);
    check(
        released >= (size_t{200} << 20) && keptScratchBytes() == 0 && before - after >= 150 * 1024,
        "releaseScratch unmaps the kept blocks: the resident set shrinks by their size");
  }
  return ts::testing::finish();
}
