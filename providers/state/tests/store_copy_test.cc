// copy_state: a scope's chain and ledger move between stores; an occupied target scope is
// refused unless replaced; ledger entries point at the copied snapshots.
#include <gtest/gtest.h>

#include "ods/state/stores.h"
#include "test_support.h"

namespace ods::state {
namespace {

using ods::contracts::RunRecord;

void fill(ods::contracts::StateStore& store, const std::string& scope, int count) {
  std::optional<std::string> parent;
  for (int n = 1; n <= count; ++n) {
    const std::string run = scope + "-run-" + std::to_string(n);
    auto committed = store.commit(scope, parent, run, R"({"n":)" + std::to_string(n) + "}");
    ASSERT_TRUE(committed.has_value());
    parent = committed->id;
    ASSERT_TRUE(store.append_run({run, scope, "s", "f", "success", "d", R"({"entries":[]})", "{}", committed->id}));
  }
  ASSERT_TRUE(store.append_run({scope + "-failed", scope, "s", "f", "failed", "d", "{}", "{}", std::nullopt}));
}

TEST(StoreCopy, CopiesChainsAndLedgersBetweenStoresAndBack) {
  testing::TempDir dir;
  auto memory = make_memory_store();
  fill(*memory, "shop/prod", 3);
  fill(*memory, "shop/dev", 1);
  auto sqlite = open_sqlite_store(dir.file("copy.db"));
  ASSERT_TRUE(sqlite.has_value());
  auto scopes = memory->scopes();
  ASSERT_TRUE(scopes.has_value());
  auto copied = copy_state(*memory, **sqlite, *scopes, false);
  ASSERT_TRUE(copied.has_value()) << copied.error().message;
  EXPECT_EQ(copied->scopes, 2u);
  EXPECT_EQ(copied->snapshots, 4u);
  EXPECT_EQ(copied->runs, 6u);

  auto back = make_memory_store();
  ASSERT_TRUE(copy_state(**sqlite, *back, {"shop/prod"}, false).has_value());
  auto original = memory->history("shop/prod", 0);
  auto round_trip = back->history("shop/prod", 0);
  ASSERT_TRUE(original.has_value() && round_trip.has_value());
  ASSERT_EQ(round_trip->size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ((*round_trip)[i].document, (*original)[i].document);
    EXPECT_EQ((*round_trip)[i].run_id, (*original)[i].run_id);
  }
  EXPECT_EQ((*round_trip)[0].parent, (*round_trip)[1].id);
  auto runs = back->runs("shop/prod", 0);
  ASSERT_TRUE(runs.has_value());
  ASSERT_EQ(runs->size(), 4u);
  EXPECT_EQ((*runs)[0].run_id, "shop/prod-failed");
  EXPECT_EQ((*runs)[0].snapshot_id, std::nullopt);
  EXPECT_EQ((*runs)[1].snapshot_id, (*round_trip)[0].id) << "ledger entries point at the copied snapshots";
  auto report = (*sqlite)->check();
  ASSERT_TRUE(report.has_value());
  EXPECT_TRUE(report->ok);
}

TEST(StoreCopy, RefusesAnOccupiedTargetScopeUnlessReplacing) {
  auto from = make_memory_store();
  auto to = make_memory_store();
  fill(*from, "shop/prod", 2);
  fill(*to, "shop/prod", 1);
  auto refused = copy_state(*from, *to, {"shop/prod"}, false);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, "not_empty");
  auto kept = to->history("shop/prod", 0);
  ASSERT_TRUE(kept.has_value());
  EXPECT_EQ(kept->size(), 1u) << "nothing written";

  auto replaced = copy_state(*from, *to, {"shop/prod"}, true);
  ASSERT_TRUE(replaced.has_value()) << replaced.error().message;
  auto now = to->history("shop/prod", 0);
  ASSERT_TRUE(now.has_value());
  EXPECT_EQ(now->size(), 2u);
}

}  // namespace
}  // namespace ods::state
