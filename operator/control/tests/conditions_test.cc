#include "ods/control/conditions.h"

#include <gtest/gtest.h>

#include "fake_client.h"
#include "fake_clock.h"
#include "ods/control/events.h"

namespace ods::control {
namespace {

using namespace std::chrono_literals;

TEST(Conditions, TransitionTimeChangesOnlyWhenTheStatusFlips) {
  testing::FakeClock clock;
  Json conditions;
  set_condition(conditions, {"Ready", "False", "Pending", "waiting", 1}, clock.now());
  const std::string first = conditions[0]["lastTransitionTime"];
  EXPECT_EQ(first, "2026-03-02T10:00:00Z");

  clock.advance(1min);
  set_condition(conditions, {"Ready", "False", "StillPending", "still waiting", 2}, clock.now());
  EXPECT_EQ(conditions[0]["lastTransitionTime"], first);  // same status: time kept
  EXPECT_EQ(conditions[0]["reason"], "StillPending");
  EXPECT_EQ(conditions[0]["message"], "still waiting");
  EXPECT_EQ(conditions[0]["observedGeneration"], 2);

  clock.advance(1min);
  set_condition(conditions, {"Ready", "True", "Succeeded", "", 2}, clock.now());
  EXPECT_EQ(conditions[0]["lastTransitionTime"], "2026-03-02T10:02:00Z");
  EXPECT_EQ(conditions.size(), 1u);
}

TEST(Conditions, ReconcilingAndStalledArePresentOnlyWhileTrue) {
  testing::FakeClock clock;
  Json conditions = Json::array();
  set_condition(conditions, {"Ready", "Unknown", "Building", "", 1}, clock.now());
  set_condition(conditions, {"Reconciling", "True", "Building", "", 1}, clock.now());
  set_condition(conditions, {"Stalled", "False", "Fine", "", 1}, clock.now());
  ASSERT_EQ(conditions.size(), 2u);
  EXPECT_NE(find_condition(conditions, "Reconciling"), nullptr);
  EXPECT_EQ(find_condition(conditions, "Stalled"), nullptr);
  set_condition(conditions, {"Reconciling", "False", "Done", "", 1}, clock.now());
  EXPECT_EQ(find_condition(conditions, "Reconciling"), nullptr);
  EXPECT_EQ(conditions.size(), 1u);
}

TEST(Events, AnEventNamesItsObjectReasonTypeAndTheOperator) {
  testing::FakeClient client;
  testing::FakeClock clock;
  EventRecorder events(client, clock, "ods-operator-0");
  const Json run = {{"apiVersion", "ods.dev/v1alpha1"},
                    {"kind", "DbtRun"},
                    {"metadata", {{"name", "r1"}, {"namespace", "ns"}, {"uid", "u-1"}, {"resourceVersion", "7"}}}};
  EXPECT_TRUE(events.record(run, EventType::warning, "RunFailed", "the pod exited with 3"));
  const auto stored = client.objects(kCoreEvents, "ns");
  ASSERT_EQ(stored.size(), 1u);
  const Json& event = stored[0];
  EXPECT_EQ(event["involvedObject"]["kind"], "DbtRun");
  EXPECT_EQ(event["involvedObject"]["name"], "r1");
  EXPECT_EQ(event["involvedObject"]["uid"], "u-1");
  EXPECT_EQ(event["involvedObject"]["apiVersion"], "ods.dev/v1alpha1");
  EXPECT_EQ(event["reason"], "RunFailed");
  EXPECT_EQ(event["message"], "the pod exited with 3");
  EXPECT_EQ(event["type"], "Warning");
  EXPECT_EQ(event["reportingComponent"], "ods-operator");
  EXPECT_EQ(event["reportingInstance"], "ods-operator-0");
  EXPECT_EQ(event["firstTimestamp"], "2026-03-02T10:00:00Z");

  client.fail_next("create", kCoreEvents, {500, "InternalError", "etcd is down"});
  EXPECT_FALSE(events.record(run, EventType::normal, "RunCreated", "x"));
  EXPECT_EQ(events.failures(), 1u);
}

}  // namespace
}  // namespace ods::control
