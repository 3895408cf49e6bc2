// Notices clients that went away while their request waits or runs, and cancels the
// request: cpp-httplib (0.11) tells a handler nothing about its connection, and a
// non-streamed request would otherwise generate to max_tokens for nobody, holding its slot
// (a streamed one noticed only when a write failed). Each watched request names its
// connection's socket and a cancel flag; one thread looks at every socket every
// kInterval and sets the flag of those whose peer has closed (the scheduler then drops the
// request within one step, or at once while it waits).
#pragma once
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

namespace ts::server {

// The socket of the connection `req` came on, found among the process's sockets by its
// two ends (addresses and ports); -1 when none matches. Valid while the request's handler
// or content provider runs (httplib closes it after).
int connectionSocket(const httplib::Request& req);

// Shuts down (both ways) every connected socket of this process whose local port is
// `port`: the connections a server on that port accepted. Their workers' reads and writes
// then end at once, instead of waiting for a client that sends a byte now and then.
void shutdownConnections(int port);

// Whether the peer closed the socket (or it failed): end of stream pending. Data waiting
// (a pipelined request) means alive.
bool peerClosed(int socket);

class ConnectionWatch {
 public:
  static constexpr std::chrono::milliseconds kInterval{10};
  ConnectionWatch();
  ~ConnectionWatch();  // stops the thread

  // Watches `socket` (< 0: none; cancelAll still reaches the flag) until forget(id): sets *cancel
  // when its peer closes. Returns the watch's id.
  uint64_t watch(int socket, std::atomic<bool>* cancel);
  void forget(uint64_t id);
  // Sets every watched request's flag (the server stopping).
  void cancelAll();

 private:
  struct Entry {
    int socket;
    std::atomic<bool>* cancel;
  };
  void loop();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::map<uint64_t, Entry> entries_;
  uint64_t next_id_ = 1;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace ts::server
