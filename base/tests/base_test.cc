// Result and ODS_TRY, sha256_hex and the clock.
#include <gtest/gtest.h>

#include <chrono>

#include "ods/base/clock.h"
#include "ods/base/iso8601.h"
#include "ods/base/result.h"
#include "ods/base/sha256.h"

namespace ods {
namespace {

Result<int> parse_digit(char c) {
  if (c < '0' || c > '9') return fail("invalid_argument", std::string("'") + c + "' is not a digit.");
  return c - '0';
}

Result<int> sum_of_digits(char a, char b) {
  ODS_TRY(const int first, parse_digit(a));
  ODS_TRY(const int second, parse_digit(b));
  return first + second;
}

Result<void> check_digit(char c) {
  ODS_TRY_VOID(parse_digit(c));
  return {};
}

TEST(Try, PassesValuesOnAndReturnsTheFirstError) {
  EXPECT_EQ(sum_of_digits('3', '4'), 7);
  const auto failed = sum_of_digits('x', 'y');
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code, "invalid_argument");
  EXPECT_EQ(failed.error().message, "'x' is not a digit.");
  EXPECT_TRUE(check_digit('1'));
  EXPECT_EQ(check_digit('z').error().message, "'z' is not a digit.");
}

TEST(Sha256Hex, KnownDigests) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(std::string(1000, 'a')), sha256_hex(std::string(1000, 'a')));
  EXPECT_NE(sha256_hex("a"), sha256_hex("b"));
}

TEST(Clock, SystemClockIsNowAndFormatsAsIso8601) {
  const auto before = std::chrono::system_clock::now();
  const TimePoint now = system_clock().now();
  EXPECT_GE(now, before);
  const auto text = format_iso8601(now);
  ASSERT_EQ(text.size(), 27u) << text;
  const auto back = parse_iso8601_micros(text);
  ASSERT_TRUE(back) << text;
  EXPECT_EQ(*back, std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count());
  EXPECT_EQ(format_iso8601(TimePoint{}), "1970-01-01T00:00:00.000000Z");
}

}  // namespace
}  // namespace ods
