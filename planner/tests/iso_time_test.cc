// ISO-8601 timestamps as dbt writes them, and durations for sentences.
#include "ods/planner/iso_time.h"

#include <gtest/gtest.h>

#include <cstdint>

using namespace ods::planner;

namespace {

constexpr std::int64_t kSecond = 1'000'000;
constexpr std::int64_t kNoon = 1'795'953'600 * kSecond;  // 2026-11-29T12:00:00Z

TEST(ParseIso8601, Utc) {
  EXPECT_EQ(parse_iso8601_micros("2026-11-29T12:00:00Z"), kNoon);
  EXPECT_EQ(parse_iso8601_micros("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(parse_iso8601_micros("1969-12-31T23:59:59Z"), -kSecond);
}

TEST(ParseIso8601, ZeroOffsetAndNaiveAreUtc) {
  EXPECT_EQ(parse_iso8601_micros("2026-11-29T12:00:00+00:00"), kNoon);
  EXPECT_EQ(parse_iso8601_micros("2026-11-29T12:00:00"), kNoon);  // naive: read as UTC
  EXPECT_EQ(parse_iso8601_micros("2026-11-29 12:00:00"), kNoon);  // dbt's space separator
}

TEST(ParseIso8601, Offsets) {
  EXPECT_EQ(parse_iso8601_micros("2026-11-29T14:00:00+02:00"), kNoon);
  EXPECT_EQ(parse_iso8601_micros("2026-11-29T14:00:00+0200"), kNoon);
  EXPECT_EQ(parse_iso8601_micros("2026-11-29T14:00:00+02"), kNoon);
  EXPECT_EQ(parse_iso8601_micros("2026-11-29T06:30:00-05:30"), kNoon);
  EXPECT_EQ(parse_iso8601_micros("2026-11-30T01:00:00+13:00"), kNoon);  // crosses a day
}

TEST(ParseIso8601, FractionalSeconds) {
  EXPECT_EQ(parse_iso8601_micros("2026-11-29T12:00:00.123456Z"), kNoon + 123456);
  EXPECT_EQ(parse_iso8601_micros("2026-11-29T12:00:00.5Z"), kNoon + 500000);
  EXPECT_EQ(parse_iso8601_micros("2026-11-29T12:00:00.000001"), kNoon + 1);
  EXPECT_EQ(parse_iso8601_micros("2026-11-29T12:00:00.1234569Z"), kNoon + 123456);  // beyond micros: truncated
  EXPECT_EQ(parse_iso8601_micros("2026-11-29T14:00:00.25+02:00"), kNoon + 250000);
}

TEST(ParseIso8601, RejectsGarbage) {
  for (const char* bad :
       {"", "garbage", "2026-11-29", "2026-11-29T12:00", "2026/11/29T12:00:00Z", "2026-11-29X12:00:00Z",
        "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z", "2026-02-30T00:00:00Z", "2026-11-29T24:00:00Z",
        "2026-11-29T12:60:00Z", "2026-11-29T12:00:00Zjunk", "2026-11-29T12:00:00 ", "2026-11-29T12:00:00.Z",
        "2026-11-29T12:00:00+2", "2026-11-29T12:00:00+02:0", "2026-11-29T12:00:00+02:00x", "20a6-11-29T12:00:00Z",
        "2026-11-29T1x:00:00Z"}) {
    EXPECT_FALSE(parse_iso8601_micros(bad).has_value()) << bad;
  }
}

TEST(FormatIso8601, WritesUtcWithMicros) {
  EXPECT_EQ(format_iso8601_micros(kNoon), "2026-11-29T12:00:00.000000Z");
  EXPECT_EQ(format_iso8601_micros(kNoon + 123456), "2026-11-29T12:00:00.123456Z");
  EXPECT_EQ(format_iso8601_micros(0), "1970-01-01T00:00:00.000000Z");
  EXPECT_EQ(format_iso8601_micros(-1), "1969-12-31T23:59:59.999999Z");
}

TEST(FormatIso8601, RoundTrips) {
  for (std::int64_t m : {kNoon, kNoon + 1, kNoon + 999'999, std::int64_t{0}, std::int64_t{-1}, -kSecond - 7,
                         std::int64_t{951'782'400} * kSecond /* 2000-02-29 */, std::int64_t{4'102'444'799} * kSecond}) {
    auto back = parse_iso8601_micros(format_iso8601_micros(m));
    ASSERT_TRUE(back.has_value()) << format_iso8601_micros(m);
    EXPECT_EQ(*back, m) << format_iso8601_micros(m);
  }
  EXPECT_EQ(format_iso8601_micros(*parse_iso8601_micros("2026-11-29T14:00:00.5+02:00")), "2026-11-29T12:00:00.500000Z");
}

TEST(DescribeDuration, AtMostTwoUnits) {
  EXPECT_EQ(describe_duration(0), "0s");
  EXPECT_EQ(describe_duration(45), "45s");
  EXPECT_EQ(describe_duration(60), "1m");
  EXPECT_EQ(describe_duration(125), "2m 5s");
  EXPECT_EQ(describe_duration(3600), "1h");
  EXPECT_EQ(describe_duration(7500), "2h 5m");
  EXPECT_EQ(describe_duration(7505), "2h 5m");
  EXPECT_EQ(describe_duration(86400), "1d");
  EXPECT_EQ(describe_duration(3 * 86400 + 4 * 3600), "3d 4h");
  EXPECT_EQ(describe_duration(86400 + 3600 + 60 + 1), "1d 1h");
  EXPECT_EQ(describe_duration(-45), "45s");
}

}  // namespace
