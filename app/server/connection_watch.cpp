#include "app/server/connection_watch.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdlib>
#include <string>

namespace ts::server {
namespace {

// The numeric address and port of a socket address ("127.0.0.1", 8080).
bool addressOf(const sockaddr_storage& a, std::string& address, int& port) {
  char text[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(a);
    inet_ntop(AF_INET, &v4.sin_addr, text, sizeof text);
    port = ntohs(v4.sin_port);
  } else if (a.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(a);
    inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof text);
    port = ntohs(v6.sin6_port);
  } else {
    return false;
  }
  address = text;
  return true;
}

bool endIs(int socket, bool peer, const std::string& address, int port) {
  sockaddr_storage a{};
  socklen_t size = sizeof a;
  const int rc = peer ? getpeername(socket, reinterpret_cast<sockaddr*>(&a), &size)
                      : getsockname(socket, reinterpret_cast<sockaddr*>(&a), &size);
  std::string found;
  int found_port = -1;
  return rc == 0 && addressOf(a, found, found_port) && found_port == port && found == address;
}

// Calls fn(socket) for every socket of this process.
template <typename Fn>
void forEachSocket(Fn fn) {
  DIR* fds = opendir("/proc/self/fd");
  if (!fds) return;
  while (const dirent* entry = readdir(fds)) {
    char* end = nullptr;
    const long fd = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || fd == dirfd(fds)) continue;
    if (fn(static_cast<int>(fd))) break;
  }
  closedir(fds);
}

}  // namespace

int connectionSocket(const httplib::Request& req) {
  int match = -1;
  forEachSocket([&](int socket) {
    if (endIs(socket, false, req.local_addr, req.local_port) &&
        endIs(socket, true, req.remote_addr, req.remote_port))
      match = socket;
    return match >= 0;
  });
  return match;
}

void shutdownConnections(int port) {
  forEachSocket([port](int socket) {
    sockaddr_storage local{}, peer{};
    socklen_t local_size = sizeof local, peer_size = sizeof peer;
    std::string address;
    int local_port = -1;
    if (getsockname(socket, reinterpret_cast<sockaddr*>(&local), &local_size) == 0 &&
        addressOf(local, address, local_port) && local_port == port &&
        getpeername(socket, reinterpret_cast<sockaddr*>(&peer), &peer_size) == 0)
      ::shutdown(socket, SHUT_RDWR);
    return false;
  });
}

bool peerClosed(int socket) {
  pollfd p{socket, static_cast<short>(POLLIN | POLLRDHUP), 0};
  if (poll(&p, 1, 0) <= 0) return false;
  if (p.revents & (POLLERR | POLLHUP | POLLRDHUP | POLLNVAL)) return true;
  if (!(p.revents & POLLIN)) return false;
  char byte;
  const ssize_t n = recv(socket, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

ConnectionWatch::ConnectionWatch() : thread_([this] { loop(); }) {}

ConnectionWatch::~ConnectionWatch() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

uint64_t ConnectionWatch::watch(int socket, std::atomic<bool>* cancel) {
  std::lock_guard lock(mutex_);
  const uint64_t id = next_id_++;
  entries_[id] = {socket, cancel};  // without a socket: for cancelAll only
  return id;
}

void ConnectionWatch::forget(uint64_t id) {
  std::lock_guard lock(mutex_);
  entries_.erase(id);
}

void ConnectionWatch::cancelAll() {
  std::lock_guard lock(mutex_);
  for (auto& [id, e] : entries_) e.cancel->store(true);
}

void ConnectionWatch::loop() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, kInterval, [&] { return stop_; });
    // under the lock: forget() waits, so no socket is closed (and reused) while looked at
    for (auto& [id, e] : entries_)
      if (e.socket >= 0 && !e.cancel->load() && peerClosed(e.socket)) e.cancel->store(true);
  }
}

}  // namespace ts::server
