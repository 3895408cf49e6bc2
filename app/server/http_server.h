// httplib::Server as our streaming servers need it, and the one way they are started and
// stopped (the app's Serve, `tokenscope-cli serve` and `bench --model-path`, and the
// tests' scripted servers):
// - TCP_NODELAY: each SSE chunk is a small write; with Nagle's algorithm a chunk may wait
//   for the ACK of the previous one (delayed ACK: milliseconds), which clients would
//   measure as latency the model never had (seen: +4 ms on TTFT over loopback).
// - A wider listen backlog. Debian's cpp-httplib is built with a backlog of 5: a burst of
//   connections then overflows the accept queue and some are dropped (seen with 64
//   concurrent clients). The listening socket is protected in httplib::Server; listen()
//   on it again widens the queue.
// - startListening() returns only once the accept loop runs. httplib's stop() does nothing
//   before that, and the loop started afterwards would then never return: stopping right
//   after starting hung the joining thread (the GUI's, for Serve switched on and off).
// - A short keep-alive wait: when stopping, a worker that holds an idle keep-alive
//   connection finishes only when that wait ends, and the whole stop waits for it
//   (httplib's default of 5 s made every stop after a request take 5 s).
// - A port in use is refused. httplib sets SO_REUSEPORT on Linux, so a second server (a
//   second TokenScope serving, or one test's server beside another's) bound the same port
//   and the kernel shared the connections between the two: a client asked one model and got
//   the other's answer (seen as a test that read another server's /v1/models). SO_REUSEADDR
//   alone still rebinds at once after a stop (a port in TIME_WAIT).
#pragma once
#include <httplib.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

namespace ts::server {

class HttpServer : public httplib::Server {
 public:
  HttpServer() {
    set_tcp_nodelay(true);
    set_keep_alive_timeout(kKeepAliveSeconds);
    set_socket_options([](socket_t sock) {
      int yes = 1;
      setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    });
  }
  ~HttpServer() override { stopListening(); }
  void widenBacklog(int backlog = SOMAXCONN) { ::listen(svr_sock_, backlog); }

  // Serves connections to the bound socket (bind_to_port / bind_to_any_port first) on a
  // thread of its own; returns once the accept loop runs (false: it ended at once).
  bool startListening() {
    if (thread_.joinable()) return is_running();
    loop_ended_ = false;
    thread_ = std::thread([this] {
      listen_after_bind();
      loop_ended_ = true;
    });
    // The loop sets is_running() as its first step: a short wait, a condition checked.
    while (!is_running() && !loop_ended_)
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    return !loop_ended_;
  }
  // Ends the accept loop and waits for requests in progress; safe at any time (before
  // starting, twice, from the destructor).
  // `after_stop` runs between the end of the accept loop and the wait (the local server shuts
  // its connections down there).
  void stopListening(const std::function<void()>& after_stop = {}) {
    if (!thread_.joinable()) return;
    stop();
    if (after_stop) after_stop();
    thread_.join();
  }

  // Idle keep-alive connections are closed after this long; clients reconnect (a fraction
  // of a millisecond on loopback). Stopping waits at most this long for them.
  static constexpr time_t kKeepAliveSeconds = 1;

 private:
  std::thread thread_;
  std::atomic<bool> loop_ended_{false};
};

}  // namespace ts::server
