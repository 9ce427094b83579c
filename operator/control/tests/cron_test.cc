#include "ods/control/cron.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "harness/source_paths.h"
#include "ods/control/time_text.h"

namespace ods::control {
namespace {

std::vector<std::string> split_case(const std::string& line) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const auto bar = line.find(" | ", start);
    parts.push_back(line.substr(start, bar == std::string::npos ? std::string::npos : bar - start));
    if (bar == std::string::npos) break;
    start = bar + 3;
  }
  for (auto& part : parts) {
    while (!part.empty() && part.back() == ' ') part.pop_back();
  }
  return parts;
}

TEST(Cron, DataDrivenCases) {
  std::ifstream cases(ods::testing::source_dir() / "operator/control/tests/cron_cases.txt");
  ASSERT_TRUE(cases) << "cron_cases.txt not found";
  std::string line;
  int checked = 0;
  while (std::getline(cases, line)) {
    if (line.empty() || line.starts_with('#')) continue;
    const auto parts = split_case(line);
    SCOPED_TRACE(line);
    const auto schedule = CronSchedule::parse(parts.at(1));
    if (parts.at(0) == "next") {
      ASSERT_TRUE(schedule) << schedule.error().message;
      const auto next = schedule->next_after(*parse_time(parts.at(2)));
      ASSERT_TRUE(next);
      EXPECT_EQ(format_time(*next), parts.at(3));
    } else {
      ASSERT_EQ(parts.at(0), "error");
      ASSERT_FALSE(schedule);
      EXPECT_EQ(schedule.error().code, "invalid_schedule");
      EXPECT_NE(schedule.error().message.find(parts.at(2)), std::string::npos) << schedule.error().message;
    }
    ++checked;
  }
  EXPECT_GE(checked, 40);
}

TEST(Cron, ErrorNamesTheScheduleFieldAndRange) {
  const auto schedule = CronSchedule::parse("99 * * * *");
  ASSERT_FALSE(schedule);
  EXPECT_EQ(schedule.error().message, "schedule \"99 * * * *\": minute field: 99 is out of range 0-59");
}

TEST(Cron, AnEmptyScheduleIsRefused) {
  const auto schedule = CronSchedule::parse("");
  ASSERT_FALSE(schedule);
  EXPECT_NE(schedule.error().message.find("has 0 fields"), std::string::npos);
}

TEST(Cron, TimesRoundTripThroughTheKubernetesFormat) {
  EXPECT_EQ(format_time(*parse_time("2026-03-02T05:59:59.75Z")), "2026-03-02T05:59:59Z");
  EXPECT_EQ(parse_time("yesterday"), std::nullopt);
}

}  // namespace
}  // namespace ods::control
