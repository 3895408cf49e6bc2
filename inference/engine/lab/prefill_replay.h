// The prefill lever's prediction: the mixed load (mixed_load.h) replayed through a model of
// the scheduler's step sequence with this machine's step costs, once per policy, so that
// a policy's predicted change is replay(variant) against replay(baseline).
//
// Each step runs every decoding sequence's next token and up to a chunk of prompt tokens
// (oldest prompt first, within batch_tokens), and costs
//   decode_step + (sequences - 1) x per_sequence + prompt tokens x per_prompt_token,
// times the step slowdown while the prefill worker computes too (measured, or else
// (step threads + worker threads) / cores: the cores are shared). tpot:MS is replayed as
// the chunk that keeps a step within MS. separate:T sends prompts longer than T to the
// worker (one at a time; the others wait for it, out of the steps), which computes a token
// in the measured worker_token_s (or else
// per_prompt_token x that slowdown x step threads / worker threads), and hands the
// sequence back with its last token to compute in the next step.
#pragma once
#include <vector>

#include "inference/engine/lab/interleave.h"
#include "inference/engine/lab/mixed_load.h"
#include "inference/engine/serving/scheduler.h"

namespace ts::engine::lab {

struct StepCosts {
  double decode_step_s = 0;       // one sequence's decoding pass
  double per_sequence_s = 0;      // each further decoding sequence in the pass
  double per_prompt_token_s = 0;  // each prompt token in a pass
  int cores = 1;                  // the machine's
  int step_threads = 1;           // the steps' session's
  int worker_threads = 1;         // the prefill worker's (separate:T)
  // Measured beside each other (crowding_probe.h); 0: assumed from the threads, as below.
  double step_slowdown = 0;   // a step's time while the worker computes / alone
  double worker_token_s = 0;  // the worker's seconds per prompt token beside the steps
};

// The replay's figures, named as runMixedEpisode's samples (ttft_p50_long_ms,
// ttft_p99_long_ms, tpot_p50_ms, tpot_p99_ms, itl_p99_ms, decode_tok_s).
Sample replayMixedLoad(const MixedLoad& load, const SchedulerOptions& options,
                       const StepCosts& costs);

}  // namespace ts::engine::lab
