#include "harness/loopback_port.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ods::testing {

std::expected<int, std::string> free_loopback_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return std::unexpected(std::string("socket(): ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    std::string error = std::string("bind(127.0.0.1:0): ") + std::strerror(errno);
    ::close(fd);
    return std::unexpected(error);
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

std::expected<std::string, std::string> loopback_exchange(int port, const std::string& request, int timeout_seconds,
                                                          const std::function<void()>& on_sent) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return std::unexpected(std::string("socket(): ") + std::strerror(errno));
  timeval timeout{.tv_sec = timeout_seconds, .tv_usec = 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    std::string error = "connect to 127.0.0.1:" + std::to_string(port) + ": " + std::strerror(errno);
    ::close(fd);
    return std::unexpected(error);
  }
  for (std::size_t sent = 0; sent < request.size();) {
    const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // the server stopped reading: its answer may be waiting
    sent += static_cast<std::size_t>(n);
  }
  if (on_sent) on_sent();
  std::string response;
  char buffer[4096];
  for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) response.append(buffer, static_cast<size_t>(n));
  ::close(fd);
  return response;
}

std::expected<std::string, std::string> loopback_http_get(int port, const std::string& path) {
  const std::string where = "http://127.0.0.1:" + std::to_string(port) + path;
  auto response = loopback_exchange(port, "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
  if (!response) return std::unexpected(response.error() + " (" + where + ")");
  if (response->empty()) return std::unexpected("no response from " + where);
  return response;
}

}  // namespace ods::testing
