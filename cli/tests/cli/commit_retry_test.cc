// commit_outcome: a commit that loses the race re-reads the head and re-applies this run's
// outcome on top of it, keeping what the other writer recorded; retries are bounded and told.
#include "commit_retry.h"

#include <gtest/gtest.h>

#include <sstream>

#include "ods/planner/json_io.h"
#include "ods/state/stores.h"
#include "recording_steps.h"

namespace ods::cli {
namespace {

constexpr char kScope[] = "shop/prod";

planner::ProjectInputs inputs() {
  planner::ProjectInputs in;
  in.project = "shop";
  for (const std::string name : {"a", "b"}) {
    planner::NodeInput node;
    node.id = "model.shop." + name;
    node.name = name;
    node.resource_type = "model";
    node.fingerprint.components["sql"] = "sha256:" + name;
    in.nodes.push_back(node);
  }
  return in;
}

planner::RunOutcome outcome(const std::string& run_id, const std::string& started, const std::string& node) {
  return {run_id, started, {{"model.shop." + node, "success"}}, {}, {}, {}};
}

// A store where another writer commits just before each of our commits (the first
// `races` of them): our compare-and-swap then finds the head moved.
class RacedStore final : public contracts::StateStore {
 public:
  RacedStore(int races, std::string other_started) : races_(races), other_started_(std::move(other_started)) {}
  contracts::StateStore& inner() { return *inner_; }

  Result<contracts::StoredSnapshot> commit(const std::string& scope, const std::optional<std::string>& parent,
                                           const std::string& run_id, const std::string& document) override {
    if (races_-- > 0) {
      auto head = read_head(*inner_, scope);
      EXPECT_TRUE(head.has_value());
      const auto other = outcome("other-" + std::to_string(races_), other_started_, "b");
      auto next = planner::record(inputs(), *head ? &(*head)->snapshot : nullptr, other);
      EXPECT_TRUE(next.has_value());
      std::optional<std::string> other_parent;
      if (*head) other_parent = (*head)->stored.id;
      EXPECT_TRUE(inner_->commit(scope, other_parent, other.run_id, planner::to_json(*next)).has_value());
    }
    return inner_->commit(scope, parent, run_id, document);
  }
  Result<std::optional<contracts::StoredSnapshot>> latest(const std::string& s) override { return inner_->latest(s); }
  Result<std::vector<contracts::StoredSnapshot>> history(const std::string& s, std::size_t n) override {
    return inner_->history(s, n);
  }
  Result<void> append_run(const contracts::RunRecord& r) override { return inner_->append_run(r); }
  Result<std::vector<contracts::RunRecord>> runs(const std::string& s, std::size_t n) override {
    return inner_->runs(s, n);
  }
  Result<std::vector<contracts::RunRecord>> runs_without_plans(const std::string& s, std::size_t n) override {
    return inner_->runs_without_plans(s, n);
  }
  Result<bool> has_run(const std::string& s, const std::string& r) override { return inner_->has_run(s, r); }
  Result<std::vector<std::string>> scopes() override { return inner_->scopes(); }
  Result<contracts::CheckReport> check() override { return inner_->check(); }
  Result<void> backup(const std::string& p) override { return inner_->backup(p); }
  Result<std::size_t> reset(const std::string& s) override { return inner_->reset(s); }
  Result<void> check_writable() override { return inner_->check_writable(); }

 private:
  std::unique_ptr<contracts::StateStore> inner_ = state::make_memory_store();
  int races_;
  std::string other_started_;
};

TEST(CommitRetry, ALostRaceReappliesThisRunOnTopOfTheOtherWriters) {
  RacedStore store(1, "2026-11-29T10:00:00.000000Z");
  std::ostringstream err;
  auto committed =
      commit_outcome(store, kScope, inputs(), std::nullopt, outcome("ours", "2026-11-29T10:00:05.000000Z", "a"), err);
  ASSERT_TRUE(committed.has_value()) << committed.error().message;
  EXPECT_EQ(committed->snapshot.nodes.at("model.shop.a").run_id, "ours");
  EXPECT_EQ(committed->snapshot.nodes.at("model.shop.b").run_id, "other-0") << "the other writer's build is kept";
  auto history = store.history(kScope, 0);
  ASSERT_TRUE(history.has_value());
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ(history->front().parent, history->back().id);
  EXPECT_NE(err.str().find("re-applying run ours"), std::string::npos) << err.str();
  EXPECT_NE(err.str().find("attempt 2 of 5"), std::string::npos) << err.str();
}

TEST(CommitRetry, GivesUpAfterBoundedAttemptsTellingEach) {
  RacedStore store(100, "2026-11-29T10:00:00.000000Z");
  std::ostringstream err;
  auto committed =
      commit_outcome(store, kScope, inputs(), std::nullopt, outcome("ours", "2026-11-29T10:00:05.000000Z", "a"), err);
  ASSERT_FALSE(committed.has_value());
  EXPECT_EQ(committed.error().code, "conflict");
  std::size_t told = 0;
  for (std::size_t at = err.str().find("re-applying"); at != std::string::npos;
       at = err.str().find("re-applying", at + 1))
    ++told;
  EXPECT_EQ(told, static_cast<std::size_t>(kCommitAttempts - 1));
}

TEST(CommitRetry, ANewerRunRecordedMeanwhileIsNotOverwrittenWithAnOlderOne) {
  RacedStore store(1, "2026-11-29T11:00:00.000000Z");  // the other run started after ours
  std::ostringstream err;
  auto committed =
      commit_outcome(store, kScope, inputs(), std::nullopt, outcome("ours", "2026-11-29T10:00:05.000000Z", "a"), err);
  ASSERT_FALSE(committed.has_value());
  EXPECT_EQ(committed.error().code, "stale_run");
  auto history = store.history(kScope, 0);
  ASSERT_TRUE(history.has_value());
  EXPECT_EQ(history->size(), 1u) << "only the other writer's snapshot";
}

// Issue 39 item 5: "the next run plans against the newer state" only when another writer's
// state is the newer one; a store that failed otherwise says the state is as it was.
TEST(NotRecorded, SaysTheNewerStateOnlyAfterALostRace) {
  const std::string newer = "the next run plans against the newer state";
  for (const std::string code : {"conflict", "stale_run"}) {
    const Error e = not_recorded({code, "another writer"}, "the build", newer);
    EXPECT_EQ(e.code, code);
    EXPECT_NE(e.message.find(newer), std::string::npos) << e.message;
  }
  for (const std::string code : {"unavailable", "io", "permission_denied", "corrupt"}) {
    const Error e = not_recorded({code, "attempt to write a readonly database"}, "the build", newer);
    EXPECT_EQ(e.message.find("newer"), std::string::npos) << code << ": " << e.message;
    EXPECT_NE(e.message.find("the recorded state is as it was before this run"), std::string::npos) << e.message;
  }
}

}  // namespace
}  // namespace ods::cli
