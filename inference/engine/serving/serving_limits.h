// The bounds of every serving setting, in one place: tokenscope-cli's options (`serve`,
// `bench --model-path`), the app's benchmark sweeps and Serve, and the server's own
// thread pool check values against these and refuse others with one message shape
// (outOfBounds). Why bounds at all: each running sequence costs a thread of the HTTP
// server and its KV blocks, and products such as max_running x context must stay in int.
#pragma once
#include <cstdint>
#include <string>

namespace ts::engine {

struct Bound {
  long long lo, hi;
  bool contains(double v) const {
    return v >= static_cast<double>(lo) && v <= static_cast<double>(hi);
  }
};

inline constexpr Bound kRunningBound{1, 256};              // sequences in one step (--parallel)
inline constexpr Bound kBatchTokensBound{1, 65536};        // tokens per step
inline constexpr Bound kPrefillChunkBound{0, 65536};       // prompt tokens per step; 0: whole
inline constexpr Bound kTpotTargetBound{0, 60000};         // ms per output token; 0: unpaced
inline constexpr Bound kSeparatePrefillBound{0, 1 << 20};  // prompt tokens; 0: no worker
inline constexpr Bound kSeparateThreadsBound{0, 1024};     // the worker's; 0: half the CPUs
inline constexpr Bound kQueueBound{0, 4096};               // requests waiting beyond the running
inline constexpr Bound kKvPositionsBound{32, 1 << 24};     // KV pool positions (--kv-positions)
inline constexpr Bound kKvMemoryMbBound{1, 1 << 22};       // KV pool MiB (--kv-memory-mb)
inline constexpr Bound kContextBound{2, 1 << 20};          // positions per sequence
inline constexpr Bound kMaxBodyMbBound{1, 1024};           // request body MiB (--max-body-mb)
inline constexpr Bound kConcurrencyBound{1, 4096};         // benchmark clients at once
inline constexpr Bound kPromptWordsBound{1, 100000};       // a prompt-length sweep's words

// Threads the HTTP server keeps for requests, whatever the running and queued counts ask
// (each admitted request holds one while it waits for its tokens): connections beyond it
// wait for a thread in the accept queue. Plus a few for /health and /metrics.
inline constexpr int kServerRequestThreads = 320;
inline constexpr int kServerSpareThreads = 8;

// "<what>: expected a whole number from <lo> to <hi>, found <found>" (the CLI's options
// and the app's fields say it alike).
inline std::string outOfBounds(const std::string& what, const Bound& b, const std::string& found) {
  return what + ": expected a whole number from " + std::to_string(b.lo) + " to " +
         std::to_string(b.hi) + ", found " + found;
}

}  // namespace ts::engine
