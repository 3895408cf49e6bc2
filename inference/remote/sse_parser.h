// Server-sent events: a pure bytes -> events parser (WHATWG HTML, "event stream
// interpretation"). No I/O and no Qt, so it is unit-tested without sockets and fuzzed.
//
// Handles input split at any byte, LF / CRLF / CR line ends, multi-line `data:`,
// comments (`: keep-alive`), `event:` / `id:` / `retry:`, and a leading UTF-8 BOM.
// Knows nothing about OpenAI: `data: [DONE]` is an ordinary event here.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ts {

struct SseEvent {
  std::string type;                 // `event:` field, "message" when absent
  std::string data;                 // `data:` lines joined with '\n'
  std::string id;                   // last event id in effect when this event was dispatched
  std::optional<int64_t> retry_ms;  // `retry:` seen since the previous event

  bool operator==(const SseEvent&) const = default;
};

class SseParser {
 public:
  // Parses `bytes` (any split of the stream) and appends every completed event to `out`.
  void feed(std::string_view bytes, std::vector<SseEvent>& out);
  // End of stream. Unlike the browser algorithm, an event whose `data:` lines all ended
  // with a line break but that lacks the final blank line is still delivered: servers
  // that close right after their last line lose nothing. An unterminated line is dropped.
  void finish(std::vector<SseEvent>& out);

  size_t commentCount() const { return comments_; }  // `:` lines seen (keep-alives)
  size_t bytesFed() const { return bytes_fed_; }

 private:
  void consume(std::string_view bytes, std::vector<SseEvent>& out);
  void processLine(std::string_view line, std::vector<SseEvent>& out);
  void dispatch(std::vector<SseEvent>& out);

  std::string bom_probe_;  // up to 3 leading bytes while checking for a BOM
  bool bom_checked_ = false;
  bool last_was_cr_ = false;  // a CR ended the previous feed: skip a following LF
  std::string line_;          // the current, unterminated line

  std::string data_;  // data buffer, each line followed by '\n'
  bool has_data_ = false;
  std::string type_;
  std::string last_id_;
  std::optional<int64_t> retry_;
  size_t comments_ = 0;
  size_t bytes_fed_ = 0;
};

}  // namespace ts
