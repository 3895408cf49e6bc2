#include "inference/stream/stream_event.h"

#include <chrono>

namespace ts {

const char* failureKindName(FailureKind kind) {
  switch (kind) {
    case FailureKind::None:
      return "none";
    case FailureKind::Auth:
      return "auth";
    case FailureKind::NotFound:
      return "not_found";
    case FailureKind::ModelNotFound:
      return "model_not_found";
    case FailureKind::RateLimited:
      return "rate_limited";
    case FailureKind::BadRequest:
      return "bad_request";
    case FailureKind::Server:
      return "server_error";
    case FailureKind::Connection:
      return "connection";
    case FailureKind::Reset:
      return "connection_reset";
    case FailureKind::Timeout:
      return "timeout";
    case FailureKind::Stall:
      return "stall";
    case FailureKind::Protocol:
      return "protocol";
    case FailureKind::Device:
      return "device";
  }
  return "unknown";
}

StreamEvent StreamEvent::started(int64_t t_ns) {
  StreamEvent e;
  e.kind = EventKind::Started;
  e.t_ns = t_ns;
  return e;
}

StreamEvent StreamEvent::chunk(int64_t t_ns, std::string text, int32_t n_tokens) {
  StreamEvent e;
  e.kind = EventKind::TokenChunk;
  e.t_ns = t_ns;
  e.text = std::move(text);
  e.n_tokens = n_tokens;
  return e;
}

StreamEvent StreamEvent::usage(int64_t t_ns, int64_t prompt_tokens, int64_t completion_tokens) {
  StreamEvent e;
  e.kind = EventKind::Usage;
  e.t_ns = t_ns;
  e.prompt_tokens = prompt_tokens;
  e.completion_tokens = completion_tokens;
  return e;
}

StreamEvent StreamEvent::finished(int64_t t_ns, std::string reason) {
  StreamEvent e;
  e.kind = EventKind::Finished;
  e.t_ns = t_ns;
  e.text = std::move(reason);
  return e;
}

StreamEvent StreamEvent::failed(int64_t t_ns, FailureKind kind, int http_status,
                                std::string message, std::string partial_text) {
  StreamEvent e;
  e.kind = EventKind::Failed;
  e.t_ns = t_ns;
  e.failure = kind;
  e.http_status = http_status;
  e.text = std::move(message);
  e.partial_text = std::move(partial_text);
  return e;
}

int64_t monotonicNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace ts
