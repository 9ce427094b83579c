// Structured logs: every line is one JSON object with ts (RFC 3339 UTC, ms), level, logger, msg
// and the fields; the threshold filters; escaping holds for any text; threads keep lines whole.
#include "ods/telemetry/json_log.h"

#include <gtest/gtest.h>

#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>
#include <vector>

namespace ods::telemetry {
namespace {

using nlohmann::json;

class CapturedLines final : public LogOutput {
 public:
  void write_line(std::string_view line) override {
    std::lock_guard lock(mutex_);
    lines_.emplace_back(line);
  }
  std::vector<std::string> lines() const {
    std::lock_guard lock(mutex_);
    return lines_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
};

// 2026-11-30T02:25:18.123Z
std::chrono::system_clock::time_point fixed_time() {
  using namespace std::chrono;
  return sys_days{year{2026} / 11 / 30} + hours{2} + minutes{25} + seconds{18} + milliseconds{123};
}

struct LogTest : ::testing::Test {
  std::shared_ptr<CapturedLines> out = std::make_shared<CapturedLines>();
  const FixedClock clock{fixed_time()};
  Logger root{"ods-operator", LogLevel::info, out, clock};
};

TEST_F(LogTest, ALineIsOneJsonObjectWithTheStandardKeysAndTheFields) {
  root.child("controller")
      .child("dbtrun")
      .info("run succeeded", {{"namespace", "analytics"},
                              {"run", std::string("shop-7")},
                              {"built", 3},
                              {"reused", 9U},
                              {"seconds", 41.5},
                              {"first", false}});
  const auto lines = out->lines();
  ASSERT_EQ(lines.size(), 1U);
  EXPECT_EQ(lines[0], R"({"ts":"2026-11-30T02:25:18.123Z","level":"info","logger":"ods-operator.controller.dbtrun",)"
                      R"("msg":"run succeeded","namespace":"analytics","run":"shop-7","built":3,"reused":9,)"
                      R"("seconds":41.5,"first":false})");
  const json parsed = json::parse(lines[0]);
  EXPECT_EQ(parsed["built"], 3);
  EXPECT_EQ(parsed["seconds"], 41.5);
}

TEST_F(LogTest, TheTimestampIsRfc3339UtcWithMilliseconds) {
  Logger live("live", LogLevel::info, out);
  live.warn("now");
  const json parsed = json::parse(out->lines().at(0));
  EXPECT_TRUE(
      std::regex_match(parsed["ts"].get<std::string>(), std::regex(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)")))
      << parsed["ts"];
  EXPECT_EQ(parsed["level"], "warn");
}

TEST_F(LogTest, TheThresholdFiltersAndIsSharedWithChildren) {
  Logger child = root.child("kube");
  root.debug("hidden");
  child.debug("hidden too");
  child.info("shown");
  root.set_threshold(LogLevel::error);
  child.warn("hidden now");
  child.error("failed", {{"error", "403 Forbidden"}});
  root.set_threshold(LogLevel::debug);
  root.debug("visible at debug");
  std::vector<std::string> messages;
  std::vector<std::string> levels;
  for (const auto& line : out->lines()) {
    const json parsed = json::parse(line);
    messages.push_back(parsed["msg"]);
    levels.push_back(parsed["level"]);
  }
  EXPECT_EQ(messages, (std::vector<std::string>{"shown", "failed", "visible at debug"}));
  EXPECT_EQ(levels, (std::vector<std::string>{"info", "error", "debug"}));
}

TEST_F(LogTest, AnyTextIsEscapedIntoValidJson) {
  const std::string nasty = std::string("quote\" backslash\\ newline\n tab\t nul") + '\0' + " bell\x07 é ✓";
  const std::string invalid_utf8 = "bad \xff\xfe bytes \xc3";
  root.error(nasty, {{"key with \"quotes\"", nasty}, {"raw", invalid_utf8}, {"nan", std::nan("")}});
  const auto lines = out->lines();
  ASSERT_EQ(lines.size(), 1U);
  EXPECT_EQ(lines[0].find('\n'), std::string::npos) << "a line break inside a line";
  const json parsed = json::parse(lines[0]);
  EXPECT_EQ(parsed["msg"], nasty);
  EXPECT_EQ(parsed["key with \"quotes\""], nasty);
  EXPECT_EQ(parsed["raw"], "bad \u00ff\u00fe bytes \u00c3") << "each invalid byte as \\u00XX";
  EXPECT_EQ(parsed["nan"], "nan");
}

TEST_F(LogTest, ThreadsLoggingAtOnceKeepEveryLineWhole) {
  constexpr int kThreads = 4;
  constexpr int kLines = 500;
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      Logger mine = root.child("worker" + std::to_string(t));
      for (int i = 0; i < kLines; ++i) mine.info("line", {{"thread", t}, {"i", i}, {"pad", std::string(200, 'x')}});
    });
  for (auto& thread : threads) thread.join();
  const auto lines = out->lines();
  ASSERT_EQ(lines.size(), static_cast<std::size_t>(kThreads * kLines));
  std::vector<int> per_thread(kThreads, 0);
  for (const auto& line : lines) {
    const json parsed = json::parse(line);
    ++per_thread.at(parsed["thread"].get<int>());
  }
  EXPECT_EQ(per_thread, std::vector<int>(kThreads, kLines));
}

TEST(LogLevelTest, NamesParseBack) {
  LogLevel level = LogLevel::info;
  for (LogLevel l : {LogLevel::debug, LogLevel::info, LogLevel::warn, LogLevel::error}) {
    ASSERT_TRUE(parse_log_level(to_string(l), level));
    EXPECT_EQ(level, l);
  }
  EXPECT_TRUE(parse_log_level("warning", level));
  EXPECT_EQ(level, LogLevel::warn);
  EXPECT_FALSE(parse_log_level("verbose", level));
}

}  // namespace
}  // namespace ods::telemetry
