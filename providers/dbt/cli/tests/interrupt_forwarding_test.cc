// Ctrl-C while dbt runs: SIGINT sent to this (test) process reaches the running fake dbt, the
// run is interrupted, and the handlers in place before are back afterwards.
#include "ods/dbt/cli/interrupt_forwarding.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>

#include "ods/process/signal_forwarder.h"
#include "process/tests/test_programs.h"

namespace ods::dbt {
namespace {

namespace fs = std::filesystem;
using process::make_process_launcher;
using process::SignalForwarder;
using process::testing::current_action;
using process::testing::custom_handler;
using process::testing::CustomHandlers;
using process::testing::g_custom_handler_calls;
using process::testing::TempDir;

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
  auto launcher = make_process_launcher({});
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
  EXPECT_EQ(result->outcome, DbtOutcome::interrupted);
  EXPECT_TRUE(result->exit.interrupted);
  EXPECT_EQ(result->exit.last_signal_sent, SIGINT);
  EXPECT_EQ(dir.read("got"), "got-int\n");
  EXPECT_EQ(g_custom_handler_calls.load(), custom_calls) << "the signal went to the forwarder, not the old handler";
  EXPECT_EQ(current_action(SIGINT).sa_handler, custom_handler);
}

TEST(RunForwardingInterrupts, WithoutASignalTheRunIsUntouched) {
  CustomHandlers custom;
  TempDir dir;
  auto launcher = make_process_launcher({});
  DbtInvocationOptions options;
  options.dbt = dir.script("dbt", "exit 0");
  options.project_dir = dir.path();
  DbtInvocation invocation(*launcher, options);
  auto result = run_forwarding_interrupts(invocation);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->outcome, DbtOutcome::succeeded);
  EXPECT_FALSE(result->exit.interrupted);
  EXPECT_EQ(current_action(SIGTERM).sa_handler, custom_handler);
}

TEST(RunForwardingInterrupts, FailsWhenAnotherForwarderIsInstalled) {
  auto outer = SignalForwarder::install([](int) {});
  ASSERT_TRUE(outer);
  TempDir dir;
  auto launcher = make_process_launcher({});
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
}  // namespace ods::dbt
