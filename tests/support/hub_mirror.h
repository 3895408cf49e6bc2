// A Hugging Face hub mirror on 127.0.0.1 for the download tests: serves files from disk
// at /{owner}/{name}/resolve/{revision}/{file} with the hub's headers (X-Linked-Size,
// X-Linked-Etag = sha256), honours Range requests, and on script drops connections after
// some bytes, advertises a wrong checksum or sends slowly.
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ts::server {
class HttpServer;
}

namespace ts::testing {

struct HubMirrorScript {
  long long drop_after_bytes = -1;  // close the connection after this many body bytes ...
  int drops = 0;                    // ... on this many GETs
  bool wrong_sha256 = false;
  bool ignore_range = false;   // answer 200 with the whole file
  int delay_per_chunk_ms = 0;  // between 64 KiB chunks (to pause mid-download)
};

struct MirrorRequest {
  std::string method, path, range;
};

class HubMirror {
 public:
  HubMirror();
  ~HubMirror();
  int start();  // port
  void stop();
  std::string baseUrl() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // Serves `local_path` as {repo}/resolve/main/{file}.
  void serve(const std::string& repo, const std::string& file, const std::string& local_path);
  void setScript(const HubMirrorScript& s);
  std::vector<MirrorRequest> requests();

 private:
  std::unique_ptr<server::HttpServer> server_;
  int port_ = 0;
  std::mutex mutex_;
  std::map<std::string, std::string> files_;  // "repo/file" -> local path
  HubMirrorScript script_;
  std::vector<MirrorRequest> requests_;
};

}  // namespace ts::testing
