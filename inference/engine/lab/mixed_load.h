// The prefill lever's load, as `serving-bench --mixed` makes it: `streams` requests decoding
// back to back while a long prompt arrives every `every_s` seconds, `arrivals` times, all
// through one scheduler (continuous batching) with the arm's policy. What a prefill policy
// trades shows there: the long prompts' TTFT against the decoders' TPOT.
//
//   stream 1: [16 ▸ 32 tokens][16 ▸ 32 tokens][...          until the last arrival ends
//   stream 2: [16 ▸ 32 tokens][...
//   arrivals:        ▲ 512-token prompt    ▲ every 2 s           ▲
#pragma once
#include <atomic>
#include <memory>

#include "inference/engine/core/result.h"
#include "inference/engine/lab/interleave.h"
#include "inference/engine/model/model.h"
#include "inference/engine/serving/scheduler.h"

namespace ts::engine::lab {

struct MixedLoad {
  int streams = 2;         // decoding requests in flight
  int stream_prompt = 16;  // their prompts' tokens
  int stream_tokens = 32;  // tokens each stream request generates
  int long_tokens = 512;   // each arriving long prompt's tokens
  int long_gen = 4;        // tokens a long prompt generates
  double every_s = 2.0;    // seconds between arrivals
  int arrivals = 3;
};

// Parses "chunk:N" (prefill_chunk N, 0: whole prompts), "tpot:MS" (tpot_target_ms) or
// "separate:TOKENS" (separate_prefill_tokens) into `options`; an error naming the forms.
Result<bool> applyPrefillPolicy(const std::string& value, SchedulerOptions& options);

// One episode on a scheduler of its own (a CPU session with `threads` threads and `kv`):
// ttft_p50_long_ms / ttft_p99_long_ms (the long prompts), tpot_p50_ms / tpot_p99_ms and
// itl_p99_ms (the streams), decode_tok_s (the streams' tokens over the episode's span),
// prefill_tok_s (long prompt tokens / their median TTFT), peak_rss_mb = resident_mb.
// `episode` varies the prompts so that no episode hits another's prefix cache.
Result<Sample> runMixedEpisode(const std::shared_ptr<const Model>& model, KvFormat kv, int threads,
                               const SchedulerOptions& options, const MixedLoad& load, int episode,
                               double resident_mb);

}  // namespace ts::engine::lab
