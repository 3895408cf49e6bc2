// A finished run as JSON: the CLI's output object and the run log's line share it.
#pragma once
#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>
#include <optional>

#include "inference/stream/generation_request.h"
#include "inference/stream/metrics.h"

namespace ts {

// The fields `tokenscope-cli chat --json` promises: ttft_ms, e2e_ms, tpot_ms,
// output_tokens, output_tokens_source, itl_ms, text, finish_reason, error; plus
// decode_tok_s, overall_tok_s, itl_per_token_ms, content_chunks, prompt_tokens.
QJsonObject runResultJson(const RecordedRun& run, const RunMetrics& metrics);

// Every event with its time relative to the request start (ns), so a run can be
// rebuilt from a log line.
QJsonArray eventsJson(const RecordedRun& run);
QJsonObject eventJson(const StreamEvent& event, int64_t start_ns);  // one element of it

QJsonObject requestJson(const GenerationRequest& request);

// The inverses, for the run store and for importing run logs: an event of eventsJson()
// (t_ns relative to `start_ns`), nullopt for an unknown kind or a missing time; a request
// of requestJson() (missing fields keep their defaults).
std::optional<StreamEvent> eventFromJson(const QJsonObject& event, int64_t start_ns);
GenerationRequest requestFromJson(const QJsonObject& request);

}  // namespace ts
