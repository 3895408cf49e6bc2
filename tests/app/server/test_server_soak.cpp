// A local server you can leave running (issue 41): 16 clients send 300 requests to one
// in-process LocalServer on the ktiny Q4_0 model, mixing well-formed answers (whole and
// streamed) with every way a client goes wrong or goes away: disconnects at a random moment
// (raw sockets, streamed or not, closed or reset), streams cancelled after k chunks, bodies
// over max_body_mb (413), malformed JSON and fields (400), an unknown path (404), a wrong
// content type (415), a foreign Host (403) and prompts over the context (400
// context_length_exceeded). Afterwards the server must be as it was: /health ok, every
// well-formed request that was not abandoned answered exactly as a lone run on a fresh
// session (temperature 0: text, completion tokens, finish reason), every fault its status
// and an OpenAI-shaped error body, no request running or waiting and no KV block held
// (cached ones allowed), the process's thread count back to its idle value and its RSS
// within 32 MiB of where it was (on another model, the KV pool's first-use growth, which
// kv_cache_bytes reports, set apart).
//
// soakWithFaults runs that mix; soakWithoutFaults the same number of requests, well-formed
// only (whole and streamed), so that one run prints both throughputs side by side. Each
// prints one JSON summary line (requests answered, wall seconds, answered per second, TTFT
// p50 / p99 of the streamed answers, counts per kind). The same test is the issue's
// benchmark when the environment says so:
//   TOKENSCOPE_SOAK_MODEL=FILE.gguf   another model (default: ktiny-Q4_0 from the fixtures)
//   TOKENSCOPE_SOAK_VOCAB=FILE        its vocabulary (default: the file's own; for a file
//                                     without one, such as convert --random writes,
//                                     the fixtures' Baichuan vocabulary)
//   TOKENSCOPE_SOAK_SCALE=N           N x 300 requests (default 1)
//   TOKENSCOPE_SOAK_CLIENTS=N         clients at once (default 16)
//   TOKENSCOPE_SOAK_THREADS=N         CPU threads of the engine (default 2)
//   TOKENSCOPE_SOAK_CONTEXT=N         positions per sequence (default 512)
//   TOKENSCOPE_SOAK_MAX_TOKENS=N      caps every answer's max_tokens (default: 4 to 43)
//   TOKENSCOPE_SOAK_FAULTS=0|1        only the run without (0) or with (1) faults
//
// The server's queue (max_queue 64) is far beyond the 16 clients, so a 429 is a failure
// here: a client that went away must give its place back before its next request needs it.
#include <arpa/inet.h>
#include <dirent.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "app/server/chat_api.h"
#include "app/server/local_server.h"
#include "inference/engine/cpu/cpu_forward.h"
#include "inference/engine/decode/generator.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/tokenizer/chat_template.h"

using namespace ts;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kBaseRequests = 300;
constexpr int kMaxBodyMb = 8;        // ServerOptions' default
constexpr int kReadTimeoutS = 120;   // a request that hangs fails, long before ctest's 300 s
constexpr int kSettleMs = 30000;     // for the server to give everything back after the load
constexpr double kRssLimitMiB = 32;  // the bound
const char* const kModelName = "soak";

enum class Kind {
  Normal,       // whole answer
  Streamed,     // SSE with stream_options.include_usage
  Disconnect,   // raw socket: sent, then closed (or reset) after a random wait or some bytes
  Cancelled,    // streamed; the client stops reading after k chunks and closes
  Oversized,    // a body over max_body_mb: 413
  Malformed,    // invalid JSON or fields: 400 (and an unknown path: 404)
  WrongType,    // a JSON body sent as another content type: 415
  ForeignHost,  // Host: evil.example on a loopback server: 403
  OverContext,  // prompt + max_tokens over the context: 400 context_length_exceeded
  Count
};
constexpr int kKinds = static_cast<int>(Kind::Count);
const char* const kKindNames[kKinds] = {"normal",     "streamed",     "disconnect",
                                        "cancelled",  "oversized",    "malformed",
                                        "wrong_type", "foreign_host", "over_context"};
// Shares of the faulted mix, in percent (the order of Kind).
constexpr int kFaultMix[kKinds] = {22, 22, 14, 8, 5, 8, 6, 6, 9};

int envInt(const char* name, int fallback) {
  bool ok = false;
  const int v = qEnvironmentVariableIntValue(name, &ok);
  return ok ? v : fallback;
}

// A JSON string literal of plain text.
std::string quoted(const std::string& text) {
  return QJsonDocument(QJsonArray{QString::fromStdString(text)})
      .toJson(QJsonDocument::Compact)
      .mid(1)
      .chopped(1)
      .toStdString();
}

struct Prompt {
  std::string messages;  // the JSON array
  int max_tokens = 0;
  int prompt_tokens = 0;
  // The lone run's answer: a fresh session, engine::generate, temperature 0.
  QString text;
  int completion_tokens = 0;
  std::string finish;
};

std::string chatBody(const std::string& messages, int max_tokens, bool stream) {
  return "{\"model\":\"" + std::string(kModelName) + "\",\"messages\":" + messages +
         ",\"temperature\":0,\"max_tokens\":" + std::to_string(max_tokens) +
         ",\"stream\":" + (stream ? "true,\"stream_options\":{\"include_usage\":true}" : "false") +
         "}";
}

struct Spec {
  Kind kind = Kind::Normal;
  int prompt = 0;       // the well-formed prompt it asks (or asks over the context)
  bool stream = false;  // disconnect: a streamed request or not
  int variant = 0;      // malformed / wrong type / foreign host / over context: which shape
  // disconnect: read `bytes` bytes (read_bytes) or wait `wait` typical request times;
  // cancelled: stop after `bytes` content chunks
  bool read_bytes = false;
  int bytes = 0;
  double wait = 0;
  bool reset = false;  // disconnect: close with RST (SO_LINGER 0) instead of FIN
  int extra = 0;       // over context: tokens asked beyond the room
};

struct Outcome {
  int status = 0;  // 0: no HTTP response
  std::string content_type;
  std::string failure;  // a transport error or a malformed answer
  QString text;         // the answer's content (streamed: the deltas joined)
  int completion_tokens = -1, prompt_tokens = -1;
  std::string finish;
  bool complete = false;   // the whole answer: a completion body, or a stream to [DONE]
  bool abandoned = false;  // the client went away before the end
  int chunks = 0;          // streamed: content chunks
  double ttft_s = -1, e2e_s = -1;
  std::string body;  // error answers: the body
};

// --- The process as /proc sees it ----------------------------------------------------------

int threadCount() {
  int n = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (const dirent* e = readdir(d))
      if (e->d_name[0] != '.') ++n;
    closedir(d);
  }
  return n;
}

double rssMiB() {
  QFile f("/proc/self/status");
  if (!f.open(QIODevice::ReadOnly)) return -1;
  for (const QByteArray& line : f.readAll().split('\n'))
    if (line.startsWith("VmRSS:")) return line.mid(6).trimmed().split(' ')[0].toDouble() / 1024.0;
  return -1;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  const size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
  return v[std::clamp<size_t>(rank, 1, v.size()) - 1];
}

// --- Clients ----------------------------------------------------------------------------

std::unique_ptr<httplib::Client> client(int port) {
  auto c = std::make_unique<httplib::Client>("127.0.0.1", port);
  c->set_connection_timeout(10);
  c->set_read_timeout(kReadTimeoutS);
  c->set_write_timeout(30);
  return c;
}

// A whole answer: the completion body's content, usage and finish reason.
void readCompletion(const httplib::Result& res, Outcome& o) {
  if (!res) {
    o.failure = "no response: " + httplib::to_string(res.error());
    return;
  }
  o.status = res->status;
  o.content_type = res->get_header_value("Content-Type");
  if (o.status != 200) {
    o.body = res->body;
    return;
  }
  const QJsonObject r = QJsonDocument::fromJson(QByteArray::fromStdString(res->body)).object();
  const QJsonObject choice = r.value("choices").toArray().at(0).toObject();
  if (!choice.contains("message")) {
    o.failure = "not a completion: " + res->body.substr(0, 200);
    return;
  }
  o.text = choice.value("message").toObject().value("content").toString();
  o.finish = choice.value("finish_reason").toString().toStdString();
  o.completion_tokens = r.value("usage").toObject().value("completion_tokens").toInt(-1);
  o.prompt_tokens = r.value("usage").toObject().value("prompt_tokens").toInt(-1);
  o.complete = true;
}

// Server-sent events as they come: the deltas joined, the finish reason, usage, [DONE].
struct StreamReader {
  Outcome& o;
  Clock::time_point start;
  int stop_after = -1;  // content chunks after which the client goes away; -1: never
  std::string pending;

  bool feed(const char* data, size_t n) {
    pending.append(data, n);
    size_t end;
    while ((end = pending.find("\n\n")) != std::string::npos) {
      const std::string event = pending.substr(0, end);
      pending.erase(0, end + 2);
      if (event.rfind("data: ", 0) != 0) {
        o.failure = "not an SSE data event: " + event.substr(0, 120);
        continue;
      }
      const std::string payload = event.substr(6);
      if (payload == "[DONE]") {
        o.complete = !o.finish.empty() && o.completion_tokens >= 0;
        if (!o.complete) o.failure = "[DONE] before a finish reason and usage";
        continue;
      }
      const QJsonObject chunk =
          QJsonDocument::fromJson(QByteArray::fromStdString(payload)).object();
      if (chunk.isEmpty() || chunk.contains("error")) {
        o.failure = "an error or unreadable event: " + payload.substr(0, 200);
        continue;
      }
      const QJsonArray choices = chunk.value("choices").toArray();
      if (!choices.isEmpty()) {
        const QJsonObject choice = choices[0].toObject();
        const QString piece = choice.value("delta").toObject().value("content").toString();
        if (!piece.isEmpty()) {
          if (o.chunks++ == 0)
            o.ttft_s = std::chrono::duration<double>(Clock::now() - start).count();
          o.text += piece;
        }
        if (choice.value("finish_reason").isString())
          o.finish = choice.value("finish_reason").toString().toStdString();
      }
      if (chunk.value("usage").isObject()) {
        o.completion_tokens = chunk.value("usage").toObject().value("completion_tokens").toInt(-1);
        o.prompt_tokens = chunk.value("usage").toObject().value("prompt_tokens").toInt(-1);
      }
    }
    if (stop_after >= 0 && o.chunks >= stop_after && !o.complete) {
      o.abandoned = true;
      return false;  // httplib closes the connection
    }
    return true;
  }
};

void streamed(int port, const std::string& body, int stop_after, Outcome& o) {
  auto c = client(port);
  httplib::Request req;
  req.method = "POST";
  req.path = "/v1/chat/completions";
  req.set_header("Content-Type", "application/json");
  req.body = body;
  const Clock::time_point start = Clock::now();
  StreamReader reader{o, start, stop_after, {}};
  req.content_receiver = [&reader](const char* data, size_t n, uint64_t, uint64_t) {
    return reader.feed(data, n);
  };
  httplib::Response res;
  httplib::Error error = httplib::Error::Success;
  const bool ok = c->send(req, res, error);
  o.e2e_s = std::chrono::duration<double>(Clock::now() - start).count();
  o.status = res.status > 0 ? res.status : 0;
  o.content_type = res.get_header_value("Content-Type");
  if (o.abandoned) return;  // our own cancel: httplib says Canceled
  if (!ok) o.failure = "no complete response: " + httplib::to_string(error);
  if (o.status != 200) o.body = res.body;
}

// Sends `body` on a socket of its own, then goes away: after `bytes` bytes of the answer,
// or after `wait_us`, closing (FIN) or resetting (RST) the connection.
std::string goAway(int port, const std::string& body, const Spec& s, int64_t wait_us) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return "socket failed";
  timeval tv{30, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string failure;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    failure = "connect failed";
  } else {
    const std::string request =
        "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
        "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
        "\r\n\r\n" + body;
    size_t sent = 0;
    while (sent < request.size()) {
      const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<size_t>(n);
    }
    if (sent < request.size()) failure = "send failed";
    if (s.read_bytes) {
      char buf[1024];
      int got = 0;
      while (got < s.bytes) {
        const ssize_t n = ::recv(fd, buf, std::min<size_t>(sizeof buf, s.bytes - got), 0);
        if (n <= 0) break;
        got += static_cast<int>(n);
      }
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(wait_us));  // part of the load
    }
  }
  if (s.reset) {
    linger l{1, 0};
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
  }
  ::close(fd);
  return failure;
}

// --- Checks -----------------------------------------------------------------------------

// "" when `body` is an OpenAI error body {"error": {"message", "type", "param", "code"}}
// with the given code (and param, when not empty); else what is wrong.
std::string errorShape(const Outcome& o, const QString& code, const QString& param = {}) {
  if (o.content_type.rfind("application/json", 0) != 0)
    return "Content-Type '" + o.content_type + "'";
  const QJsonObject root = QJsonDocument::fromJson(QByteArray::fromStdString(o.body)).object();
  const QJsonObject e = root.value("error").toObject();
  if (root.size() != 1 || e.isEmpty()) return "not an error body: " + o.body.substr(0, 200);
  for (const char* key : {"message", "type", "param", "code"})
    if (!e.contains(key)) return std::string("no error.") + key + ": " + o.body.substr(0, 200);
  if (e.value("message").toString().isEmpty() || e.value("type").toString().isEmpty())
    return "empty message or type: " + o.body.substr(0, 200);
  for (const char* key : {"param", "code"})
    if (!e.value(key).isString() && !e.value(key).isNull())
      return std::string("error.") + key + " neither a string nor null";
  if (!code.isEmpty() && e.value("code").toString() != code)
    return "code " + e.value("code").toString().toStdString() + ", expected " + code.toStdString();
  if (!param.isEmpty() && e.value("param").toString() != param)
    return "param " + e.value("param").toString().toStdString() + ", expected " +
           param.toStdString();
  return {};
}

}  // namespace

class TestServerSoak : public QObject {
  Q_OBJECT
  QString models_ = qEnvironmentVariable("TOKENSCOPE_SHARED_DIR", "../shared") + "/models";
  QString model_path_;
  std::shared_ptr<engine::Model> model_;
  std::unique_ptr<engine::Tokenizer> tokenizer_;
  bool chat_ = false;
  int scale_ = 1, clients_ = 16, threads_ = 2, context_ = 512, max_tokens_cap_ = 0;
  int faults_ = -1;  // -1: both runs
  std::vector<Prompt> prompts_;
  std::string too_long_;  // messages whose prompt alone is over the context
  int too_long_tokens_ = 0;
  std::string oversized_;  // a body over max_body_mb, sent from here without copies
  std::vector<QJsonObject> summaries_;

  int promptTokens(const std::string& messages) const {
    auto parsed = server::parseChatCompletionRequest(chatBody(messages, 1, false),
                                                     server::requestDefaults(model_->generation));
    const auto& request = std::get<server::ChatCompletionRequest>(parsed);
    return static_cast<int>(engine::conversationPrompt(*tokenizer_, request.messages, chat_, 0,
                                                       model_->generation.roles())
                                .size());
  }

  // Messages of `system` (if any) and a user message that starts with `prefix` and goes on
  // with seeded words until the prompt has about `target` tokens (at most).
  std::string grow(const std::string& system, const std::string& prefix, int target,
                   unsigned seed) const {
    static const char* const words[] = {
        "river", "stone", "little", "dog",   "ran",    "over",  "the",     "green", "hill",
        "old",   "house", "by",     "light", "winter", "quiet", "bread",   "sang",  "under",
        "moon",  "and",   "then",   "a",     "slow",   "boat",  "carried", "seven", "maps"};
    std::mt19937 rng(seed);
    const auto messages = [&](const std::string& user) {
      std::string m = "[";
      if (!system.empty()) m += "{\"role\":\"system\",\"content\":" + quoted(system) + "},";
      return m + "{\"role\":\"user\",\"content\":" + quoted(user) + "}]";
    };
    std::string user = prefix;
    std::string last = messages(user.empty() ? "hi" : user);
    for (;;) {
      const std::string next = user + (user.empty() ? "" : " ") + words[rng() % std::size(words)];
      const std::string m = messages(next);
      if (promptTokens(m) > target) return last;
      user = next;
      last = m;
    }
  }

  // Twelve prompts of 6 to ~440 tokens: six share a system message, three a long user
  // prefix (the prefix cache at work), each with its own max_tokens; and one over the context.
  void buildPrompts() {
    const std::string system = grow("", "You are a careful narrator of small", 60, 7);
    const std::string system_text = QJsonDocument::fromJson(QByteArray::fromStdString(system))
                                        .array()[0]
                                        .toObject()["content"]
                                        .toString()
                                        .toStdString();
    const std::string shared_prefix =
        QJsonDocument::fromJson(QByteArray::fromStdString(grow("", "Once upon a time", 120, 9)))
            .array()[0]
            .toObject()["content"]
            .toString()
            .toStdString();
    struct Plan {
      bool system;
      bool prefix;
      int target;
    };
    const Plan plans[12] = {{true, false, 80},  {true, false, 110}, {true, false, 170},
                            {true, false, 95},  {false, true, 150}, {false, true, 230},
                            {false, true, 330}, {false, false, 6},  {false, false, 30},
                            {false, false, 64}, {true, true, 290},  {false, false, 440}};
    for (int i = 0; i < 12; ++i) {
      Prompt p;
      p.max_tokens = 4 + (i * 11) % 41;
      if (max_tokens_cap_ > 0) p.max_tokens = std::min(p.max_tokens, max_tokens_cap_);
      const int target = std::min(plans[i].target, context_ - p.max_tokens - 1);
      p.messages = grow(plans[i].system ? system_text : "", plans[i].prefix ? shared_prefix : "",
                        target, 100 + i);
      p.prompt_tokens = promptTokens(p.messages);
      prompts_.push_back(p);
    }
    too_long_ = grow("", "", context_ + 40, 77);
    too_long_tokens_ = promptTokens(too_long_);
  }

  // Each prompt's answer alone: a fresh CPU session, engine::generate, the sampling the
  // server derives from the same body (temperature 0).
  void computeReferences() {
    for (Prompt& p : prompts_) {
      auto parsed = server::parseChatCompletionRequest(chatBody(p.messages, p.max_tokens, false),
                                                       server::requestDefaults(model_->generation));
      const auto& request = std::get<server::ChatCompletionRequest>(parsed);
      const std::vector<int> prompt = engine::conversationPrompt(
          *tokenizer_, request.messages, chat_, 0, model_->generation.roles());
      engine::CpuSession session(model_, context_, engine::KvFormat::F32, threads_);
      engine::GenerateOptions o;
      o.max_tokens = p.max_tokens;
      o.sampling = request.sampling;
      o.chat = chat_;
      o.user_token = model_->generation.roles().user;
      const auto generated = engine::generate(session, *tokenizer_, prompt, o,
                                              [](const engine::GeneratedToken&) { return true; });
      QVERIFY2(generated, generated ? "" : generated.error().c_str());
      const engine::GenerationOutcome& out = generated.value();
      p.text = QString::fromStdString(out.text);
      p.completion_tokens = static_cast<int>(out.ids.size());
      p.finish = out.finish;
    }
  }

  std::vector<Spec> makeSpecs(bool faults, int n) const {
    std::mt19937 rng(41u + static_cast<unsigned>(scale_) * 1000u + (faults ? 1u : 0u));
    std::vector<Spec> specs(n);
    for (Spec& s : specs) {
      const int roll = static_cast<int>(rng() % 100);
      if (!faults) {
        s.kind = roll < 50 ? Kind::Normal : Kind::Streamed;
      } else {
        int k = 0, sum = kFaultMix[0];
        while (roll >= sum) sum += kFaultMix[++k];
        s.kind = static_cast<Kind>(k);
      }
      s.prompt = static_cast<int>(rng() % prompts_.size());
      s.stream = rng() % 2 == 0;
      s.variant = static_cast<int>(rng() % 8);
      s.read_bytes = rng() % 3 == 0;
      s.bytes = 1 + static_cast<int>(rng() % 3000);
      s.wait = std::uniform_real_distribution<double>(0.0, 1.5)(rng);
      s.reset = rng() % 3 == 0;
      s.extra = static_cast<int>(rng() % 40);
      if (s.kind == Kind::Cancelled)
        s.bytes = 1 + static_cast<int>(rng() % (prompts_[s.prompt].completion_tokens + 2));
    }
    return specs;
  }

  // One request as its spec says; what came back.
  Outcome runOne(int port, const Spec& s, double typical_s) const {
    Outcome o;
    const Prompt& p = prompts_[s.prompt];
    const std::string path = "/v1/chat/completions";
    switch (s.kind) {
      case Kind::Normal: {
        auto c = client(port);
        const Clock::time_point start = Clock::now();
        readCompletion(c->Post(path, chatBody(p.messages, p.max_tokens, false), "application/json"),
                       o);
        o.e2e_s = std::chrono::duration<double>(Clock::now() - start).count();
        break;
      }
      case Kind::Streamed:
        streamed(port, chatBody(p.messages, p.max_tokens, true), -1, o);
        break;
      case Kind::Cancelled:
        streamed(port, chatBody(p.messages, p.max_tokens, true), s.bytes, o);
        break;
      case Kind::Disconnect:
        o.abandoned = true;
        o.failure = goAway(port, chatBody(p.messages, p.max_tokens, s.stream), s,
                           static_cast<int64_t>(s.wait * typical_s * 1e6));
        break;
      case Kind::Oversized: {
        auto c = client(port);
        const std::string* body = &oversized_;
        readCompletion(c->Post(
                           path, {}, body->size(),
                           [body](size_t offset, size_t length, httplib::DataSink& sink) {
                             return sink.write(body->data() + offset,
                                               std::min<size_t>(length, 1 << 16));
                           },
                           "application/json"),
                       o);
        break;
      }
      case Kind::Malformed: {
        static const char* const bodies[] = {
            "{\"model\":\"soak\",\"messages\":[",
            "this is not JSON",
            "[1, 2]",
            "{\"messages\":\"hello\"}",
            "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"temperature\":\"hot\"}",
            "{\"messages\":[{\"role\":\"robot\",\"content\":\"x\"}]}",
            "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"max_tokens\":0}",
        };
        auto c = client(port);
        if (s.variant == 7)  // no such route
          readCompletion(
              c->Post("/v1/chat/complete", chatBody(p.messages, 4, false), "application/json"), o);
        else
          readCompletion(c->Post(path, bodies[s.variant], "application/json"), o);
        break;
      }
      case Kind::WrongType: {
        // the three types a page may send without a preflight, and a near miss
        static const char* const types[] = {"text/plain", "application/x-www-form-urlencoded",
                                            "multipart/form-data; boundary=x", "application/jsonp"};
        auto c = client(port);
        readCompletion(
            c->Post(path, chatBody(p.messages, p.max_tokens, false), types[s.variant % 4]), o);
        break;
      }
      case Kind::ForeignHost: {
        static const char* const hosts[] = {"evil.example", "evil.example:8080",
                                            "127.0.0.1.evil.example", "localhost.evil.example"};
        auto c = client(port);
        readCompletion(c->Post(path, {{"Host", hosts[s.variant % 4]}},
                               chatBody(p.messages, p.max_tokens, false), "application/json"),
                       o);
        break;
      }
      case Kind::OverContext: {
        auto c = client(port);
        const bool too_long = s.variant % 4 == 0;  // the prompt alone is over the context
        const std::string body =
            too_long ? chatBody(too_long_, 8, s.stream)
                     : chatBody(p.messages, context_ - p.prompt_tokens + 1 + s.extra, s.stream);
        readCompletion(c->Post(path, body, "application/json"), o);
        break;
      }
      case Kind::Count:
        break;
    }
    return o;
  }

  // What is wrong with `o` for its spec ("" when it is as it must be).
  std::string check(const Spec& s, const Outcome& o) const {
    const Prompt& p = prompts_[s.prompt];
    const auto answer = [&]() -> std::string {
      if (!o.failure.empty()) return o.failure;
      if (o.status != 200)
        return "status " + std::to_string(o.status) + ": " + o.body.substr(0, 200);
      if (!o.complete) return "incomplete answer";
      if (o.text != p.text)
        return "text differs from the lone run's: got '" + o.text.left(80).toStdString() +
               "', expected '" + p.text.left(80).toStdString() + "'";
      if (o.completion_tokens != p.completion_tokens)
        return "completion_tokens " + std::to_string(o.completion_tokens) + ", alone " +
               std::to_string(p.completion_tokens);
      if (o.finish != p.finish) return "finish_reason " + o.finish + ", alone " + p.finish;
      if (o.prompt_tokens != p.prompt_tokens)
        return "prompt_tokens " + std::to_string(o.prompt_tokens) + ", expected " +
               std::to_string(p.prompt_tokens);
      return {};
    };
    const auto error = [&](int status, const QString& code, const QString& param = {}) {
      if (!o.failure.empty()) return o.failure;
      if (o.status != status)
        return "status " + std::to_string(o.status) + ", expected " + std::to_string(status) +
               ": " + o.body.substr(0, 200);
      return errorShape(o, code, param);
    };
    switch (s.kind) {
      case Kind::Normal:
      case Kind::Streamed:
        return answer();
      case Kind::Cancelled:
        if (!o.abandoned) return answer();  // the answer ended before its k-th chunk
        if (o.status != 200) return "status " + std::to_string(o.status);
        if (!p.text.startsWith(o.text))
          return "the cancelled stream's text is not a prefix of the lone run's: '" +
                 o.text.left(80).toStdString() + "'";
        return {};
      case Kind::Disconnect:
        return o.failure;
      case Kind::Oversized:
        return error(413, "request_too_large");
      case Kind::Malformed: {
        static const char* const params[] = {
            "", "", "", "messages", "temperature", "messages[0].role", "max_tokens"};
        if (s.variant == 7) return error(404, "unknown_url");
        return error(400, "", params[s.variant]);
      }
      case Kind::WrongType:
        return error(415, "unsupported_media_type");
      case Kind::ForeignHost:
        return error(403, "host_not_allowed");
      case Kind::OverContext: {
        const std::string e = error(400, "context_length_exceeded", "messages");
        if (!e.empty() || s.variant % 4 == 0) return e;
        const int asked = context_ + 1 + s.extra;  // prompt + max_tokens
        const QString message = QJsonDocument::fromJson(QByteArray::fromStdString(o.body))
                                    .object()["error"]
                                    .toObject()["message"]
                                    .toString();
        if (!message.contains(QString("maximum context length is %1").arg(context_)) ||
            !message.contains(QString("requested %1 tokens").arg(asked)))
          return "message does not give the context and the tokens asked: " + message.toStdString();
        return {};
      }
      case Kind::Count:
        break;
    }
    return "unknown kind";
  }

  // The figures of GET /metrics (name without labels -> value).
  static QMap<QString, double> metricsOf(int port) {
    QMap<QString, double> values;
    auto res = client(port)->Get("/metrics");
    if (!res || res->status != 200) return values;
    for (const QString& line : QString::fromStdString(res->body).split('\n', Qt::SkipEmptyParts)) {
      if (line.startsWith('#')) continue;
      const QString name = line.section('{', 0, 0);
      if (!line.contains(",le=")) values[name] = line.section(' ', -1).toDouble();
    }
    return values;
  }

  void soak(bool faults) {
    if (faults_ >= 0 && faults_ != (faults ? 1 : 0))
      QSKIP("TOKENSCOPE_SOAK_FAULTS selects the other run");
    const int n = kBaseRequests * scale_;
    auto scheduler = std::make_shared<engine::Scheduler>(
        std::make_unique<engine::CpuSession>(model_, context_, engine::KvFormat::F32, threads_),
        engine::Tokenizer(model_->vocab), engine::SchedulerOptions{});
    server::ServerOptions options;
    options.model_name = kModelName;
    options.chat = chat_;
    options.max_queue = 64;  // beyond the clients: a 429 is a failure here
    QCOMPARE(options.max_body_mb, kMaxBodyMb);
    server::LocalServer server(model_, scheduler, options);
    const int port = server.bind("127.0.0.1", 0);
    QVERIFY(port > 0);
    QVERIFY(server.start());

    // Warm-up: one request per client at once (the server's threads, the engine's buffers,
    // the clients' allocator arenas), each checked; its median time sets the disconnects'
    // waits. Then the idle figures.
    std::vector<double> warm_times(clients_);
    {
      std::vector<std::thread> threads;
      std::vector<Outcome> warm(clients_);
      for (int i = 0; i < clients_; ++i)
        threads.emplace_back([&, i] {
          Spec s;
          s.kind = i % 2 ? Kind::Streamed : Kind::Normal;
          s.prompt = i % static_cast<int>(prompts_.size());
          warm[i] = runOne(port, s, 0);
        });
      for (auto& t : threads) t.join();
      for (int i = 0; i < clients_; ++i) {
        Spec s;
        s.kind = i % 2 ? Kind::Streamed : Kind::Normal;
        s.prompt = i % static_cast<int>(prompts_.size());
        const std::string wrong = check(s, warm[i]);
        QVERIFY2(wrong.empty(), qPrintable(QString("warm-up %1: %2").arg(i).arg(wrong.c_str())));
        warm_times[i] = warm[i].e2e_s;
      }
    }
    const double typical_s = percentile(warm_times, 50);
    QVERIFY(QTest::qWaitFor(
        [&] {
          const auto m = scheduler->metrics();
          return m.running == 0 && m.waiting == 0 && server.admittedRequests() == 0;
        },
        kSettleMs));
    const int idle_threads = threadCount();
    const std::vector<Spec> specs = makeSpecs(faults, n);
    std::vector<Outcome> outcomes(n);
    const double rss_before = rssMiB();
    const auto before = scheduler->metrics();

    // The load: each client takes the next request until none is left.
    std::atomic<int> next{0};
    const Clock::time_point start = Clock::now();
    {
      std::vector<std::thread> threads;
      for (int c = 0; c < clients_; ++c)
        threads.emplace_back([&] {
          for (int i; (i = next++) < n;) outcomes[i] = runOne(port, specs[i], typical_s);
        });
      for (auto& t : threads) t.join();
    }
    const double wall_s = std::chrono::duration<double>(Clock::now() - start).count();

    // Everything given back: nothing running or waiting, no KV block held, no request
    // admitted, the threads as they were (polled, with a deadline).
    const Clock::time_point settle = Clock::now();
    engine::SchedulerMetrics after;
    const bool settled = QTest::qWaitFor(
        [&] {
          after = scheduler->metrics();
          return after.running == 0 && after.waiting == 0 && after.kv_blocks_used == 0 &&
                 server.admittedRequests() == 0;
        },
        kSettleMs);
    const bool threads_back = QTest::qWaitFor([&] { return threadCount() == idle_threads; }, 5000);
    const double settle_ms =
        std::chrono::duration<double, std::milli>(Clock::now() - settle).count();
    const double rss_after = rssMiB();
    const double kv_growth_mib =
        static_cast<double>(after.kv_bytes - before.kv_bytes) / (1024.0 * 1024.0);
    const double rss_growth_mib = rss_after - rss_before;

    // Every request as it must be.
    int counts[kKinds] = {}, answered = 0, abandoned = 0, completions = 0, refused = 0;
    long long delivered_tokens = 0, abandoned_max_tokens = 0;
    std::vector<double> ttft, e2e;
    QStringList wrong;
    for (int i = 0; i < n; ++i) {
      const Spec& s = specs[i];
      const Outcome& o = outcomes[i];
      ++counts[static_cast<int>(s.kind)];
      if (o.abandoned)
        ++abandoned;
      else if (o.status > 0)
        ++answered;
      if (o.status == 429) ++refused;
      if (!o.abandoned && o.complete) {
        ++completions;
        e2e.push_back(o.e2e_s);
        delivered_tokens += o.completion_tokens;
      }
      if (o.abandoned) abandoned_max_tokens += prompts_[s.prompt].max_tokens;
      if (s.kind == Kind::Streamed && o.complete && o.ttft_s >= 0) ttft.push_back(o.ttft_s);
      const std::string w = check(s, o);
      if (!w.empty())
        wrong << QString("#%1 %2 (prompt %3%4): %5")
                     .arg(i)
                     .arg(kKindNames[static_cast<int>(s.kind)])
                     .arg(s.prompt)
                     .arg(s.kind == Kind::Disconnect || s.kind == Kind::OverContext
                              ? QString(s.stream ? ", streamed" : ", whole")
                              : QString())
                     .arg(QString::fromStdString(w));
    }

    const auto m = metricsOf(port);
    auto health = client(port)->Get("/health");
    QJsonObject kinds;
    for (int k = 0; k < kKinds; ++k) kinds[kKindNames[k]] = counts[k];
    QJsonObject summary{
        {"run", faults ? "faults" : "no_faults"},
        {"model", QFileInfo(model_path_).fileName()},
        {"threads", threads_},
        {"context", context_},
        {"clients", clients_},
        {"requests", n},
        {"answered", answered},
        {"abandoned", abandoned},
        {"completions", completions},
        {"wall_s", std::round(wall_s * 1000) / 1000},
        {"answered_per_s", std::round(answered / wall_s * 100) / 100},
        {"completions_per_s", std::round(completions / wall_s * 100) / 100},
        {"ttft_p50_ms", std::round(percentile(ttft, 50) * 1e4) / 10},
        {"ttft_p99_ms", std::round(percentile(ttft, 99) * 1e4) / 10},
        {"e2e_p50_ms", std::round(percentile(e2e, 50) * 1e4) / 10},
        {"e2e_p99_ms", std::round(percentile(e2e, 99) * 1e4) / 10},
        {"kinds", kinds},
        {"wrong", static_cast<int>(wrong.size())},
        {"settle_ms", std::round(settle_ms)},
        {"threads_idle", idle_threads},
        {"threads_after", threadCount()},
        {"rss_before_mib", std::round(rss_before * 10) / 10},
        {"rss_growth_mib", std::round(rss_growth_mib * 10) / 10},
        {"kv_bytes_growth_mib", std::round(kv_growth_mib * 10) / 10},
        {"kv_blocks_cached", after.kv_blocks_cached},
        {"prefix_hit_tokens",
         static_cast<double>(after.prefix_hit_tokens - before.prefix_hit_tokens)},
        {"mean_batch", after.step_sequences.count > before.step_sequences.count
                           ? std::round((after.step_sequences.sum - before.step_sequences.sum) /
                                        static_cast<double>(after.step_sequences.count -
                                                            before.step_sequences.count) *
                                        100) /
                                 100
                           : 0.0},
        {"preemptions", static_cast<double>(after.preemptions - before.preemptions)},
        // tokens generated beyond the answers delivered whole (for clients that went away,
        // cancelled streams' chunks included), against what those requests asked at most
        {"tokens_not_delivered",
         static_cast<double>(after.generation_tokens - before.generation_tokens) -
             static_cast<double>(delivered_tokens)},
        {"abandoned_max_tokens", static_cast<double>(abandoned_max_tokens)},
    };
    qInfo().noquote() << "soak summary:" << QJsonDocument(summary).toJson(QJsonDocument::Compact);
    summaries_.push_back(summary);

    // The assertions, after the summary so that a failing run still reports its figures.
    for (int i = 0; i < std::min<int>(wrong.size(), 20); ++i) qWarning().noquote() << wrong[i];
    QVERIFY2(wrong.isEmpty(), qPrintable(QString("%1 of %2 requests not as expected; the first: %3")
                                             .arg(wrong.size())
                                             .arg(n)
                                             .arg(wrong.value(0))));
    QCOMPARE(refused, 0);
    if (faults)
      for (int k = 0; k < kKinds; ++k)
        QVERIFY2(counts[k] > 0, kKindNames[k]);  // every kind in the mix
    QVERIFY2(settled, qPrintable(QString("after %1 s: %2 running, %3 waiting, %4 KV blocks used, "
                                         "%5 admitted")
                                     .arg(kSettleMs / 1000)
                                     .arg(after.running)
                                     .arg(after.waiting)
                                     .arg(after.kv_blocks_used)
                                     .arg(server.admittedRequests())));
    QVERIFY(health);
    QCOMPARE(health->status, 200);
    QCOMPARE(QString::fromStdString(health->body), QString("{\"status\":\"ok\"}"));
    // /metrics says the same: no block held, none running or waiting; the KV memory figure.
    QCOMPARE(m.value("tokenscope:kv_cache_blocks_used", -1), 0.0);
    QCOMPARE(m.value("tokenscope:num_requests_running", -1), 0.0);
    QCOMPARE(m.value("tokenscope:num_requests_waiting", -1), 0.0);
    QVERIFY(m.value("tokenscope:kv_cache_bytes", -1) > 0);
    QVERIFY2(
        threads_back,
        qPrintable(
            QString("threads: %1 idle, %2 after the load").arg(idle_threads).arg(threadCount())));
    // The KV pool allocates its blocks as they are first used (kv_cache_bytes): that growth
    // is the pool filling, not a leak: on a large model it is hundreds of MiB, and is set
    // apart there. On the CI model the whole growth, pool included, is within the bound.
    const QString rss = QString("RSS grew %1 MiB (%2 MiB of it the KV pool's first use)")
                            .arg(rss_growth_mib)
                            .arg(kv_growth_mib);
    QVERIFY2(rss_growth_mib - kv_growth_mib < kRssLimitMiB, qPrintable(rss));
    if (!qEnvironmentVariableIsSet("TOKENSCOPE_SOAK_MODEL"))
      QVERIFY2(rss_growth_mib < kRssLimitMiB, qPrintable(rss));
    QVERIFY(completions > 0);
    QVERIFY(server.completedRequests() >= completions);
  }

 private slots:
  void initTestCase() {
    scale_ = std::max(1, envInt("TOKENSCOPE_SOAK_SCALE", 1));
    clients_ = std::max(1, envInt("TOKENSCOPE_SOAK_CLIENTS", 16));
    threads_ = std::max(1, envInt("TOKENSCOPE_SOAK_THREADS", 2));
    context_ = envInt("TOKENSCOPE_SOAK_CONTEXT", 512);
    max_tokens_cap_ = envInt("TOKENSCOPE_SOAK_MAX_TOKENS", 0);
    faults_ = envInt("TOKENSCOPE_SOAK_FAULTS", -1);
    model_path_ = qEnvironmentVariable("TOKENSCOPE_SOAK_MODEL", models_ + "/ktiny/ktiny-Q4_0.gguf");
    if (!QFile::exists(model_path_))
      QSKIP(qPrintable(model_path_ + " is absent (the shared fixtures are not laid out here)"));
    auto loaded = engine::loadModel(model_path_.toStdString());
    QVERIFY2(loaded.ok(), qPrintable(model_path_));
    model_ = loaded.value();
    // A model without a vocabulary (convert --random writes none) takes Baichuan's, from
    // the fixtures or TOKENSCOPE_SOAK_VOCAB: the prompts are text, the answers too.
    if (model_->vocab.pieces.empty() || qEnvironmentVariableIsSet("TOKENSCOPE_SOAK_VOCAB")) {
      const QString path = qEnvironmentVariable(
          "TOKENSCOPE_SOAK_VOCAB", models_ + "/baichuan-vocab/ggml-vocab-baichuan.gguf");
      auto vocab = engine::loadVocabulary(path.toStdString());
      if (!vocab.ok()) QFAIL(qPrintable(path + ": " + QString::fromStdString(vocab.error())));
      QVERIFY2(static_cast<int>(vocab.value().pieces.size()) == model_->config.vocab,
               qPrintable(QString("%1 has %2 tokens, the model %3")
                              .arg(path)
                              .arg(vocab.value().pieces.size())
                              .arg(model_->config.vocab)));
      model_->vocab = vocab.value();
      qInfo().noquote() << "vocabulary:" << path;
    }
    tokenizer_ = std::make_unique<engine::Tokenizer>(model_->vocab);
    chat_ = engine::isChatModel(model_->config.architecture, model_->config.vocab);
    QVERIFY(context_ >= 256);
    buildPrompts();
    computeReferences();
    // A body just over the limit: valid JSON, so that only its size is at fault.
    const std::string head = "{\"messages\":[{\"role\":\"user\",\"content\":\"";
    const std::string tail = "\"}]}";
    oversized_ = head + std::string((size_t{kMaxBodyMb} << 20) + 4096, 'a') + tail;
    QStringList lines;
    for (const Prompt& p : prompts_)
      lines << QString("%1+%2(%3 %4)")
                   .arg(p.prompt_tokens)
                   .arg(p.max_tokens)
                   .arg(p.completion_tokens)
                   .arg(p.finish.c_str());
    qInfo().noquote() << "prompts (tokens+max_tokens (alone: tokens finish)):" << lines.join(' ')
                      << "; over the context alone:" << too_long_tokens_;
    for (const Prompt& p : prompts_) QVERIFY(p.prompt_tokens + p.max_tokens <= context_);
    QVERIFY(too_long_tokens_ > context_);
  }

  void soakWithFaults() { soak(true); }
  void soakWithoutFaults() { soak(false); }

  void cleanupTestCase() {
    if (summaries_.size() < 2) return;
    qInfo().noquote() << "side by side (faults | no faults): answered/s"
                      << summaries_[0]["answered_per_s"].toDouble() << "|"
                      << summaries_[1]["answered_per_s"].toDouble() << "; completions/s"
                      << summaries_[0]["completions_per_s"].toDouble() << "|"
                      << summaries_[1]["completions_per_s"].toDouble() << "; TTFT p99 ms"
                      << summaries_[0]["ttft_p99_ms"].toDouble() << "|"
                      << summaries_[1]["ttft_p99_ms"].toDouble();
  }
};

QTEST_GUILESS_MAIN(TestServerSoak)
#include "test_server_soak.moc"
