#include "state_store_conformance.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <set>
#include <thread>
#include <tuple>
#include <vector>

#include "ods/base/iso8601.h"

namespace ods::state::conformance {
namespace {

using ods::contracts::RunRecord;
using ods::contracts::StateStore;
using ods::contracts::StoredSnapshot;

constexpr char kScope[] = "shop/prod";
constexpr char kOtherScope[] = "shop/dev";

std::string document(int n) { return R"({"schema_version":"1.2","n":)" + std::to_string(n) + "}"; }

RunRecord make_run(const std::string& scope, const std::string& run_id, std::optional<std::string> snapshot = {}) {
  return {run_id,
          scope,
          "2026-10-04T11:00:00.000000Z",
          "2026-10-04T11:05:00.000000Z",
          "success",
          "sha256:inputs",
          R"({"entries":[]})",
          R"({"timings":{"total_s":1.5}})",
          std::move(snapshot)};
}

// Commits documents 1..count in a chain and returns them oldest first.
std::vector<StoredSnapshot> commit_chain(StateStore& store, const std::string& scope, int count) {
  std::vector<StoredSnapshot> chain;
  std::optional<std::string> parent;
  for (int n = 1; n <= count; ++n) {
    auto snapshot = store.commit(scope, parent, "run-" + std::to_string(n), document(n));
    EXPECT_TRUE(snapshot.has_value()) << snapshot.error().code << ": " << snapshot.error().message;
    if (!snapshot) break;
    parent = snapshot->id;
    chain.push_back(*snapshot);
  }
  return chain;
}

// Commits from `threads` threads, each using its own store from `store_for`, `attempts`
// times: read the head, commit on top of it. Every result must be success or conflict;
// afterwards the scope's history must be one chain holding exactly the successes.
void race_committers(StateStore& reader, const std::function<StateStore&(int)>& store_for, int threads, int attempts) {
  std::atomic<int> successes{0};
  std::atomic<int> unexpected{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      StateStore& store = store_for(t);
      for (int a = 0; a < attempts; ++a) {
        auto head = store.latest(kScope);
        if (!head) {
          ++unexpected;
          continue;
        }
        std::optional<std::string> parent;
        if (*head) parent = (*head)->id;
        auto committed =
            store.commit(kScope, parent, "run-" + std::to_string(t) + "-" + std::to_string(a), document(t * 1000 + a));
        if (committed) {
          ++successes;
        } else if (committed.error().code != "conflict") {
          ADD_FAILURE() << committed.error().code << ": " << committed.error().message;
          ++unexpected;
        }
      }
    });
  }
  for (std::thread& worker : workers) worker.join();
  EXPECT_EQ(unexpected.load(), 0);
  EXPECT_GE(successes.load(), 1);
  auto history = reader.history(kScope, 0);
  ASSERT_TRUE(history.has_value());
  ASSERT_EQ(history->size(), static_cast<std::size_t>(successes.load()));
  for (std::size_t i = 0; i + 1 < history->size(); ++i) {
    EXPECT_EQ((*history)[i].parent, (*history)[i + 1].id) << "history is not one chain at " << i;
  }
  EXPECT_EQ(history->back().parent, std::nullopt);
  auto latest = reader.latest(kScope);
  ASSERT_TRUE(latest.has_value() && latest->has_value());
  EXPECT_EQ((*latest)->id, history->front().id);
}

// The scope has no head, no history, no ledger entries and no run "run-1".
void expect_scope_empty(StateStore& store, const std::string& scope) {
  auto latest = store.latest(scope);
  ASSERT_TRUE(latest.has_value()) << latest.error().message;
  EXPECT_FALSE(latest->has_value());
  auto history = store.history(scope, 0);
  ASSERT_TRUE(history.has_value());
  EXPECT_TRUE(history->empty());
  auto runs = store.runs(scope, 0);
  ASSERT_TRUE(runs.has_value());
  EXPECT_TRUE(runs->empty());
  auto has = store.has_run(scope, "run-1");
  ASSERT_TRUE(has.has_value());
  EXPECT_FALSE(*has);
}

// Every member of a ledger entry read back but its plan, as appended.
void expect_entry_but_plan(const RunRecord& got, const RunRecord& appended) {
  EXPECT_EQ(got.run_id, appended.run_id);
  EXPECT_EQ(got.scope, appended.scope);
  EXPECT_EQ(got.started_at, appended.started_at);
  EXPECT_EQ(got.finished_at, appended.finished_at);
  EXPECT_EQ(got.outcome, appended.outcome);
  EXPECT_EQ(got.inputs_digest, appended.inputs_digest);
  EXPECT_EQ(got.details, appended.details);
  EXPECT_EQ(got.snapshot_id, appended.snapshot_id);
}

}  // namespace

void StateStoreConformance::SetUp() {
  static const ods::FixedClock kClock(ods::TimePoint(std::chrono::microseconds(*ods::parse_iso8601_micros(kNow))));
  harness_ = GetParam().make_harness(kClock);
  ASSERT_NE(harness_, nullptr);
}

TEST_P(StateStoreConformance, EmptyStoreHasNothing) { expect_scope_empty(store(), kScope); }

TEST_P(StateStoreConformance, FirstCommitHasNoParentAndBecomesLatest) {
  const std::string doc = "{\n  \"schema_version\": \"1.2\",\n  \"name\": \"caf\xc3\xa9\"\n}";
  auto committed = store().commit(kScope, std::nullopt, "run-1", doc);
  ASSERT_TRUE(committed.has_value()) << committed.error().message;
  EXPECT_FALSE(committed->id.empty());
  EXPECT_EQ(committed->parent, std::nullopt);
  EXPECT_EQ(committed->scope, kScope);
  EXPECT_EQ(committed->run_id, "run-1");
  EXPECT_EQ(committed->committed_at, kNow);
  EXPECT_EQ(committed->document, doc);

  auto latest = store().latest(kScope);
  ASSERT_TRUE(latest.has_value() && latest->has_value());
  const StoredSnapshot& head = **latest;
  EXPECT_EQ(head.id, committed->id);
  EXPECT_EQ(head.parent, std::nullopt);
  EXPECT_EQ(head.scope, kScope);
  EXPECT_EQ(head.run_id, "run-1");
  EXPECT_EQ(head.committed_at, kNow);
  EXPECT_EQ(head.document, doc) << "documents come back byte for byte";
}

TEST_P(StateStoreConformance, CommitsChainOnTheHead) {
  const auto chain = commit_chain(store(), kScope, 3);
  ASSERT_EQ(chain.size(), 3u);
  EXPECT_EQ(chain[1].parent, chain[0].id);
  EXPECT_EQ(chain[2].parent, chain[1].id);
  EXPECT_EQ(std::set<std::string>({chain[0].id, chain[1].id, chain[2].id}).size(), 3u);
  auto latest = store().latest(kScope);
  ASSERT_TRUE(latest.has_value() && latest->has_value());
  EXPECT_EQ((*latest)->id, chain[2].id);
  EXPECT_EQ((*latest)->document, document(3));
}

TEST_P(StateStoreConformance, StaleParentConflictsAndWritesNothing) {
  const auto chain = commit_chain(store(), kScope, 2);
  ASSERT_EQ(chain.size(), 2u);
  auto stale = store().commit(kScope, chain[0].id, "run-late", document(99));
  ASSERT_FALSE(stale.has_value());
  EXPECT_EQ(stale.error().code, "conflict");
  EXPECT_FALSE(stale.error().message.empty());
  auto latest = store().latest(kScope);
  ASSERT_TRUE(latest.has_value() && latest->has_value());
  EXPECT_EQ((*latest)->id, chain[1].id);
  auto history = store().history(kScope, 0);
  ASSERT_TRUE(history.has_value());
  EXPECT_EQ(history->size(), 2u);
  auto has = store().has_run(kScope, "run-late");
  ASSERT_TRUE(has.has_value());
  EXPECT_FALSE(*has);
}

TEST_P(StateStoreConformance, ExpectingEmptyScopeConflictsWhenItHasAHead) {
  const auto chain = commit_chain(store(), kScope, 1);
  ASSERT_EQ(chain.size(), 1u);
  auto second_first = store().commit(kScope, std::nullopt, "run-2", document(2));
  ASSERT_FALSE(second_first.has_value());
  EXPECT_EQ(second_first.error().code, "conflict");
  auto latest = store().latest(kScope);
  ASSERT_TRUE(latest.has_value() && latest->has_value());
  EXPECT_EQ((*latest)->id, chain[0].id);
}

TEST_P(StateStoreConformance, ExpectingAHeadConflictsWhenScopeIsEmpty) {
  auto committed = store().commit(kScope, std::string("no-such-snapshot"), "run-1", document(1));
  ASSERT_FALSE(committed.has_value());
  EXPECT_EQ(committed.error().code, "conflict");
  auto latest = store().latest(kScope);
  ASSERT_TRUE(latest.has_value());
  EXPECT_FALSE(latest->has_value());
}

TEST_P(StateStoreConformance, HistoryIsNewestFirstWithLimit) {
  const auto chain = commit_chain(store(), kScope, 5);
  ASSERT_EQ(chain.size(), 5u);
  auto all = store().history(kScope, 0);
  ASSERT_TRUE(all.has_value());
  ASSERT_EQ(all->size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ((*all)[i].id, chain[4 - i].id);
    EXPECT_EQ((*all)[i].parent, chain[4 - i].parent);
    EXPECT_EQ((*all)[i].run_id, chain[4 - i].run_id);
    EXPECT_EQ((*all)[i].document, chain[4 - i].document);
    EXPECT_EQ((*all)[i].scope, kScope);
  }
  auto two = store().history(kScope, 2);
  ASSERT_TRUE(two.has_value());
  ASSERT_EQ(two->size(), 2u);
  EXPECT_EQ((*two)[0].id, chain[4].id);
  EXPECT_EQ((*two)[1].id, chain[3].id);
  auto more = store().history(kScope, 10);
  ASSERT_TRUE(more.has_value());
  EXPECT_EQ(more->size(), 5u);
}

TEST_P(StateStoreConformance, ScopesAreIsolated) {
  const auto prod = commit_chain(store(), kScope, 2);
  const auto dev = commit_chain(store(), kOtherScope, 1);
  ASSERT_EQ(prod.size(), 2u);
  ASSERT_EQ(dev.size(), 1u);
  auto prod_head = store().latest(kScope);
  auto dev_head = store().latest(kOtherScope);
  ASSERT_TRUE(prod_head.has_value() && prod_head->has_value() && dev_head.has_value() && dev_head->has_value());
  EXPECT_EQ((*prod_head)->id, prod[1].id);
  EXPECT_EQ((*dev_head)->id, dev[0].id);
  auto dev_history = store().history(kOtherScope, 0);
  ASSERT_TRUE(dev_history.has_value());
  ASSERT_EQ(dev_history->size(), 1u);
  EXPECT_EQ(dev_history->front().scope, kOtherScope);

  // Another scope's head is not this scope's head.
  auto crossed = store().commit(kOtherScope, prod[1].id, "run-x", document(7));
  ASSERT_FALSE(crossed.has_value());
  EXPECT_EQ(crossed.error().code, "conflict");

  ASSERT_TRUE(store().append_run(make_run(kScope, "ledger-only")).has_value());
  auto other_has = store().has_run(kOtherScope, "ledger-only");
  ASSERT_TRUE(other_has.has_value());
  EXPECT_FALSE(*other_has);
  auto other_runs = store().runs(kOtherScope, 0);
  ASSERT_TRUE(other_runs.has_value());
  EXPECT_TRUE(other_runs->empty());
}

TEST_P(StateStoreConformance, IdenticalDocumentsAreDistinctSnapshots) {
  auto first = store().commit(kScope, std::nullopt, "run-1", document(1));
  ASSERT_TRUE(first.has_value());
  auto second = store().commit(kScope, first->id, "run-2", document(1));
  ASSERT_TRUE(second.has_value());
  auto elsewhere = store().commit(kOtherScope, std::nullopt, "run-3", document(1));
  ASSERT_TRUE(elsewhere.has_value());
  EXPECT_NE(first->id, second->id);
  auto history = store().history(kScope, 0);
  ASSERT_TRUE(history.has_value());
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ((*history)[0].document, document(1));
  EXPECT_EQ((*history)[1].document, document(1));
  auto reset = store().reset(kOtherScope);
  ASSERT_TRUE(reset.has_value());
  auto latest = store().latest(kScope);
  ASSERT_TRUE(latest.has_value() && latest->has_value());
  EXPECT_EQ((*latest)->document, document(1)) << "resetting one scope keeps a document another still uses";
}

TEST_P(StateStoreConformance, RefusesBadArgumentsAndWritesNothing) {
  for (const auto& [scope, run_id, doc] :
       std::vector<std::tuple<std::string, std::string, std::string>>{{"", "run-1", document(1)},
                                                                      {kScope, "", document(1)},
                                                                      {kScope, "run-1", "{not json"},
                                                                      {kScope, "run-1", ""},
                                                                      {kScope, "run-1", "{} trailing"}}) {
    auto committed = store().commit(scope, std::nullopt, run_id, doc);
    ASSERT_FALSE(committed.has_value()) << "accepted '" << doc << "'";
    EXPECT_EQ(committed.error().code, "invalid_argument");
  }
  auto latest = store().latest(kScope);
  ASSERT_TRUE(latest.has_value());
  EXPECT_FALSE(latest->has_value());
  auto no_scope = store().append_run(make_run("", "run-1"));
  ASSERT_FALSE(no_scope.has_value());
  EXPECT_EQ(no_scope.error().code, "invalid_argument");
  auto no_id = store().append_run(make_run(kScope, ""));
  ASSERT_FALSE(no_id.has_value());
  EXPECT_EQ(no_id.error().code, "invalid_argument");
}

TEST_P(StateStoreConformance, LedgerKeepsRunsNewestFirst) {
  const auto chain = commit_chain(store(), kScope, 1);
  ASSERT_EQ(chain.size(), 1u);
  RunRecord first = make_run(kScope, "run-1", chain[0].id);
  RunRecord second = make_run(kScope, "run-2");
  second.outcome = "failed";
  second.plan = R"({"entries":[{"node":"model.shop.orders","action":"build"}]})";
  RunRecord third = make_run(kScope, "run-3");
  third.outcome = "planned";
  for (const RunRecord& run : {first, second, third}) {
    auto appended = store().append_run(run);
    ASSERT_TRUE(appended.has_value()) << appended.error().message;
  }
  auto runs = store().runs(kScope, 0);
  ASSERT_TRUE(runs.has_value());
  ASSERT_EQ(runs->size(), 3u);
  const RunRecord& newest = (*runs)[0];
  EXPECT_EQ(newest.run_id, "run-3");
  EXPECT_EQ(newest.outcome, "planned");
  EXPECT_EQ(newest.snapshot_id, std::nullopt);
  const RunRecord& middle = (*runs)[1];
  EXPECT_EQ(middle.run_id, "run-2");
  EXPECT_EQ(middle.plan, second.plan);
  const RunRecord& oldest = (*runs)[2];
  expect_entry_but_plan(oldest, first);
  EXPECT_EQ(oldest.plan, first.plan);
  EXPECT_EQ(oldest.snapshot_id, chain[0].id);
  auto limited = store().runs(kScope, 2);
  ASSERT_TRUE(limited.has_value());
  ASSERT_EQ(limited->size(), 2u);
  EXPECT_EQ((*limited)[0].run_id, "run-3");
  EXPECT_EQ((*limited)[1].run_id, "run-2");
}

TEST_P(StateStoreConformance, RunsWithoutPlansKeepEverythingButThePlan) {
  const auto chain = commit_chain(store(), kScope, 1);
  ASSERT_EQ(chain.size(), 1u);
  RunRecord first = make_run(kScope, "run-1", chain[0].id);
  first.plan = R"({"entries":[{"node":"model.shop.orders","action":"build"}]})";
  first.details = R"({"node_seconds":{"model.shop.orders":1.5}})";
  RunRecord second = make_run(kScope, "run-2");
  second.plan = R"({"entries":[]})";
  RunRecord other = make_run(kOtherScope, "run-3");
  for (const RunRecord& run : {first, second, other}) {
    auto appended = store().append_run(run);
    ASSERT_TRUE(appended.has_value()) << appended.error().message;
  }
  auto runs = store().runs_without_plans(kScope, 0);
  ASSERT_TRUE(runs.has_value()) << runs.error().message;
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ((*runs)[0].run_id, "run-2");
  const RunRecord& oldest = (*runs)[1];
  expect_entry_but_plan(oldest, first);
  EXPECT_EQ(oldest.snapshot_id, chain[0].id);
  for (const RunRecord& run : *runs) EXPECT_EQ(run.plan, "") << run.run_id;
  auto limited = store().runs_without_plans(kScope, 1);
  ASSERT_TRUE(limited.has_value());
  ASSERT_EQ(limited->size(), 1u);
  EXPECT_EQ((*limited)[0].run_id, "run-2");
  auto whole = store().runs(kScope, 0);  // the plans are still there for runs()
  ASSERT_TRUE(whole.has_value());
  ASSERT_EQ(whole->size(), 2u);
  EXPECT_EQ((*whole)[1].plan, first.plan);
}

TEST_P(StateStoreConformance, DuplicateRunConflicts) {
  ASSERT_TRUE(store().append_run(make_run(kScope, "run-1")).has_value());
  RunRecord again = make_run(kScope, "run-1");
  again.outcome = "failed";
  auto duplicate = store().append_run(again);
  ASSERT_FALSE(duplicate.has_value());
  EXPECT_EQ(duplicate.error().code, "conflict");
  auto runs = store().runs(kScope, 0);
  ASSERT_TRUE(runs.has_value());
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ(runs->front().outcome, "success") << "the first record stays";
  EXPECT_TRUE(store().append_run(make_run(kOtherScope, "run-1")).has_value())
      << "the same run id may appear in another scope";
}

TEST_P(StateStoreConformance, HasRunSeesLedgerAndSnapshots) {
  const auto chain = commit_chain(store(), kScope, 2);
  ASSERT_EQ(chain.size(), 2u);
  ASSERT_TRUE(store().append_run(make_run(kScope, "planned-only")).has_value());
  for (const std::string run_id : {"run-1", "run-2", "planned-only"}) {
    auto has = store().has_run(kScope, run_id);
    ASSERT_TRUE(has.has_value());
    EXPECT_TRUE(*has) << run_id;
  }
  for (const auto& [scope, run_id] : std::vector<std::pair<std::string, std::string>>{
           {kScope, "run-3"}, {kOtherScope, "run-1"}, {kOtherScope, "planned-only"}}) {
    auto has = store().has_run(scope, run_id);
    ASSERT_TRUE(has.has_value());
    EXPECT_FALSE(*has) << scope << " " << run_id;
  }
}

TEST_P(StateStoreConformance, ResetRemovesOnlyThatScope) {
  const auto prod = commit_chain(store(), kScope, 3);
  const auto dev = commit_chain(store(), kOtherScope, 2);
  ASSERT_TRUE(store().append_run(make_run(kScope, "run-1", prod[0].id)).has_value());
  ASSERT_TRUE(store().append_run(make_run(kOtherScope, "run-1", dev[0].id)).has_value());

  auto removed = store().reset(kScope);
  ASSERT_TRUE(removed.has_value()) << removed.error().message;
  EXPECT_EQ(*removed, 3u);
  expect_scope_empty(store(), kScope);

  auto dev_history = store().history(kOtherScope, 0);
  ASSERT_TRUE(dev_history.has_value());
  EXPECT_EQ(dev_history->size(), 2u);
  auto dev_runs = store().runs(kOtherScope, 0);
  ASSERT_TRUE(dev_runs.has_value());
  EXPECT_EQ(dev_runs->size(), 1u);

  auto again = store().reset(kScope);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(*again, 0u);
  auto fresh = store().commit(kScope, std::nullopt, "run-9", document(9));
  ASSERT_TRUE(fresh.has_value()) << "a reset scope starts a new chain: " << fresh.error().message;
  EXPECT_EQ(fresh->parent, std::nullopt);
  auto report = store().check();
  ASSERT_TRUE(report.has_value());
  EXPECT_TRUE(report->ok) << (report->problems.empty() ? "" : report->problems.front());
}

TEST_P(StateStoreConformance, CheckIsOkOnFreshAndUsedStores) {
  auto fresh = store().check();
  ASSERT_TRUE(fresh.has_value()) << fresh.error().message;
  EXPECT_TRUE(fresh->ok);
  EXPECT_TRUE(fresh->problems.empty());
  EXPECT_FALSE(fresh->schema_version.empty());
  commit_chain(store(), kScope, 3);
  commit_chain(store(), kOtherScope, 2);
  ASSERT_TRUE(store().append_run(make_run(kScope, "run-1")).has_value());
  auto used = store().check();
  ASSERT_TRUE(used.has_value());
  EXPECT_TRUE(used->ok) << (used->problems.empty() ? "" : used->problems.front());
  EXPECT_TRUE(used->problems.empty());
}

TEST_P(StateStoreConformance, CheckWritableAcceptsAStoreThatRecordsAndChangesNothing) {
  auto empty = store().check_writable();
  ASSERT_TRUE(empty.has_value()) << empty.error().code << ": " << empty.error().message;
  expect_scope_empty(store(), kScope);
  commit_chain(store(), kScope, 2);
  auto used = store().check_writable();
  ASSERT_TRUE(used.has_value()) << used.error().code << ": " << used.error().message;
  auto history = store().history(kScope, 0);
  ASSERT_TRUE(history.has_value());
  EXPECT_EQ(history->size(), 2u);
  auto scopes = store().scopes();
  ASSERT_TRUE(scopes.has_value());
  EXPECT_EQ(*scopes, std::vector<std::string>{kScope});
}

TEST_P(StateStoreConformance, ConcurrentCommittersOnOneHandleFormOneChain) {
  race_committers(
      store(), [&](int) -> StateStore& { return store(); }, /*threads=*/6, /*attempts=*/15);
}

TEST_P(SharedStoreConformance, ConcurrentCommittersOnSeparateHandlesFormOneChain) {
  std::vector<std::unique_ptr<StateStore>> handles;
  for (int t = 0; t < 4; ++t) {
    handles.push_back(harness().open_another());
    ASSERT_NE(handles.back(), nullptr) << GetParam().name << " opened no other handle";
  }
  race_committers(
      store(), [&](int t) -> StateStore& { return *handles[static_cast<std::size_t>(t)]; },
      /*threads=*/4, /*attempts=*/15);
}

TEST_P(SharedStoreConformance, AnotherHandleSeesCommits) {
  auto other = harness().open_another();
  ASSERT_NE(other, nullptr) << GetParam().name << " opened no other handle";
  const auto chain = commit_chain(store(), kScope, 2);
  ASSERT_EQ(chain.size(), 2u);
  auto latest = other->latest(kScope);
  ASSERT_TRUE(latest.has_value() && latest->has_value());
  EXPECT_EQ((*latest)->id, chain[1].id);
  auto stale = other->commit(kScope, chain[0].id, "run-late", document(3));
  ASSERT_FALSE(stale.has_value());
  EXPECT_EQ(stale.error().code, "conflict");
}

TEST_P(StateStoreConformance, ScopesListsEveryScopeWithStateSorted) {
  auto empty = store().scopes();
  ASSERT_TRUE(empty.has_value()) << empty.error().message;
  EXPECT_TRUE(empty->empty());
  commit_chain(store(), kScope, 1);
  commit_chain(store(), kOtherScope, 1);
  ASSERT_TRUE(store().append_run(make_run("ledger/only", "run-1")).has_value());
  auto scopes = store().scopes();
  ASSERT_TRUE(scopes.has_value());
  EXPECT_EQ(*scopes, (std::vector<std::string>{"ledger/only", kOtherScope, kScope}));
  ASSERT_TRUE(store().reset(kOtherScope).has_value());
  auto after = store().scopes();
  ASSERT_TRUE(after.has_value());
  EXPECT_EQ(*after, (std::vector<std::string>{"ledger/only", kScope}));
}

TEST_P(StateStoreConformance, LargeDocumentsComeBackByteForByte) {
  // Object and array members large enough that a store may split them into pieces, in the
  // planner's spelling (sorted keys, no spaces) and in another one.
  std::string nodes, entries;
  for (int i = 0; i < 40; ++i) {
    const std::string n = (i < 10 ? "0" : "") + std::to_string(i);
    nodes += (i ? "," : "") + std::string("\"model.shop.n") + n + R"(":{"run_id":"run-1","x":[1,2.5,"cafÃ©"]})";
    entries += (i ? "," : "") + std::string(R"({"action":"reuse","id":"n)") + std::to_string(i % 7) + R"("})";
  }
  const std::string big = R"({"entries":[)" + entries + R"(],"nodes":{)" + nodes + R"(},"schema_version":"1.2"})";
  const std::string spaced = "{ \"nodes\": {" + nodes + "} }";
  auto first = store().commit(kScope, std::nullopt, "run-1", big);
  ASSERT_TRUE(first.has_value()) << first.error().message;
  auto second = store().commit(kScope, first->id, "run-2", spaced);
  ASSERT_TRUE(second.has_value()) << second.error().message;
  auto history = store().history(kScope, 0);
  ASSERT_TRUE(history.has_value());
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ((*history)[0].document, spaced);
  EXPECT_EQ((*history)[1].document, big);
  RunRecord run = make_run(kScope, "run-1", first->id);
  run.plan = big;
  ASSERT_TRUE(store().append_run(run).has_value());
  auto runs = store().runs(kScope, 0);
  ASSERT_TRUE(runs.has_value());
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ(runs->front().plan, big);
}

}  // namespace ods::state::conformance
