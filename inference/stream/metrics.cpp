#include "inference/stream/metrics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ts {

const char* tokenCountSourceName(TokenCountSource source) {
  switch (source) {
    case TokenCountSource::Usage:
      return "usage";
    case TokenCountSource::Tokenizer:
      return "tokenizer";
    case TokenCountSource::Chunks:
      return "chunks";
  }
  return "chunks";
}

RunMetrics computeMetrics(const RecordedRun& run, std::optional<int64_t> tokenizer_count) {
  RunMetrics m;
  std::optional<int64_t> usage_completion;
  const StreamEvent* prev = nullptr;
  std::vector<const StreamEvent*> content;
  for (const auto& e : run.events) {
    if (e.kind == EventKind::Usage) {
      if (e.completion_tokens >= 0) usage_completion = e.completion_tokens;
      if (e.prompt_tokens >= 0) m.prompt_tokens = e.prompt_tokens;
      if (e.prefill_ns >= 0) m.prefill_ns = e.prefill_ns;
      if (e.cached_tokens >= 0) m.cached_tokens = e.cached_tokens;
      if (e.drafted_tokens > 0) {
        m.drafted_tokens = e.drafted_tokens;
        m.accepted_tokens = e.accepted_tokens;
        m.acceptance_rate = static_cast<double>(e.accepted_tokens) / e.drafted_tokens;
        m.accepted_histogram = e.accepted_histogram;
      }
    }
    if (e.kind != EventKind::TokenChunk || e.text.empty()) continue;
    content.push_back(&e);
    if (prev) m.itl_ns.push_back(e.t_ns - prev->t_ns);
    prev = &e;
  }
  m.content_chunks = static_cast<int64_t>(content.size());
  if (!content.empty()) {
    m.ttft_ns = content.front()->t_ns - run.start_ns;
    m.e2e_ns = content.back()->t_ns - run.start_ns;
  }

  if (usage_completion) {
    m.output_tokens = *usage_completion;
    m.output_tokens_source = TokenCountSource::Usage;
  } else if (tokenizer_count) {
    m.output_tokens = *tokenizer_count;
    m.output_tokens_source = TokenCountSource::Tokenizer;
  } else {
    m.output_tokens = m.content_chunks;
    m.output_tokens_source = TokenCountSource::Chunks;
  }

  const bool one_token_per_chunk = m.output_tokens == m.content_chunks;
  for (size_t i = 1; i < content.size(); ++i) {
    int32_t k = content[i]->n_tokens;
    if (k <= 0 && one_token_per_chunk) k = 1;
    if (k > 0) m.itl_per_token_ns.push_back(static_cast<double>(m.itl_ns[i - 1]) / k);
  }

  if (m.ttft_ns && m.output_tokens > 1) {
    const double decode_ns = static_cast<double>(*m.e2e_ns - *m.ttft_ns);
    m.tpot_ns = decode_ns / static_cast<double>(m.output_tokens - 1);
    if (decode_ns > 0) m.decode_tok_s = (m.output_tokens - 1) / (decode_ns * 1e-9);
  }
  if (m.e2e_ns && *m.e2e_ns > 0 && m.output_tokens > 0)
    m.overall_tok_s = m.output_tokens / (*m.e2e_ns * 1e-9);
  return m;
}

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(rank));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - static_cast<double>(lo));
}

Summary summarize(std::vector<double> values) {
  Summary s;
  s.count = values.size();
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  s.p50 = percentile(values, 50);
  s.p90 = percentile(values, 90);
  s.p99 = percentile(values, 99);
  s.min = values.front();
  s.max = values.back();
  return s;
}

}  // namespace ts
