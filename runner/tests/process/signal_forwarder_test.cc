// Ctrl-C forwarding: SIGINT/SIGTERM sent to this (test) process reach the running fake dbt,
// and the handlers in place before are back afterwards.
#include "process/signal_forwarder.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <csignal>
#include <mutex>

#include "process/test_programs.h"

namespace ods::process {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

std::atomic<int> g_custom_handler_calls{0};
extern "C" void custom_handler(int) { g_custom_handler_calls.fetch_add(1); }

struct sigaction current_action(int signal_number) {
  struct sigaction action {};
  ::sigaction(signal_number, nullptr, &action);
  return action;
}

// Installs `custom_handler` for SIGINT and SIGTERM for the test's duration.
class CustomHandlers {
 public:
  CustomHandlers() {
    struct sigaction action {};
    action.sa_handler = custom_handler;
    ::sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, &saved_int_);
    ::sigaction(SIGTERM, &action, &saved_term_);
  }
  ~CustomHandlers() {
    ::sigaction(SIGINT, &saved_int_, nullptr);
    ::sigaction(SIGTERM, &saved_term_, nullptr);
  }

 private:
  struct sigaction saved_int_ {};
  struct sigaction saved_term_ {};
};

TEST(SignalForwarder, HandsSigintAndSigtermToTheCallback) {
  std::mutex mu;
  std::condition_variable changed;
  std::vector<int> got;
  auto forwarder = SignalForwarder::install([&](int signal_number) {
    std::lock_guard lock(mu);
    got.push_back(signal_number);
    changed.notify_all();
  });
  ASSERT_TRUE(forwarder) << forwarder.error().message;
  EXPECT_EQ((*forwarder)->received(), 0);
  ASSERT_EQ(::raise(SIGINT), 0);  // would end the test process without the forwarder
  ASSERT_EQ(::raise(SIGTERM), 0);
  std::unique_lock lock(mu);
  ASSERT_TRUE(changed.wait_for(lock, std::chrono::seconds(20), [&] { return got.size() == 2; }));
  EXPECT_EQ(got, (std::vector<int>{SIGINT, SIGTERM}));
  EXPECT_EQ((*forwarder)->received(), SIGINT);
}

TEST(SignalForwarder, PutsThePreviousHandlersBack) {
  CustomHandlers custom;
  {
    auto forwarder = SignalForwarder::install([](int) {});
    ASSERT_TRUE(forwarder);
    EXPECT_NE(current_action(SIGINT).sa_handler, custom_handler);
  }
  EXPECT_EQ(current_action(SIGINT).sa_handler, custom_handler);
  EXPECT_EQ(current_action(SIGTERM).sa_handler, custom_handler);
  const int before = g_custom_handler_calls.load();
  ASSERT_EQ(::raise(SIGINT), 0);
  EXPECT_EQ(g_custom_handler_calls.load(), before + 1);
}

TEST(SignalForwarder, OnlyOneAtATime) {
  auto first = SignalForwarder::install([](int) {});
  ASSERT_TRUE(first);
  auto second = SignalForwarder::install([](int) {});
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code, "conflict");
  first->reset();
  auto third = SignalForwarder::install([](int) {});
  EXPECT_TRUE(third);
}

// A fake dbt that announces a node, then waits; on SIGINT it records it and exits as dbt does.
fs::path patient_dbt(const TempDir& dir) {
  const fs::path start = dir.write(
      "start.json",
      R"({"info": {"name": "LogStartLine", "level": "info", "msg": "1 of 3 START"}, "data": {"index": 1, "total": 3}})"
      "\n");
  return dir.script("dbt", "trap \"echo got-int > '" + (dir.path() / "got").string() + "'; exit 2\" INT\ncat '" +
                               start.string() + "'\nwhile :; do sleep 1; done");
}

TEST(RunForwardingInterrupts, CtrlCStopsDbtAndTheRunIsInterrupted) {
  CustomHandlers custom;
  TempDir dir;
  auto launcher = make_process_launcher();
  DbtInvocationOptions options;
  options.dbt = patient_dbt(dir);
  options.args = {"build"};
  options.project_dir = dir.path();
  DbtInvocation invocation(*launcher, options);
  invocation.set_event_callback([](const DbtEvent& e) {
    if (e.name == "LogStartLine") ::kill(::getpid(), SIGINT);  // the user presses Ctrl-C
  });
  const int custom_calls = g_custom_handler_calls.load();

  auto result = run_forwarding_interrupts(invocation);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->outcome, DbtOutcome::kInterrupted);
  EXPECT_TRUE(result->exit.interrupted);
  EXPECT_EQ(result->exit.last_signal_sent, SIGINT);
  EXPECT_EQ(dir.read("got"), "got-int\n");
  EXPECT_EQ(g_custom_handler_calls.load(), custom_calls) << "the signal went to the forwarder, not the old handler";
  EXPECT_EQ(current_action(SIGINT).sa_handler, custom_handler);
}

TEST(RunForwardingInterrupts, WithoutASignalTheRunIsUntouched) {
  CustomHandlers custom;
  TempDir dir;
  auto launcher = make_process_launcher();
  DbtInvocationOptions options;
  options.dbt = dir.script("dbt", "exit 0");
  options.project_dir = dir.path();
  DbtInvocation invocation(*launcher, options);
  auto result = run_forwarding_interrupts(invocation);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->outcome, DbtOutcome::kSucceeded);
  EXPECT_FALSE(result->exit.interrupted);
  EXPECT_EQ(current_action(SIGTERM).sa_handler, custom_handler);
}

TEST(RunForwardingInterrupts, FailsWhenAnotherForwarderIsInstalled) {
  auto outer = SignalForwarder::install([](int) {});
  ASSERT_TRUE(outer);
  TempDir dir;
  auto launcher = make_process_launcher();
  DbtInvocationOptions options;
  options.dbt = dir.script("dbt", "touch '" + (dir.path() / "ran").string() + "'");
  options.project_dir = dir.path();
  DbtInvocation invocation(*launcher, options);
  auto result = run_forwarding_interrupts(invocation);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, "conflict");
  EXPECT_FALSE(dir.exists("ran"));
}

}  // namespace
}  // namespace ods::process
