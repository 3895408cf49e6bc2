// Metrics as pure functions of a recorded run, exactly as DESIGN.md defines them.
// All times are nanoseconds; only ui/ formats them.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "inference/stream/run_recorder.h"

namespace ts {

// Where `output_tokens` came from, in order of preference.
enum class TokenCountSource : uint8_t { Usage, Tokenizer, Chunks };
const char* tokenCountSourceName(TokenCountSource source);  // "usage" | "tokenizer" | "chunks"

struct RunMetrics {
  // TTFT: first TokenChunk with non-empty text − request start.
  std::optional<int64_t> ttft_ns;
  // E2E: last non-empty TokenChunk − request start (a trailing usage event does not count).
  std::optional<int64_t> e2e_ns;
  // usage.completion_tokens, else the tokenizer's count, else the number of content chunks.
  int64_t output_tokens = 0;
  TokenCountSource output_tokens_source = TokenCountSource::Chunks;
  int64_t content_chunks = 0;            // TokenChunks with non-empty text
  std::optional<int64_t> prompt_tokens;  // usage.prompt_tokens when sent
  std::optional<int64_t> prefill_ns;     // the local engine's prompt pass (part of TTFT)
  std::optional<int64_t> cached_tokens;  // usage.prompt_tokens_details.cached_tokens when sent
  // Speculative local runs: accepted / drafted tokens, and steps by accepted drafts.
  std::optional<double> acceptance_rate;
  int64_t drafted_tokens = 0, accepted_tokens = 0;
  std::vector<int32_t> accepted_histogram;
  // TPOT = (E2E − TTFT) / (output_tokens − 1), only for output_tokens > 1 (vLLM's).
  std::optional<double> tpot_ns;
  // ITL: gap before every content chunk after the first, one per chunk (vLLM's).
  std::vector<int64_t> itl_ns;
  // ITL per token: gap / k for a chunk of k tokens (GenAI-Perf's); only chunks whose k is
  // known (the engine reports it, or every chunk is one token because output == chunks).
  std::vector<double> itl_per_token_ns;
  // Decode rate = (output_tokens − 1) / (E2E − TTFT) = 1 / TPOT, tokens per second.
  std::optional<double> decode_tok_s;
  // Overall rate = output_tokens / E2E, tokens per second.
  std::optional<double> overall_tok_s;
};

// tokenizer_count: the local tokenizer's count of the output text, when one is available.
RunMetrics computeMetrics(const RecordedRun& run,
                          std::optional<int64_t> tokenizer_count = std::nullopt);

// Distribution summary over many values (runs, or the ITLs of one run).
struct Summary {
  size_t count = 0;
  double mean = 0, p50 = 0, p90 = 0, p99 = 0, min = 0, max = 0;
};
// Percentiles interpolate linearly between closest ranks (numpy's default, as vLLM uses).
Summary summarize(std::vector<double> values);
double percentile(const std::vector<double>& sorted, double p);  // p in [0, 100]

}  // namespace ts
