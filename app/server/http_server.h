// httplib::Server as a streaming server needs it:
// - TCP_NODELAY: each SSE chunk is a small write; with Nagle's algorithm a chunk may wait
//   for the ACK of the previous one (delayed ACK: milliseconds), which clients would
//   measure as latency the model never had (seen: +4 ms on TTFT over loopback).
// - A wider listen backlog. Debian's cpp-httplib is built with a backlog of 5: a burst of
//   connections then overflows the accept queue and some are dropped (seen with 64
//   concurrent clients). The listening socket is protected in httplib::Server; listen()
//   on it again widens the queue.
#pragma once
#include <httplib.h>
#include <sys/socket.h>

namespace ts::server {

class HttpServer : public httplib::Server {
 public:
  HttpServer() { set_tcp_nodelay(true); }
  void widenBacklog(int backlog = SOMAXCONN) { ::listen(svr_sock_, backlog); }
};

}  // namespace ts::server
