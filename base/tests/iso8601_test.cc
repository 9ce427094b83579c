// The one ISO-8601 parser: what it accepts, what it refuses, and that formatting round-trips.
#include "ods/base/iso8601.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace ods {
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
  EXPECT_EQ(parse_iso8601_micros("2026-11-29T12:00:00-00:00"), kNoon);
  EXPECT_EQ(parse_iso8601_micros("2026-11-29T12:00:00"), kNoon);  // naive: read as UTC
  EXPECT_EQ(parse_iso8601_micros("2026-11-29 12:00:00"), kNoon);  // dbt's space separator
}

TEST(ParseIso8601, Offsets) {
  EXPECT_EQ(parse_iso8601_micros("2026-11-29T14:00:00+02:00"), kNoon);
  EXPECT_EQ(parse_iso8601_micros("2026-11-29T14:00:00+0200"), kNoon);
  EXPECT_EQ(parse_iso8601_micros("2026-11-29T14:00:00+02"), kNoon);  // PostgreSQL's text form
  EXPECT_EQ(parse_iso8601_micros("2026-11-29T06:30:00-05:30"), kNoon);
  EXPECT_EQ(parse_iso8601_micros("2026-11-30T01:00:00+13:00"), kNoon);  // crosses a day
  EXPECT_EQ(parse_iso8601_micros("2026-11-30T11:59:00+23:59"), kNoon);
  EXPECT_EQ(parse_iso8601_micros("2026-01-01T00:30:00+01:00"), parse_iso8601_micros("2025-12-31T23:30:00Z"));
}

TEST(ParseIso8601, FractionalSeconds) {
  EXPECT_EQ(parse_iso8601_micros("2026-11-29T12:00:00.123456Z"), kNoon + 123456);
  EXPECT_EQ(parse_iso8601_micros("2026-11-29T12:00:00.5Z"), kNoon + 500000);
  EXPECT_EQ(parse_iso8601_micros("2026-11-29T12:00:00.000001"), kNoon + 1);
  EXPECT_EQ(parse_iso8601_micros("2026-11-29T12:00:00.1234569Z"), kNoon + 123456);    // beyond micros: truncated
  EXPECT_EQ(parse_iso8601_micros("2026-11-29T12:00:00.123456789Z"), kNoon + 123456);  // nanoseconds
  EXPECT_EQ(parse_iso8601_micros("2026-11-29T14:00:00.25+02:00"), kNoon + 250000);
  EXPECT_EQ(parse_iso8601_micros("1969-12-31T23:59:59.999999Z"), -1);
}

TEST(ParseIso8601, LeapYears) {
  EXPECT_TRUE(parse_iso8601_micros("2024-02-29T00:00:00Z"));  // divisible by 4
  EXPECT_TRUE(parse_iso8601_micros("2000-02-29T00:00:00Z"));  // divisible by 400
  EXPECT_FALSE(parse_iso8601_micros("2026-02-29T00:00:00Z"));
  EXPECT_FALSE(parse_iso8601_micros("1900-02-29T00:00:00Z"));  // divisible by 100, not 400
  EXPECT_FALSE(parse_iso8601_micros("2100-02-29T00:00:00Z"));
  EXPECT_EQ(*parse_iso8601_micros("2024-03-01T00:00:00Z") - *parse_iso8601_micros("2024-02-28T00:00:00Z"),
            2 * 86400 * kSecond);
  EXPECT_EQ(parse_iso8601_micros("2000-02-29T00:00:00Z"), std::int64_t{951'782'400} * kSecond);
}

TEST(ParseIso8601, LeapSecondIsAccepted) {
  EXPECT_EQ(parse_iso8601_micros("2016-12-31T23:59:60Z"), parse_iso8601_micros("2017-01-01T00:00:00Z"));
}

TEST(ParseIso8601, RejectsImpossibleDates) {
  for (const char* bad :
       {"2026-02-31T00:00:00Z", "2026-02-30T00:00:00Z", "2026-04-31T00:00:00Z", "2026-06-31T00:00:00Z",
        "2026-09-31T00:00:00Z", "2026-11-31T00:00:00Z", "2026-01-32T00:00:00Z", "2026-01-00T00:00:00Z",
        "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z"}) {
    EXPECT_FALSE(parse_iso8601_micros(bad).has_value()) << bad;
  }
  EXPECT_TRUE(parse_iso8601_micros("2026-01-31T00:00:00Z"));
  EXPECT_TRUE(parse_iso8601_micros("2026-12-31T23:59:59Z"));
}

TEST(ParseIso8601, RejectsImpossibleTimesAndOffsets) {
  for (const char* bad :
       {"2026-11-29T24:00:00Z", "2026-11-29T12:60:00Z", "2026-11-29T12:00:61Z", "2026-11-29T12:00:00+24:00",
        "2026-11-29T12:00:00+02:60", "2026-11-29T12:00:00+99", "2026-11-29T12:00:00-2400"}) {
    EXPECT_FALSE(parse_iso8601_micros(bad).has_value()) << bad;
  }
}

TEST(ParseIso8601, RejectsOtherText) {
  for (const char* bad : {"",
                          "garbage",
                          "yesterday",
                          "2026-11-29",
                          "2026-11-29T12:00",
                          "2026/11/29T12:00:00Z",
                          "2026-11-29X12:00:00Z",
                          "2026-11-29T12:00:00Zjunk",
                          "2026-11-29T12:00:00 ",
                          "2026-11-29T12:00:00.Z",
                          "2026-11-29T12:00:00.",
                          "2026-11-29T12:00:00.1234567890Z",
                          "2026-11-29T12:00:00+2",
                          "2026-11-29T12:00:00+0",
                          "2026-11-29T12:00:00+02:0",
                          "2026-11-29T12:00:00+02:00x",
                          "2026-11-29T12:00:00+02:",
                          "20a6-11-29T12:00:00Z",
                          "2026-11-29T1x:00:00Z",
                          "+2026-11-29T12:00:00Z",
                          " 2026-11-29T12:00:00Z",
                          "2026-11-29T12:00:00z"}) {
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
}

TEST(NormalizeIso8601, WritesTheInstantInUtc) {
  EXPECT_EQ(normalize_iso8601("2026-01-02T11:00:00+00:00"), "2026-01-02T11:00:00.000000Z");
  EXPECT_EQ(normalize_iso8601("2026-11-29 20:12:38"), "2026-11-29T20:12:38.000000Z");
  EXPECT_EQ(normalize_iso8601("2026-01-02T13:30:00.5+02:30"), "2026-01-02T11:00:00.500000Z");
  EXPECT_EQ(normalize_iso8601("2026-02-31T00:00:00Z"), std::nullopt);
}

}  // namespace
}  // namespace ods
