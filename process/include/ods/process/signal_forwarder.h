#pragma once
// Ctrl-C while a child runs: ods catches SIGINT and SIGTERM and hands them to whoever runs the
// child (dbt: ods/dbt/cli/interrupt_forwarding.h), instead of dying and leaving it behind.
#include <atomic>
#include <functional>
#include <memory>
#include <thread>

#include "ods/base/result.h"

namespace ods::process {

class SignalForwarder {
 public:
  // Installs handlers for SIGINT and SIGTERM. Each signal received from then on calls
  // `on_signal(signal number)` on a watcher thread owned by the forwarder (so it may take
  // locks; exceptions it throws are dropped). At most one forwarder exists per process.
  // Errors: "conflict" when another forwarder is alive; "io" when the pipe, the
  // thread or sigaction fails (nothing is left installed).
  [[nodiscard]] static Result<std::unique_ptr<SignalForwarder>> install(std::function<void(int signal)> on_signal);

  // Puts back the handlers that were in place before install(), then delivers the signals
  // that were already caught and stops the watcher thread.
  ~SignalForwarder();
  SignalForwarder(const SignalForwarder&) = delete;
  SignalForwarder& operator=(const SignalForwarder&) = delete;

  // The first signal caught, 0 when none. Thread-safe.
  [[nodiscard]] int received() const { return received_.load(); }

 private:
  struct Installation;
  explicit SignalForwarder(std::unique_ptr<Installation> installation);
  void watch();

  std::unique_ptr<Installation> installation_;
  std::atomic<int> received_{0};
  std::thread watcher_;
};

}  // namespace ods::process
