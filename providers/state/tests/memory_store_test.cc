// What the in-memory store and the system clock do beyond the conformance suite.
#include <gtest/gtest.h>

#include <regex>

#include "ods/state/clock.h"
#include "ods/state/stores.h"

namespace ods::state {
namespace {

TEST(MemoryStore, BackupIsUnsupported) {
  auto store = make_memory_store([] { return std::string("2026-10-04T12:00:00.000000Z"); });
  auto backup = store->backup("/tmp/never-written.db");
  ASSERT_FALSE(backup.has_value());
  EXPECT_EQ(backup.error().code, "unsupported");
}

TEST(MemoryStore, WithoutAClockUsesTheSystemClock) {
  auto store = make_memory_store(nullptr);
  auto committed = store->commit("p/e", std::nullopt, "run-1", "{}");
  ASSERT_TRUE(committed.has_value());
  EXPECT_TRUE(std::regex_match(committed->committed_at, std::regex(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)")))
      << committed->committed_at;
}

TEST(SystemClock, IsIsoUtcWithMicrosecondsAndAdvances) {
  const Clock clock = system_clock();
  const std::string first = clock();
  EXPECT_TRUE(std::regex_match(first, std::regex(R"(20\d{2}-[01]\d-[0-3]\dT[0-2]\d:[0-5]\d:[0-6]\d\.\d{6}Z)")))
      << first;
  std::string later = clock();
  for (int i = 0; i < 1000 && later == first; ++i) later = clock();
  EXPECT_GT(later, first) << "ISO-8601 text orders like time";
}

}  // namespace
}  // namespace ods::state
