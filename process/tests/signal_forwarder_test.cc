// SignalForwarder: SIGINT/SIGTERM sent to this (test) process reach the callback, and the
// handlers in place before are back afterwards (run_forwarding_interrupts, the dbt side:
// providers/dbt/cli/tests/interrupt_forwarding_test.cc).
#include "ods/process/signal_forwarder.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <csignal>
#include <mutex>

#include "process/tests/test_programs.h"

namespace ods::process {
namespace {

namespace fs = std::filesystem;
using testing::current_action;
using testing::custom_handler;
using testing::CustomHandlers;
using testing::g_custom_handler_calls;

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

}  // namespace
}  // namespace ods::process
