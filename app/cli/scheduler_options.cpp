#include "app/cli/scheduler_options.h"

#include "inference/engine/model/kv_cache.h"

namespace ts {

void addSchedulerOptions(QCommandLineParser& p, const QString& prefix) {
  const engine::SchedulerOptions d;
  p.addOptions({
      {"parallel",
       prefix + QString("Requests running at once: each step is one pass over all of them "
                        "(default %1); more wait.")
                    .arg(d.max_running),
       "N", QString::number(d.max_running)},
      {"batch-tokens",
       prefix + QString("Tokens per step at most: the running requests' next tokens first, "
                        "then prompt chunks (default %1).")
                    .arg(d.batch_tokens),
       "N", QString::number(d.batch_tokens)},
      {"prefill-chunk",
       prefix + QString("Prompt tokens computed per step, the oldest prompt's first (default "
                        "%1; 0: whole prompts in one step, which stalls the others' tokens "
                        "meanwhile).")
                    .arg(d.prefill_chunk),
       "N", QString::number(d.prefill_chunk)},
      {"tpot-target",
       prefix + QString("Milliseconds per output token to keep the decoding requests near "
                        "while prompts are computed: prompt chunks then wait between steps, "
                        "trading the prompts' time to first token for the others' pace "
                        "(default 0: a chunk in every step)."),
       "MS", "0"},
      {"kv-positions",
       prefix + QString("KV cache positions all requests share, in blocks of %1 (default: two "
                        "contexts, or --parallel x 1,024 if more); full blocks of prompts stay "
                        "cached for the next request that starts the same way.")
                    .arg(engine::kKvBlock),
       "N"},
  });
}

std::optional<engine::SchedulerOptions> schedulerOptions(const QCommandLineParser& p,
                                                         OptionError& error) {
  engine::SchedulerOptions o;
  const auto parallel = parseIntOption("parallel", p.value("parallel"), 1, 256, error);
  const auto tokens = parseIntOption("batch-tokens", p.value("batch-tokens"), 1, 1 << 20, error);
  const auto chunk = parseIntOption("prefill-chunk", p.value("prefill-chunk"), 0, 1 << 20, error);
  const auto positions = p.isSet("kv-positions")
                             ? parseIntOption("kv-positions", p.value("kv-positions"),
                                              engine::kKvBlock, 1 << 26, error)
                             : std::optional<int>(0);
  const auto tpot = parseIntOption("tpot-target", p.value("tpot-target"), 0, 60000, error);
  if (!parallel || !tokens || !chunk || !positions || !tpot) return std::nullopt;
  o.tpot_target_ms = *tpot;
  o.max_running = *parallel;
  o.batch_tokens = *tokens;
  o.prefill_chunk = *chunk;
  o.kv_blocks = (*positions + engine::kKvBlock - 1) / engine::kKvBlock;
  return o;
}

}  // namespace ts
