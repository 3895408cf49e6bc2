#include "tests/support/hub_mirror.h"

#include <httplib.h>

#include "app/server/http_server.h"

#include <QCryptographicHash>
#include <QFile>
#include <chrono>
#include <fstream>
#include <sstream>

namespace ts::testing {
namespace {

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

HubMirror::HubMirror() : server_(std::make_unique<server::HttpServer>()) {
  server_->Get(R"(/([^/]+/[^/]+)/resolve/([^/]+)/(.+))", [this](const httplib::Request& req,
                                                                httplib::Response& res) {
    const std::string key = std::string(req.matches[1]) + "/" + std::string(req.matches[3]);
    HubMirrorScript script;
    std::string path;
    bool drop = false;
    {
      std::lock_guard lock(mutex_);
      requests_.push_back({req.method, req.path, req.get_header_value("Range")});
      script = script_;
      auto it = files_.find(key);
      if (it != files_.end()) path = it->second;
      if (req.method == "GET" && script_.drops > 0 && script_.drop_after_bytes >= 0) {
        drop = true;
        --script_.drops;
      }
    }
    if (path.empty()) {
      res.status = 404;
      res.set_content("Entry not found", "text/plain");
      return;
    }
    auto body = std::make_shared<std::string>(readAll(path));
    std::string sha =
        QCryptographicHash::hash(QByteArray::fromStdString(*body), QCryptographicHash::Sha256)
            .toHex()
            .toStdString();
    if (script.wrong_sha256) sha = std::string(64, 'a');
    res.set_header("X-Linked-Size", std::to_string(body->size()));
    res.set_header("X-Linked-Etag", "\"" + sha + "\"");
    res.set_header("Accept-Ranges", "bytes");
    if (req.method == "HEAD") {
      res.set_header("Content-Length", std::to_string(body->size()));
      return;
    }
    // httplib answers a Range request itself (206, Content-Range) from this provider,
    // which is asked for bytes from absolute offsets; `first` remembers where this
    // response began, so a drop counts the bytes of this response only.
    const long long limit = drop ? script.drop_after_bytes : -1;
    const int delay = script.delay_per_chunk_ms;
    auto first = std::make_shared<long long>(-1);
    res.set_content_provider(
        body->size(), "application/octet-stream",
        [body, limit, delay, first](size_t at, size_t length, httplib::DataSink& sink) {
          if (*first < 0) *first = static_cast<long long>(at);
          const long long sent = static_cast<long long>(at) - *first;
          if (limit >= 0 && sent >= limit) return false;  // drop the connection
          size_t n = std::min<size_t>(64 * 1024, length);
          if (limit >= 0) n = std::min<size_t>(n, static_cast<size_t>(limit - sent));
          if (delay > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay));
          return sink.write(body->data() + at, n);
        });
  });
}

HubMirror::~HubMirror() {
  stop();
}

int HubMirror::start() {
  port_ = server_->bind_to_any_port("127.0.0.1");
  if (port_ < 0 || !server_->startListening()) return -1;
  return port_;
}

void HubMirror::stop() {
  server_->stopListening();
}

void HubMirror::serve(const std::string& repo, const std::string& file,
                      const std::string& local_path) {
  std::lock_guard lock(mutex_);
  files_[repo + "/" + file] = local_path;
}

void HubMirror::setScript(const HubMirrorScript& s) {
  std::lock_guard lock(mutex_);
  script_ = s;
}

std::vector<MirrorRequest> HubMirror::requests() {
  std::lock_guard lock(mutex_);
  return requests_;
}

}  // namespace ts::testing
