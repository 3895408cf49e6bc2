#include "app/cli/scheduler_options.h"

#include "inference/engine/model/kv_cache.h"
#include "inference/engine/serving/serving_limits.h"

namespace ts {

void addSchedulerOptions(QCommandLineParser& p) {
  const engine::SchedulerOptions d;
  p.addOptions({
      {"parallel",
       QString("Requests running at once: each step is one pass over all of them "
               "(default %1); more wait.")
           .arg(d.max_running),
       "N", QString::number(d.max_running)},
      {"batch-tokens",
       QString("Tokens per step at most: the running requests' next tokens first, "
               "then prompt chunks (default %1).")
           .arg(d.batch_tokens),
       "N", QString::number(d.batch_tokens)},
      {"prefill-chunk",
       QString("Prompt tokens computed per step, the oldest prompt's first (default "
               "%1; 0: whole prompts in one step, which stalls the others' tokens "
               "meanwhile).")
           .arg(d.prefill_chunk),
       "N", QString::number(d.prefill_chunk)},
      {"tpot-target",
       QString("Milliseconds per output token to keep the decoding requests near "
               "while prompts are computed: prompt chunks then wait between steps, "
               "trading the prompts' time to first token for the others' pace "
               "(default 0: a chunk in every step)."),
       "MS", "0"},
      {"separate-prefill",
       QString("Prompts with more than this many tokens to compute (after the prefix "
               "cache) are computed by a prefill worker of their own thread and CPU "
               "threads while the others decode, then join them (default 0: every prompt "
               "in chunks of the steps). CPU only."),
       "TOKENS", "0"},
      {"separate-prefill-threads",
       QString("CPU threads of the --separate-prefill worker, beside --threads' (default "
               "0: half the machine's, at least 1)."),
       "N", "0"},
      {"kv-positions",
       QString("KV cache positions all requests share, in blocks of %1 (default: two "
               "contexts, or --parallel x 1,024 if more); full blocks of prompts stay "
               "cached for the next request that starts the same way.")
           .arg(engine::kKvBlock),
       "N"},
      {"kv-memory-mb",
       QString("KV cache memory all requests share, in MiB (default: what "
               "--kv-positions' default takes, at most half of the memory available "
               "now); refused at the start when more than is available. Not with "
               "--kv-positions."),
       "MIB"},
  });
}

std::optional<engine::SchedulerOptions> schedulerOptions(const QCommandLineParser& p,
                                                         OptionError& error) {
  engine::SchedulerOptions o;
  const auto bounded = [&](const char* name, const engine::Bound& b) {
    return parseIntOption(name, p.value(name), static_cast<int>(b.lo), static_cast<int>(b.hi),
                          error);
  };
  const auto parallel = bounded("parallel", engine::kRunningBound);
  const auto tokens = bounded("batch-tokens", engine::kBatchTokensBound);
  const auto chunk = bounded("prefill-chunk", engine::kPrefillChunkBound);
  const auto positions = p.isSet("kv-positions")
                             ? bounded("kv-positions", engine::kKvPositionsBound)
                             : std::optional<int>(0);
  const auto memory = p.isSet("kv-memory-mb") ? bounded("kv-memory-mb", engine::kKvMemoryMbBound)
                                              : std::optional<int>(0);
  const auto tpot = bounded("tpot-target", engine::kTpotTargetBound);
  const auto separate = bounded("separate-prefill", engine::kSeparatePrefillBound);
  const auto separate_threads = bounded("separate-prefill-threads", engine::kSeparateThreadsBound);
  if (!parallel || !tokens || !chunk || !positions || !memory || !tpot || !separate ||
      !separate_threads)
    return std::nullopt;
  if (p.isSet("kv-positions") && p.isSet("kv-memory-mb")) {
    error.message = "--kv-positions and --kv-memory-mb both size the KV pool: give one of them";
    return std::nullopt;
  }
  o.kv_memory_mb = *memory;
  o.tpot_target_ms = *tpot;
  o.max_running = *parallel;
  o.batch_tokens = *tokens;
  o.prefill_chunk = *chunk;
  o.separate_prefill_tokens = *separate;
  o.separate_prefill_threads = *separate_threads;
  o.kv_blocks = (*positions + engine::kKvBlock - 1) / engine::kKvBlock;
  return o;
}

}  // namespace ts
