// libFuzzer target: the SSE parser must never crash, and must give the same events
// however the bytes are split (the first input byte chooses the split points).
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "inference/remote/sse_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t seed = data[0];
  const std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);

  ts::SseParser whole;
  std::vector<ts::SseEvent> expected;
  whole.feed(input, expected);
  whole.finish(expected);

  ts::SseParser pieces;
  std::vector<ts::SseEvent> got;
  size_t pos = 0, step = 1 + seed % 7;
  while (pos < input.size()) {
    const size_t n = std::min(step, input.size() - pos);
    pieces.feed(input.substr(pos, n), got);
    pos += n;
    step = 1 + (step * 5 + seed) % 13;
  }
  pieces.finish(got);
  if (got != expected) std::abort();  // a split changed the result
  return 0;
}
