// Fuzz target: the callback server's HTTP endpoint as a whole (operator/callback
// callback_server.h). One server, started in-process on a free 127.0.0.1 port over the in-memory
// store, gets each input as the raw bytes of a connection (then the client's half-close), the way
// a pod's or an attacker's connection would arrive. "$TOKEN" in an input becomes the valid token of
// run team/run-1, so the fuzzer reaches the service behind authentication too.
// Invariants: the server answers (a well-formed HTTP status line) or closes the connection, never
// holds it open past kAnswerDeadline; and after every input it still answers a valid request
// (a request without a token: 401 with the service's JSON error) on a new connection.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
#include <sanitizer/lsan_interface.h>
#define ODS_FUZZ_LEAK_CHECK 1
#endif
#endif

#include "fuzz_support.h"
#include "ods/callback/callback_server.h"
#include "ods/state/stores.h"

namespace {

using namespace std::chrono_literals;

constexpr auto kAnswerDeadline = 5s;  // well inside libFuzzer's -timeout=10 (scripts/fuzz.sh)
const std::string kKey = "callback-endpoint-fuzz-key";

class OneRun final : public ods::callback::RunLookup {
 public:
  ods::Result<std::optional<ods::callback::RunInfo>> find(const std::string& ns, const std::string& name) override {
    if (ns == "team" && name == "run-1") return std::optional<ods::callback::RunInfo>{{"uid-1", "shop", "", "shop"}};
    return std::optional<ods::callback::RunInfo>{};
  }
};

class NoListener final : public ods::callback::RunListener {
 public:
  void on_phase(ods::callback::RunPhase /*phase*/, const ods::callback::RunSummary& /*summary*/) override {}
};

// Whether `received` holds a whole response: headers and a body of its Content-Length (the
// server answers with one; it may keep the connection open afterwards, HTTP/1.1 keep-alive).
bool whole_response(const std::string& received) {
  const auto end = received.find("\r\n\r\n");
  if (end == std::string::npos) return false;
  const auto at = received.find("Content-Length: ");
  if (at == std::string::npos || at > end) return true;
  return received.size() >= end + 4 + std::strtoull(received.c_str() + at + 16, nullptr, 10);
}

// What came back on one connection: the bytes, and whether the server still held it open at the
// deadline without a whole answer.
struct Exchange {
  std::string received;
  bool held_open = false;
  std::string error;  // connect() failed: the server is gone
};

// connect(), finished when a signal (libFuzzer's timers) interrupted it.
bool connected(int fd, const sockaddr_in& addr) {
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0) return true;
  if (errno != EINTR) return false;
  pollfd p{fd, POLLOUT, 0};
  while (::poll(&p, 1, 5000) < 0 && errno == EINTR) {
  }
  int error = 0;
  socklen_t len = sizeof error;
  ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len);
  errno = error;
  return error == 0 && (p.revents & POLLOUT) != 0;
}

Exchange send_and_read(int port, std::string_view request) {
  Exchange out;
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  if (fd < 0 || !connected(fd, addr)) {
    out.error = std::string("connect to 127.0.0.1:") + std::to_string(port) + ": " + std::strerror(errno);
    if (fd >= 0) ::close(fd);
    return out;
  }
  const auto deadline = std::chrono::steady_clock::now() + kAnswerDeadline;
  // The server may answer (and close) before reading everything: a failed send is not a finding.
  for (std::size_t sent = 0; sent < request.size();) {
    const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<std::size_t>(n);
  }
  ::shutdown(fd, SHUT_WR);
  char buffer[4096];
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left <= 0ms) {
      out.held_open = true;
      break;
    }
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;  // timed out or interrupted
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) break;  // closed (or reset): an answer in full or none
    out.received.append(buffer, static_cast<std::size_t>(n));
    if (whole_response(out.received)) break;
  }
  ::close(fd);
  return out;
}

// "HTTP/1.x NNN ..." at the start of `response`, or "" when it does not start with a status line.
std::string status_of(const std::string& response) {
  if (response.size() < 12 || response.compare(0, 7, "HTTP/1.") != 0 || response[8] != ' ') return "";
  std::string code = response.substr(9, 3);
  for (const char c : code)
    if (c < '0' || c > '9') return "";
  return code;
}

std::string replace_tokens(std::string_view input, const std::string& token) {
  std::string out(input);
  for (std::size_t at = 0; (at = out.find("$TOKEN", at)) != std::string::npos; at += token.size())
    out.replace(at, 6, token);
  return out;
}

struct Endpoint {
  std::unique_ptr<ods::contracts::StateStore> store = ods::state::make_memory_store();
  OneRun lookup;
  NoListener listener;
  std::unique_ptr<ods::callback::CallbackServer> server;
  int port = 0;
  std::string token;

  Endpoint() {
    auto tokens = ods::callback::RunTokens::from_key(kKey);
    ods::fuzz::require(tokens.has_value(), "the run tokens could not be made");
    token = tokens->token_for("team", "run-1", "uid-1");
    // A small body limit, so the fuzzer reaches the 413 path with small inputs; port 0: a free one.
    ods::callback::CallbackServerOptions options;
    options.host = "127.0.0.1";
    options.port = 0;
    options.max_body_bytes = 4096;
    auto started =
        ods::callback::start_callback_server(options, ods::callback::CallbackDeps{*tokens, lookup, listener, *store});
    ods::fuzz::require(started.has_value(), "the callback server did not start",
                       started ? "" : started.error().message);
    server = std::move(*started);
    const std::string url = server->url();
    port = std::stoi(url.substr(url.rfind(':') + 1));
  }
};

// At exit: the server is stopped (its threads joined), then LeakSanitizer's check is run, so a
// leak in the server or the service fails the run while nothing of theirs is still in flight.
Endpoint* the_endpoint = nullptr;

void close_server_then_check_leaks() {
  delete the_endpoint;  // the server first (a member declared last)
  the_endpoint = nullptr;
#ifdef ODS_FUZZ_LEAK_CHECK
  __lsan_do_leak_check();  // fails the run on a leak; the end-of-process check is then skipped
#endif
}

Endpoint& endpoint() {
  if (the_endpoint == nullptr) {
    the_endpoint = new Endpoint();  // lives until exit: the server outlives every input
    std::atexit(close_server_then_check_leaks);
  }
  return *the_endpoint;
}

}  // namespace

// NOLINTNEXTLINE(readability-identifier-naming): libFuzzer's entry point
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Endpoint& e = endpoint();
  const std::string request = replace_tokens(ods::fuzz::as_text(data, size), e.token);

  const Exchange got = send_and_read(e.port, request);
  ods::fuzz::require(got.error.empty(), "the server stopped accepting connections", got.error);
  ods::fuzz::require(!got.held_open, "the server neither answered nor closed within the deadline",
                     got.received.substr(0, 200));
  if (!got.received.empty())
    ods::fuzz::require(!status_of(got.received).empty(), "an answer without an HTTP status line",
                       got.received.substr(0, 200));

  static const std::string kProbe =
      "POST /v1/runs/team/run-1/inputs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "Content-Length: 2\r\nConnection: close\r\n\r\n{}";
  const Exchange probe = send_and_read(e.port, kProbe);
  ods::fuzz::require(probe.error.empty() && !probe.held_open, "a valid request after this input got no answer",
                     probe.error + probe.received.substr(0, 200));
  ods::fuzz::require(status_of(probe.received) == "401" && probe.received.find("\"error\"") != std::string::npos,
                     "a valid request after this input was not answered 401 with the service's error",
                     probe.received.substr(0, 300));
  return 0;
}
