// A scriptable OpenAI-compatible server on 127.0.0.1 (cpp-httplib), used by the tests,
// the benchmarks and the screenshot script. It records the monotonic time at which it
// handed each chunk to the socket, so clients' measurements can be compared with truth.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ts::server {
class HttpServer;
}

namespace ts::testing {

struct ServerScript {
  int ttft_ms = 20;   // request received -> first content chunk
  double gap_ms = 2;  // between content chunks
  int chunks = 8;     // content chunks (fewer when max_tokens cuts the answer)
  int tokens_per_chunk = 1;
  bool usage = true;                   // usage chunk when the request asks with stream_options
  bool reject_stream_options = false;  // 400 when the body has stream_options
  int status = 200;                    // e.g. 401/404/429/500 for the first `fail_first_n` requests
  int fail_first_n = 1 << 30;          // with status != 200: how many requests fail (then 200s)
  int retry_after_s = -1;              // Retry-After on 429 (>= 0 to send)
  int stall_after_chunks = -1;         // go silent after this many chunks ...
  int stall_ms = 0;                    // ... for this long
  int reset_after_chunks = -1;         // drop the connection after this many chunks
  int malformed_after_chunks = -1;     // send `data: {not json` after this many chunks
  bool send_done = true;               // `data: [DONE]`
  bool keepalive_comment = true;       // `: keep-alive` before the first chunk
  std::string required_key;            // non-empty: 401 unless `Authorization: Bearer <key>`
  std::vector<std::string> models = {"test-model"};  // other ids get 404 model_not_found
  // The answer's tokens, repeated as needed; empty: "Hello, world! 你好 The quick brown…".
  std::vector<std::string> pieces;
};

struct SentChunk {
  int64_t t_ns = 0;  // steady_clock, just before the chunk was written to the socket
  int n_tokens = 0;
  std::string text;
};

struct ServedRequest {
  int64_t received_ns = 0;
  std::string path;
  std::string body;
  bool had_authorization = false;
  int status = 0;
  std::vector<SentChunk> chunks;  // content chunks only
};

class OpenAiTestServer {
 public:
  // threads: requests served at once (each streaming request holds one).
  explicit OpenAiTestServer(int threads = 64);
  ~OpenAiTestServer();
  int start(int port = 0);  // 0: any free port; returns the port, -1 on failure
  void stop();
  std::string baseUrl() const;  // "http://127.0.0.1:PORT"

  void setScript(const ServerScript& script);
  std::vector<ServedRequest> requests() const;
  void clearRequests();

  // The text a script produces for a request with this max_tokens.
  static std::string expectedText(const ServerScript& script, int max_tokens = 1 << 30);
  static std::string tokenText(const ServerScript& script, int index);
  // `text` cut into tokens: each a word with the whitespace before it (the pieces of an
  // answer whose text is known, e.g. Markdown with a code block).
  static std::vector<std::string> piecesOf(const std::string& text);

 private:
  size_t beginRequest(ServedRequest request);
  void recordChunk(size_t index, SentChunk chunk);
  void setStatus(size_t index, int status);
  bool sleepUntil(int64_t deadline_ns) const;  // false when the server is stopping

  std::unique_ptr<server::HttpServer> server_;
  int port_ = -1;
  std::atomic<bool> stopping_{false};
  mutable std::mutex mutex_;
  ServerScript script_;
  std::vector<ServedRequest> requests_;
};

}  // namespace ts::testing
