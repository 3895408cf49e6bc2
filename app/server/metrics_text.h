// The scheduler's metrics in the Prometheus text exposition format (version 0.0.4), for
// GET /metrics. Names follow vLLM's (the most scraped LLM server) under our own prefix:
// tokenscope:num_requests_running, ..._waiting, kv_cache_usage_perc, prefix_cache_hits /
// _queries (tokens), prompt_tokens_total, generation_tokens_total, num_preemptions_total,
// iteration_tokens_total (tokens per step, a histogram); plus the KV blocks used / total,
// step duration and sequences per step. Every sample carries model_name.
#pragma once
#include <string>

#include "inference/engine/serving/scheduler.h"

namespace ts::server {

std::string prometheusText(const engine::SchedulerMetrics& m, const std::string& model_name);

}  // namespace ts::server
