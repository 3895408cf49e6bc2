// What separate prefill's two sessions cost each other on this machine, measured rather
// than assumed from thread counts: a prefill worker (a session spawned beside the steps'
// one, with its own threads) computes prompt chunks while the steps' session decodes, and
// both are timed against themselves alone. Two threads each on a 2-core machine do not
// simply halve: the worker's pass and the steps compete for cores and for memory, unevenly.
//
//   steps' session   step step step step step step ...  (timed alone, then beside)
//   worker session        [ chunk of C positions ][ chunk ]  (timed beside the steps)
#pragma once
#include <optional>

#include "inference/engine/backend/decode_session.h"

namespace ts::engine::lab {

struct Crowding {
  double step_alone_s = 0;    // a decode step with the worker idle
  double step_beside_s = 0;   // a decode step while the worker computes
  double worker_token_s = 0;  // the worker's seconds per prompt token beside the steps
  double stepSlowdown() const { return step_alone_s > 0 ? step_beside_s / step_alone_s : 1; }
};

// Measures on `steps` (its KV cache is cleared after) and a session it spawns with
// `worker_threads` threads, the worker computing `chunks` chunks of `chunk` positions.
// nullopt where the backend cannot spawn one (separate prefill does not apply there).
std::optional<Crowding> measureCrowding(DecodeSession& steps, int worker_threads, int chunk,
                                        int chunks = 2);

}  // namespace ts::engine::lab
