// What the in-memory store does beyond the conformance suite.
#include <gtest/gtest.h>

#include <regex>

#include "ods/state/stores.h"

namespace ods::state {
namespace {

TEST(MemoryStore, BackupIsUnsupported) {
  auto store = make_memory_store();
  auto backup = store->backup("/tmp/never-written.db");
  ASSERT_FALSE(backup.has_value());
  EXPECT_EQ(backup.error().code, "unsupported");
}

TEST(MemoryStore, WithoutAClockUsesTheSystemClock) {
  auto store = make_memory_store();
  auto committed = store->commit("p/e", std::nullopt, "run-1", "{}");
  ASSERT_TRUE(committed.has_value());
  EXPECT_TRUE(std::regex_match(committed->committed_at, std::regex(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)")))
      << committed->committed_at;
}

}  // namespace
}  // namespace ods::state
