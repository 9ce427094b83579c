// LeaderGate: a follower's callback port answers 503 not_leader (the pod retries); the leader's
// service answers once opened; close() waits for the request in flight, then refuses again.
#include "ods/callback/leader_gate.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <nlohmann/json.hpp>
#include <thread>

namespace ods::callback {
namespace {

// The leader's service: answers 200 with a fixed body, holding each request until released.
class HeldService final : public CallbackService {
 public:
  CallbackResponse handle(const CallbackRequest&) override {
    entered = true;
    while (!released) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return {200, R"({"selection": "leader"})"};
  }
  ~HeldService() override { *destroyed = true; }
  std::atomic<bool> entered{false}, released{true};
  std::shared_ptr<std::atomic<bool>> destroyed = std::make_shared<std::atomic<bool>>(false);
};

const CallbackRequest kRequest{"POST", "/v1/runs/team/run-1/inputs", "Bearer t", "{}"};

TEST(LeaderGateTest, AClosedGateAnswers503NotLeaderWithAClearMessage) {
  LeaderGate gate;
  const CallbackResponse r = gate.handle(kRequest);
  EXPECT_EQ(r.status, 503);
  const auto error = nlohmann::json::parse(r.body)["error"];
  EXPECT_EQ(error["code"], kNotLeaderCode);
  EXPECT_NE(error["message"].get<std::string>().find("not the leader"), std::string::npos) << r.body;
}

TEST(LeaderGateTest, AnOpenGateHandsRequestsToTheLeadersServiceUntilClosed) {
  LeaderGate gate;
  gate.open(std::make_unique<HeldService>());
  EXPECT_EQ(gate.handle(kRequest).status, 200);
  gate.close();
  EXPECT_EQ(gate.handle(kRequest).status, 503);
  gate.close();  // idempotent
  EXPECT_EQ(gate.handle(kRequest).status, 503);
}

TEST(LeaderGateTest, CloseWaitsForTheRequestInFlightBeforeDestroyingTheService) {
  LeaderGate gate;
  auto service = std::make_unique<HeldService>();
  HeldService& held = *service;
  auto destroyed = service->destroyed;
  held.released = false;
  gate.open(std::move(service));
  auto in_flight = std::async(std::launch::async, [&] { return gate.handle(kRequest); });
  while (!held.entered) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  auto closing = std::async(std::launch::async, [&] { gate.close(); });
  EXPECT_EQ(closing.wait_for(std::chrono::milliseconds(100)), std::future_status::timeout)
      << "close() returned while a request was being handled";
  EXPECT_FALSE(*destroyed);
  held.released = true;
  EXPECT_EQ(in_flight.get().status, 200) << "the request in flight is answered by the leader's service";
  closing.get();
  EXPECT_TRUE(*destroyed);
  EXPECT_EQ(gate.handle(kRequest).status, 503);
}

}  // namespace
}  // namespace ods::callback
