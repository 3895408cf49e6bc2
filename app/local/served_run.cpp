#include "app/local/served_run.h"

#include "app/server/served_request.h"

namespace ts {
namespace {

// The client's decimal value back from the engine's float (0.3f → 0.3, not 0.30000001).
double decimal(float x) {
  return QString::number(x, 'g', 7).toDouble();
}

}  // namespace

ServedRun servedRun(const server::ServedRequest& r, const QString& served_model) {
  ServedRun out;
  for (const auto& m : r.messages) out.request.messages.push_back({m.role, m.content});
  SamplingParams& p = out.request.params;
  p.temperature = decimal(r.sampling.temperature);
  p.top_p = decimal(r.sampling.top_p);
  p.top_k = r.sampling.top_k;
  p.repetition_penalty = decimal(r.sampling.repetition_penalty);
  if (r.seed_given) p.seed = static_cast<int64_t>(r.sampling.seed);
  p.max_tokens = r.max_tokens.value_or(r.max_tokens_used);
  p.stream = r.stream;
  out.request.model = served_model.toStdString();
  out.max_tokens_given = r.max_tokens.has_value();
  out.model_asked = QString::fromStdString(r.model);
  out.finish = QString::fromStdString(r.finish);
  out.error = QString::fromStdString(r.error);
  out.status = r.status;
  out.prompt_tokens = r.prompt_tokens;
  out.completion_tokens = r.completion_tokens;
  out.cached_tokens = r.cached_tokens;
  out.ttft_ms = r.ttftMs();
  out.tpot_ms = r.tpotMs();

  // Both clocks are steady_clock ns (monotonicNowNs), so the times carry over as they are.
  RecordedRun& run = out.run;
  run.start_ns = r.start_ns;
  run.events.push_back(StreamEvent::started(r.start_ns));
  int held = 0;  // tokens that released no text yet (mid-character): counted with the next
  for (const server::ServedToken& t : r.tokens) {
    ++held;
    if (t.text.empty()) continue;
    StreamEvent chunk = StreamEvent::chunk(t.t_ns, t.text, held);
    chunk.batch = t.batch;
    run.events.push_back(std::move(chunk));
    held = 0;
  }
  StreamEvent usage = StreamEvent::usage(r.end_ns, r.prompt_tokens, r.completion_tokens);
  usage.cached_tokens = r.cached_tokens;
  run.events.push_back(std::move(usage));
  if (r.finish == "error")
    run.events.push_back(
        StreamEvent::failed(r.end_ns, FailureKind::Server, r.status, r.error, r.text));
  else
    run.events.push_back(StreamEvent::finished(r.end_ns, r.finish));
  return out;
}

}  // namespace ts
