// The one event vocabulary both token sources (remote client, local engine) emit.
// Plain values (no Qt) so they cross threads as signal arguments and feed pure metrics.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ts {

enum class EventKind : uint8_t { Started, TokenChunk, Usage, Finished, Failed };

// Why a run failed; each maps to one actionable message in the client.
enum class FailureKind : uint8_t {
  None,
  Auth,           // 401 / 403
  NotFound,       // 404 on the endpoint URL
  ModelNotFound,  // the endpoint does not serve the requested model
  RateLimited,    // 429
  BadRequest,     // other 4xx
  Server,         // 5xx
  Connection,     // refused, DNS, TLS
  Reset,          // connection dropped mid-stream
  Timeout,        // connect / first byte / total limit
  Stall,          // no bytes for the idle limit while streaming
  Protocol,       // the body is not an OpenAI-compatible response
  Device,         // the local engine's device failed mid-run (a CUDA fault): the CPU can run it
};

const char* failureKindName(FailureKind kind);  // "auth", "not_found", ...

struct StreamEvent {
  EventKind kind = EventKind::Started;
  int64_t t_ns = 0;  // monotonic (steady_clock) ns, taken where the bytes were parsed

  std::string text;      // TokenChunk: content delta; Finished: finish reason;
                         // Failed: the user-facing message
  int32_t n_tokens = 0;  // TokenChunk: tokens in this chunk, 0 = unknown (remote)
  bool drafted = false;  // TokenChunk from the local engine: an accepted speculative draft
  int32_t batch = 0;     // TokenChunk from the local engine's scheduler: requests in the step
                         // that produced it; 0 = unknown

  int64_t prompt_tokens = -1;      // Usage: -1 = not sent
  int64_t completion_tokens = -1;  // Usage: -1 = not sent
  int64_t prefill_ns = -1;         // Usage from the local engine: the prompt pass; -1 = unknown
  // Usage: prompt tokens served from a cache (usage.prompt_tokens_details.cached_tokens;
  // the local engine: KV rows kept from the conversation's previous turn); -1 = not sent.
  int64_t cached_tokens = -1;
  // Usage of a speculative local run: drafted and accepted tokens, and steps by number of
  // accepted drafts ([n] = steps that accepted n). -1 / empty otherwise.
  int64_t drafted_tokens = -1, accepted_tokens = -1;
  std::vector<int32_t> accepted_histogram;

  FailureKind failure = FailureKind::None;  // Failed
  int http_status = 0;                      // Failed: 0 when no HTTP status arrived
  std::string partial_text;                 // Failed: every content byte received so far

  static StreamEvent started(int64_t t_ns);
  static StreamEvent chunk(int64_t t_ns, std::string text, int32_t n_tokens = 0);
  static StreamEvent usage(int64_t t_ns, int64_t prompt_tokens, int64_t completion_tokens);
  static StreamEvent finished(int64_t t_ns, std::string reason);
  static StreamEvent failed(int64_t t_ns, FailureKind kind, int http_status, std::string message,
                            std::string partial_text);
};

// steady_clock now, in ns: the clock every timestamp in a run uses.
int64_t monotonicNowNs();

}  // namespace ts
