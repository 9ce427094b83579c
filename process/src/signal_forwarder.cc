#include "ods/process/signal_forwarder.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <system_error>

namespace ods::process {
namespace {

constexpr std::array<int, 2> kForwarded{SIGINT, SIGTERM};
constexpr unsigned char kStop = 0;  // written by the destructor to end the watcher

static_assert(std::atomic<int>::is_always_lock_free, "the signal handler reads an atomic int");
std::atomic<int> g_signal_pipe{-1};  // write end, for the handler
std::atomic<bool> g_installed{false};

extern "C" void forward_signal(int signal_number) {
  const int saved_errno = errno;
  const int fd = g_signal_pipe.load();
  if (fd >= 0) {
    const auto byte = static_cast<unsigned char>(signal_number);
    [[maybe_unused]] const ssize_t written = ::write(fd, &byte, 1);  // full pipe: dropped, one is pending anyway
  }
  errno = saved_errno;
}

std::string errno_text(int err) { return std::error_code(err, std::generic_category()).message(); }

}  // namespace

struct SignalForwarder::Installation {
  std::function<void(int)> on_signal;
  int read_fd = -1;
  int write_fd = -1;
  std::array<struct sigaction, kForwarded.size()> previous{};
  std::size_t handlers_installed = 0;

  ~Installation() {
    for (std::size_t i = 0; i < handlers_installed; ++i) ::sigaction(kForwarded[i], &previous[i], nullptr);
    g_signal_pipe.store(-1);
    if (read_fd >= 0) ::close(read_fd);
    if (write_fd >= 0) ::close(write_fd);
    g_installed.store(false);
  }
};

Result<std::unique_ptr<SignalForwarder>> SignalForwarder::install(std::function<void(int signal)> on_signal) {
  bool expected = false;
  if (!g_installed.compare_exchange_strong(expected, true))
    return fail("conflict", "a signal forwarder is already installed in this process.");
  auto installation = std::make_unique<Installation>();
  installation->on_signal = std::move(on_signal);
  std::array<int, 2> ends{};
  if (::pipe2(ends.data(), O_CLOEXEC) != 0)
    return fail("io", "cannot create the signal pipe: " + errno_text(errno) + ".");
  installation->read_fd = ends[0];
  installation->write_fd = ends[1];
  ::fcntl(installation->write_fd, F_SETFL, O_NONBLOCK);
  g_signal_pipe.store(installation->write_fd);

  struct sigaction action {};
  action.sa_handler = forward_signal;
  action.sa_flags = SA_RESTART;
  ::sigemptyset(&action.sa_mask);
  for (int signal_number : kForwarded) ::sigaddset(&action.sa_mask, signal_number);
  for (std::size_t i = 0; i < kForwarded.size(); ++i) {
    if (::sigaction(kForwarded[i], &action, &installation->previous[i]) != 0)
      return fail("io", "cannot install a handler for signal " + std::to_string(kForwarded[i]) + ": " +
                            errno_text(errno) + ".");
    installation->handlers_installed = i + 1;
  }
  try {
    return std::unique_ptr<SignalForwarder>(new SignalForwarder(std::move(installation)));
  } catch (const std::system_error& e) {
    return fail("io", std::string("cannot start the signal watcher thread: ") + e.what() + ".");
  }
}

SignalForwarder::SignalForwarder(std::unique_ptr<Installation> installation)
    : installation_(std::move(installation)), watcher_([this] { watch(); }) {}

SignalForwarder::~SignalForwarder() {
  // Handlers first, so no signal lands in the pipe after the stop byte.
  for (std::size_t i = 0; i < installation_->handlers_installed; ++i)
    ::sigaction(kForwarded[i], &installation_->previous[i], nullptr);
  installation_->handlers_installed = 0;
  g_signal_pipe.store(-1);
  const unsigned char stop = kStop;
  while (::write(installation_->write_fd, &stop, 1) < 0 && (errno == EINTR || errno == EAGAIN)) {
  }
  watcher_.join();
}

void SignalForwarder::watch() {
  for (;;) {
    unsigned char byte = kStop;
    const ssize_t n = ::read(installation_->read_fd, &byte, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || byte == kStop) return;
    const int signal_number = byte;
    int none = 0;
    received_.compare_exchange_strong(none, signal_number);
    try {
      if (installation_->on_signal) installation_->on_signal(signal_number);
    } catch (...) {  // NOLINT(bugprone-empty-catch): a watcher thread has nobody to report to
    }
  }
}

}  // namespace ods::process
