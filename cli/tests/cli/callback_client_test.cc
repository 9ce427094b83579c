// `ods pod`'s client: retries while the controller is unreachable or answers 5xx, tells each
// retry, gives up after the bounded time, and hands 4xx answers back at once.
#include "callback_client.h"

#include <cpprest/http_listener.h>
#include <gtest/gtest.h>

#include <atomic>
#include <sstream>

#include "harness/loopback_port.h"

namespace ods::cli {
namespace {

using web::http::http_request;
using web::http::experimental::listener::http_listener;

// A listener on a free loopback port answering `statuses` in turn (the last one repeats).
class ScriptedController {
 public:
  explicit ScriptedController(std::vector<int> statuses, std::string code = "x")
      : statuses_(std::move(statuses)), code_(std::move(code)) {
    for (int attempt = 0; attempt < 5 && !listener_; ++attempt) {
      auto port = ods::testing::free_loopback_port();
      if (!port) continue;
      url_ = "http://127.0.0.1:" + std::to_string(*port);
      auto listener = std::make_unique<http_listener>(web::uri(url_));
      listener->support([this](http_request r) {
        const std::size_t i = std::min<std::size_t>(calls_++, statuses_.size() - 1);
        last_authorization_ = r.headers().find("Authorization")->second;
        r.reply(static_cast<web::http::status_code>(statuses_[i]),
                R"({"error":{"code":")" + code_ + R"(","field":"probe","message":"scripted"}})", "application/json");
      });
      try {
        listener->open().wait();
        listener_ = std::move(listener);
      } catch (const std::exception&) {
      }
    }
  }
  ~ScriptedController() {
    if (listener_) listener_->close().wait();
  }
  const std::string& url() const { return url_; }
  int calls() const { return calls_; }
  std::string last_authorization_;

 private:
  std::vector<int> statuses_;
  std::string code_;
  std::atomic<int> calls_{0};
  std::string url_;
  std::unique_ptr<http_listener> listener_;
};

TEST(CallbackClient, RetriesA5xxAnswerWithBackoffUntilAnAnswerComes) {
  ScriptedController controller({503, 500, 200});
  std::ostringstream err;
  std::vector<long> waits;
  auto answer = post_to_controller({controller.url(), "team/run-1", "tok", std::chrono::seconds(60)}, "inputs", "{}",
                                   err, [&](std::chrono::seconds s) { waits.push_back(s.count()); });
  ASSERT_TRUE(answer) << answer.error().message;
  EXPECT_EQ(answer->status, 200);
  EXPECT_EQ(controller.calls(), 3);
  EXPECT_EQ(waits, (std::vector<long>{1, 2}));
  EXPECT_EQ(controller.last_authorization_, "Bearer tok");
  EXPECT_NE(err.str().find("answered 503: probe: scripted; retrying inputs in 1 s"), std::string::npos) << err.str();
}

// The Service in front of the replicas may send a request to a follower, which answers 503
// not_leader: the pod retries at once (1 s) every time, as the next connection may reach the leader.
TEST(CallbackClient, RetriesAFollowersNotLeaderAnswerWithoutBackingOff) {
  ScriptedController controller({503, 503, 503, 503, 200}, "not_leader");
  std::ostringstream err;
  std::vector<long> waits;
  auto answer = post_to_controller({controller.url(), "team/run-1", "tok", std::chrono::seconds(60)}, "inputs", "{}",
                                   err, [&](std::chrono::seconds s) { waits.push_back(s.count()); });
  ASSERT_TRUE(answer) << answer.error().message;
  EXPECT_EQ(answer->status, 200);
  EXPECT_EQ(waits, (std::vector<long>{1, 1, 1, 1}));
}

TEST(CallbackClient, HandsA4xxAnswerBackWithoutRetrying) {
  ScriptedController controller({409});
  std::ostringstream err;
  auto answer = post_to_controller({controller.url(), "team/run-1", "tok", std::chrono::seconds(60)}, "results", "{}",
                                   err, [](std::chrono::seconds) { FAIL() << "no retry expected"; });
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 409);
  EXPECT_EQ(callback_error_text(*answer), "probe: scripted");
  EXPECT_TRUE(err.str().empty());
}

TEST(CallbackClient, GivesUpOnAnUnreachableControllerAfterTheRetryTime) {
  auto port = ods::testing::free_loopback_port();  // nothing listens there
  ASSERT_TRUE(port);
  std::ostringstream err;
  auto answer =
      post_to_controller({"http://127.0.0.1:" + std::to_string(*port), "team/run-1", "tok", std::chrono::seconds(2)},
                         "inputs", "{}", err);  // real waits: 1 s fits in 2 s, the next 2 s do not
  ASSERT_FALSE(answer);
  EXPECT_EQ(answer.error().code, "unavailable");
  EXPECT_NE(answer.error().message.find("within 2 s"), std::string::npos) << answer.error().message;
  std::size_t retries = 0;
  for (std::size_t at = err.str().find("retrying"); at != std::string::npos; at = err.str().find("retrying", at + 1))
    ++retries;
  EXPECT_EQ(retries, 1u) << err.str();
  EXPECT_NE(err.str().find("unreachable"), std::string::npos) << err.str();
}

}  // namespace
}  // namespace ods::cli
