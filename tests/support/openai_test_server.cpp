#include "tests/support/openai_test_server.h"

#include <cctype>

#include <httplib.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <chrono>

#include "app/server/http_server.h"
#include "inference/stream/stream_event.h"

namespace ts::testing {
namespace {

const char* const kPieces[] = {"Hello", ",",      " world", "!",    " 你好",
                               " The",  " quick", " brown", " fox", " jumps",
                               " over", " the",   " lazy",  " dog", ".\n"};
constexpr int kPieceCount = sizeof(kPieces) / sizeof(kPieces[0]);

std::string json(const QJsonObject& obj) {
  return QJsonDocument(obj).toJson(QJsonDocument::Compact).toStdString();
}

std::string errorBody(const std::string& message, const std::string& type,
                      const std::string& code) {
  return json(QJsonObject{{"error", QJsonObject{{"message", QString::fromStdString(message)},
                                                {"type", QString::fromStdString(type)},
                                                {"code", QString::fromStdString(code)}}}});
}

std::string chunkJson(const std::string& model, const QJsonObject& delta, const QString& finish) {
  QJsonObject choice{{"index", 0}, {"delta", delta}};
  choice.insert("finish_reason", finish.isEmpty() ? QJsonValue() : QJsonValue(finish));
  return json(QJsonObject{{"id", "chatcmpl-test"},
                          {"object", "chat.completion.chunk"},
                          {"model", QString::fromStdString(model)},
                          {"choices", QJsonArray{choice}}});
}

bool writeAll(httplib::DataSink& sink, const std::string& s) {
  return sink.is_writable() && sink.write(s.data(), s.size());
}

}  // namespace

OpenAiTestServer::OpenAiTestServer(int threads) : server_(std::make_unique<server::HttpServer>()) {
  server_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };

  server_->Get("/v1/models", [this](const httplib::Request& req, httplib::Response& res) {
    ServerScript s;
    {
      std::lock_guard lock(mutex_);
      s = script_;
    }
    const size_t index =
        beginRequest({monotonicNowNs(), req.path, "", req.has_header("Authorization"), 0, {}});
    if (!s.required_key.empty() &&
        req.get_header_value("Authorization") != "Bearer " + s.required_key) {
      res.status = 401;
      res.set_content(
          errorBody("Incorrect API key provided.", "invalid_request_error", "invalid_api_key"),
          "application/json");
    } else {
      QJsonArray data;
      for (const auto& m : s.models)
        data.append(QJsonObject{{"id", QString::fromStdString(m)}, {"object", "model"}});
      res.set_content(json(QJsonObject{{"object", "list"}, {"data", data}}), "application/json");
    }
    setStatus(index, res.status);
  });

  server_->Post("/v1/chat/completions", [this](const httplib::Request& req,
                                               httplib::Response& res) {
    const int64_t received = monotonicNowNs();
    ServerScript s;
    {
      std::lock_guard lock(mutex_);
      s = script_;
    }
    const size_t index =
        beginRequest({received, req.path, req.body, req.has_header("Authorization"), 0, {}});
    const QJsonObject body = QJsonDocument::fromJson(QByteArray::fromStdString(req.body)).object();
    const std::string model = body.value("model").toString().toStdString();
    const bool stream = body.value("stream").toBool();
    const bool wants_usage =
        body.value("stream_options").toObject().value("include_usage").toBool();
    const int max_tokens = body.contains("max_tokens") ? body.value("max_tokens").toInt() : 1 << 30;

    auto reject = [&](int status, const std::string& b) {
      res.status = status;
      res.set_content(b, "application/json");
      setStatus(index, status);
    };
    if (!s.required_key.empty() &&
        req.get_header_value("Authorization") != "Bearer " + s.required_key)
      return reject(401, errorBody("Incorrect API key provided.", "invalid_request_error",
                                   "invalid_api_key"));
    if (s.status != 200 && static_cast<int>(index) < s.fail_first_n) {
      if (s.status == 429 && s.retry_after_s >= 0)
        res.set_header("Retry-After", std::to_string(s.retry_after_s));
      const std::string msg = s.status == 429 ? "Rate limit reached for requests"
                              : s.status >= 500
                                  ? "The server had an error while processing your request"
                              : s.status == 404 ? "Not Found"
                                                : "Scripted failure";
      return reject(s.status, errorBody(msg, "scripted", std::to_string(s.status)));
    }
    if (std::find(s.models.begin(), s.models.end(), model) == s.models.end())
      return reject(404, errorBody("The model `" + model + "` does not exist.",
                                   "invalid_request_error", "model_not_found"));
    if (s.reject_stream_options && body.contains("stream_options"))
      return reject(400, errorBody("Unrecognized request argument supplied: stream_options",
                                   "invalid_request_error", ""));
    if (body.value("messages").toArray().isEmpty())
      return reject(400, errorBody("'messages' must contain at least one message",
                                   "invalid_request_error", ""));

    const int total_tokens = std::min(max_tokens, s.chunks * s.tokens_per_chunk);
    const std::string finish = total_tokens < s.chunks * s.tokens_per_chunk ? "length" : "stop";
    setStatus(index, 200);
    if (!stream) {
      const int64_t end =
          received + static_cast<int64_t>((s.ttft_ms + s.gap_ms * (s.chunks - 1)) * 1e6);
      sleepUntil(end);
      const std::string text = expectedText(s, max_tokens);
      res.set_content(
          json(QJsonObject{
              {"id", "chatcmpl-test"},
              {"object", "chat.completion"},
              {"model", QString::fromStdString(model)},
              {"choices", QJsonArray{QJsonObject{
                              {"index", 0},
                              {"message", QJsonObject{{"role", "assistant"},
                                                      {"content", QString::fromStdString(text)}}},
                              {"finish_reason", QString::fromStdString(finish)}}}},
              {"usage", QJsonObject{{"prompt_tokens", 5},
                                    {"completion_tokens", total_tokens},
                                    {"total_tokens", 5 + total_tokens}}}}),
          "application/json");
      recordChunk(index, {monotonicNowNs(), total_tokens, text});
      return;
    }

    res.set_chunked_content_provider("text/event-stream", [this, s, index, received, model,
                                                           wants_usage, total_tokens, finish](
                                                              size_t, httplib::DataSink& sink) {
      if (s.keepalive_comment && !writeAll(sink, ": keep-alive\n\n")) return false;
      // OpenAI's first chunk carries the role and empty content.
      if (!writeAll(
              sink,
              "data: " + chunkJson(model, {{"role", "assistant"}, {"content", ""}}, "") + "\n\n"))
        return false;
      int token = 0;
      for (int c = 0; token < total_tokens; ++c) {
        if (c == s.reset_after_chunks) return false;  // httplib closes the socket
        if (c == s.malformed_after_chunks && !writeAll(sink, "data: {not json\n\n")) return false;
        if (c == s.stall_after_chunks && s.stall_ms > 0 &&
            !sleepUntil(monotonicNowNs() + int64_t{s.stall_ms} * 1'000'000))
          return false;
        const int64_t due = received + static_cast<int64_t>((s.ttft_ms + s.gap_ms * c) * 1e6);
        if (c != s.stall_after_chunks && !sleepUntil(due)) return false;
        std::string text;
        const int n = std::min(s.tokens_per_chunk, total_tokens - token);
        for (int k = 0; k < n; ++k) text += tokenText(s, token++);
        const std::string line =
            "data: " + chunkJson(model, {{"content", QString::fromStdString(text)}}, "") + "\n\n";
        const int64_t sent_ns = monotonicNowNs();  // the bytes cannot arrive before this
        if (!writeAll(sink, line)) return false;
        recordChunk(index, {sent_ns, n, text});
      }
      if (!writeAll(sink, "data: " + chunkJson(model, {}, QString::fromStdString(finish)) + "\n\n"))
        return false;
      if (wants_usage && s.usage) {
        const std::string usage =
            json(QJsonObject{{"id", "chatcmpl-test"},
                             {"object", "chat.completion.chunk"},
                             {"choices", QJsonArray{}},
                             {"usage", QJsonObject{{"prompt_tokens", 5},
                                                   {"completion_tokens", total_tokens},
                                                   {"total_tokens", 5 + total_tokens}}}});
        if (!writeAll(sink, "data: " + usage + "\n\n")) return false;
      }
      if (s.send_done && !writeAll(sink, "data: [DONE]\n\n")) return false;
      sink.done();
      return true;
    });
  });
}

OpenAiTestServer::~OpenAiTestServer() {
  stop();
}

int OpenAiTestServer::start(int port) {
  stopping_ = false;
  port_ = port == 0 ? server_->bind_to_any_port("127.0.0.1")
                    : (server_->bind_to_port("127.0.0.1", port) ? port : -1);
  if (port_ < 0) return -1;
  server_->widenBacklog();
  if (!server_->startListening()) return -1;
  return port_;
}

void OpenAiTestServer::stop() {
  stopping_ = true;
  if (server_) server_->stopListening();
}

std::string OpenAiTestServer::baseUrl() const {
  return "http://127.0.0.1:" + std::to_string(port_);
}

void OpenAiTestServer::setScript(const ServerScript& script) {
  std::lock_guard lock(mutex_);
  script_ = script;
}

std::vector<ServedRequest> OpenAiTestServer::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

void OpenAiTestServer::clearRequests() {
  std::lock_guard lock(mutex_);
  requests_.clear();
}

std::string OpenAiTestServer::tokenText(const ServerScript& script, int index) {
  if (!script.pieces.empty()) return script.pieces[index % script.pieces.size()];
  return kPieces[index % kPieceCount];
}

std::vector<std::string> OpenAiTestServer::piecesOf(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = start;
    while (end < text.size() && std::isspace(static_cast<unsigned char>(text[end]))) ++end;
    while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
    out.push_back(text.substr(start, end - start));
    start = end;
  }
  return out;
}

std::string OpenAiTestServer::expectedText(const ServerScript& script, int max_tokens) {
  std::string out;
  const int total = std::min(max_tokens, script.chunks * script.tokens_per_chunk);
  for (int i = 0; i < total; ++i) out += tokenText(script, i);
  return out;
}

size_t OpenAiTestServer::beginRequest(ServedRequest request) {
  std::lock_guard lock(mutex_);
  requests_.push_back(std::move(request));
  return requests_.size() - 1;
}

void OpenAiTestServer::recordChunk(size_t index, SentChunk chunk) {
  std::lock_guard lock(mutex_);
  requests_[index].chunks.push_back(std::move(chunk));
}

void OpenAiTestServer::setStatus(size_t index, int status) {
  std::lock_guard lock(mutex_);
  requests_[index].status = status;
}

bool OpenAiTestServer::sleepUntil(int64_t deadline_ns) const {
  // Long waits in slices so stop() is prompt; the last stretch in one precise sleep.
  for (;;) {
    if (stopping_) return false;
    const int64_t left = deadline_ns - monotonicNowNs();
    if (left <= 0) return true;
    const int64_t step = std::min<int64_t>(left, 20'000'000);
    std::this_thread::sleep_for(std::chrono::nanoseconds(step));
  }
}

}  // namespace ts::testing
