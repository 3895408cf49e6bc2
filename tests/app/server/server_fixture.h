// What the local server's tests share: the aidreams260K model from the shared fixtures, a
// LocalServer on 127.0.0.1 in-process with its scheduler at hand, request bodies, raw
// HTTP over a socket (a client that can go away at any moment), and OpenAI error bodies.
#pragma once
#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <QByteArray>
#include <QDeadlineTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QThread>
#include <functional>
#include <memory>
#include <string>

#include "app/server/local_server.h"
#include "inference/engine/cpu/cpu_forward.h"
#include "inference/engine/formats/model_loader.h"

namespace ts::testing {

inline QString sharedModels() {
  return qEnvironmentVariable("TOKENSCOPE_SHARED_DIR", "../shared") + "/models";
}

inline QString aidreamsPath() {
  return sharedModels() + "/aidreams260K/aidreams260K.gguf";
}

// Skips the test when the shared fixtures are absent; else the model (null if it fails).
#define TS_LOAD_AIDREAMS_OR_SKIP(model)                                            \
  do {                                                                             \
    if (!QFile::exists(ts::testing::aidreamsPath()))                               \
      QSKIP(qPrintable(ts::testing::sharedModels() +                               \
                       " is absent (the shared fixtures are not laid out here)")); \
    auto loaded = engine::loadModel(ts::testing::aidreamsPath().toStdString());    \
    QVERIFY(loaded.ok());                                                          \
    model = loaded.value();                                                        \
  } while (false)

inline server::ServerOptions serverOptions(const std::string& key = "", int max_queue = 16) {
  server::ServerOptions o;
  o.model_name = "aidreams";
  o.chat = false;
  o.api_key = key;
  o.max_queue = max_queue;
  return o;
}

// A LocalServer listening on 127.0.0.1 for the life of the object.
struct RunningServer {
  std::shared_ptr<engine::Scheduler> scheduler;
  std::unique_ptr<server::LocalServer> server;
  int port = -1;
  RunningServer(std::shared_ptr<const engine::Model> model,
                std::unique_ptr<engine::DecodeSession> session, server::ServerOptions options,
                engine::SchedulerOptions scheduling = {}) {
    scheduler = std::make_shared<engine::Scheduler>(std::move(session),
                                                    engine::Tokenizer(model->vocab), scheduling);
    server = std::make_unique<server::LocalServer>(model, scheduler, options);
    port = server->bind("127.0.0.1", 0);
    server->start();
  }
};

inline std::string chatBody(const std::string& content, int max_tokens, bool stream,
                            const std::string& extra = "") {
  return "{\"model\":\"aidreams\",\"messages\":[{\"role\":\"user\",\"content\":\"" + content +
         "\"}],\"temperature\":0,\"max_tokens\":" + std::to_string(max_tokens) +
         ",\"stream\":" + (stream ? "true" : "false") + extra + "}";
}

// A POST to /v1/chat/completions over a socket of its own: the client can read some of the
// answer and go away (close) whenever the test says.
class RawClient {
 public:
  RawClient(int port, const std::string& body)
      : RawClient(port,
                  "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  "Content-Type: application/json\r\nContent-Length: " +
                      std::to_string(body.size()) + "\r\n\r\n" + body,
                  true) {}
  // `request`: the bytes to send as they are.
  RawClient(int port, const std::string& request, bool /*raw*/) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    if (connected_)
      sent_ = ::send(fd_, request.data(), request.size(), MSG_NOSIGNAL) ==
              static_cast<ssize_t>(request.size());
  }
  ~RawClient() { close(); }
  bool ok() const { return connected_ && sent_; }
  // Reads until `text` has arrived (or the stream ends); false when it never came.
  bool readUntil(const std::string& text) {
    char buf[4096];
    while (received_.find(text) == std::string::npos) {
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) return false;
      received_.append(buf, static_cast<size_t>(n));
    }
    return true;
  }
  const std::string& received() const { return received_; }
  bool send(const std::string& bytes) {
    return fd_ >= 0 && ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
                           static_cast<ssize_t>(bytes.size());
  }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
  bool connected_ = false, sent_ = false;
  std::string received_;
};

// Waits (polling, up to `ms`) until `condition` holds.
inline bool waitFor(const std::function<bool()>& condition, int ms = 20000) {
  const QDeadlineTimer deadline(ms);
  while (!condition()) {
    if (deadline.hasExpired()) return false;
    QThread::msleep(1);
  }
  return true;
}

// The "error" object of an OpenAI error body, or an empty object.
inline QJsonObject errorOf(const std::string& body) {
  return QJsonDocument::fromJson(QByteArray::fromStdString(body))
      .object()
      .value("error")
      .toObject();
}

}  // namespace ts::testing
