#include "ods/control/controller.h"

#include <gtest/gtest.h>

#include <map>
#include <mutex>

#include "fake_clock.h"
#include "harness/eventually.h"

namespace ods::control {
namespace {

using namespace std::chrono_literals;
using ods::testing::eventually;

// A reconciler that answers from a script per key and records what it was called with.
class ScriptedReconciler final : public Reconciler {
 public:
  Result<ReconcileResult> reconcile(const kube::ObjectKey& key) override {
    std::lock_guard lock(mutex_);
    calls_.push_back(key.str());
    auto& script = scripts_[key.str()];
    if (script.empty()) return ReconcileResult{};
    auto next = script.front();
    script.erase(script.begin());
    return next;
  }
  void script(const std::string& key, std::vector<Result<ReconcileResult>> answers) {
    std::lock_guard lock(mutex_);
    scripts_[key] = std::move(answers);
  }
  std::vector<std::string> calls() {
    std::lock_guard lock(mutex_);
    return calls_;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::vector<Result<ReconcileResult>>> scripts_;
  std::vector<std::string> calls_;
};

TEST(Controller, ErrorsBackOffSuccessForgetsAndRequeueAfterSchedules) {
  testing::FakeClock clock;
  WorkQueue queue(clock);
  ScriptedReconciler reconciler;
  ReconcileCounters counters;
  std::vector<std::string> errors;
  Controller controller(
      {.name = "dbtrun",
       .workers = 1,
       .on_error = [&](const std::string& key, const Error& error) { errors.push_back(key + ": " + error.message); }},
      queue, reconciler, &counters);
  reconciler.script("ns/r1", {fail("kube_api", "boom"), fail("kube_api", "boom again"),
                              ReconcileResult{std::chrono::milliseconds(10min)}, ReconcileResult{}});
  queue.add("ns/r1");
  EXPECT_TRUE(controller.process_one());
  EXPECT_EQ(queue.failures("ns/r1"), 1);
  EXPECT_FALSE(controller.process_one());  // backing off
  clock.advance(5ms);
  EXPECT_TRUE(controller.process_one());
  EXPECT_EQ(queue.failures("ns/r1"), 2);
  clock.advance(9ms);
  EXPECT_FALSE(controller.process_one());
  clock.advance(1ms);
  EXPECT_TRUE(controller.process_one());  // success with requeue_after
  EXPECT_EQ(queue.failures("ns/r1"), 0);
  clock.advance(9min);
  EXPECT_FALSE(controller.process_one());
  clock.advance(1min);
  EXPECT_TRUE(controller.process_one());
  EXPECT_FALSE(controller.process_one());
  EXPECT_EQ(reconciler.calls().size(), 4u);
  EXPECT_EQ(counters.total("dbtrun", "error"), 2u);
  EXPECT_EQ(counters.total("dbtrun", "requeue_after"), 1u);
  EXPECT_EQ(counters.total("dbtrun", "success"), 1u);
  EXPECT_EQ(queue.retries_total(), 2u);
  EXPECT_EQ(errors, (std::vector<std::string>{"ns/r1: boom", "ns/r1: boom again"}));
}

class ThrowingReconciler final : public Reconciler {
 public:
  Result<ReconcileResult> reconcile(const kube::ObjectKey&) override { throw std::runtime_error("bad object"); }
};

TEST(Controller, AnExceptionFromTheReconcilerIsAnErrorThatBacksOff) {
  testing::FakeClock clock;
  WorkQueue queue(clock);
  ThrowingReconciler reconciler;
  ReconcileCounters counters;
  std::string reported;
  Controller controller({.name = "dbtrun",
                         .workers = 1,
                         .on_error = [&](const std::string&, const Error& error) { reported = error.message; }},
                        queue, reconciler, &counters);
  queue.add("ns/r1");
  EXPECT_TRUE(controller.process_one());
  EXPECT_EQ(counters.total("dbtrun", "error"), 1u);
  EXPECT_EQ(queue.failures("ns/r1"), 1);
  EXPECT_EQ(reported, "reconciling ns/r1: bad object");
}

TEST(Controller, WorkersReconcileEveryQueuedKeyAndStopCleanly) {
  WorkQueue queue;
  ScriptedReconciler reconciler;
  ReconcileCounters counters;
  Controller controller({.name = "dbtproject", .workers = 3, .on_error = {}}, queue, reconciler, &counters);
  controller.start();
  for (int i = 0; i < 50; ++i) queue.add("ns/p" + std::to_string(i));
  EXPECT_TRUE(eventually(30s, [&] { return counters.total("dbtproject", "success") >= 50; }))
      << counters.total("dbtproject", "success") << " of 50 reconciled";
  controller.stop();
  EXPECT_EQ(reconciler.calls().size(), 50u);
  EXPECT_EQ(queue.depth(), 0u);
}

}  // namespace
}  // namespace ods::control
