// 8 processes commit to one scope at once, 50 rounds each: every commit lands or gets
// "conflict", the history is one chain of exactly the landed commits, and the head holds
// every node a landed commit built (each commit builds on the head it read).
#include <gtest/gtest.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "harness/dbt_project.h"
#include "pg_fixture.h"

namespace ods::testing {
namespace {

constexpr int kWriters = 8;
constexpr int kRounds = 50;

TEST(PostgresConcurrency, EightProcessesFiftyRoundsFormOneChainAndLoseNothing) {
  const std::string dsn = fresh_database();
  ASSERT_FALSE(dsn.empty());
  ASSERT_NE(open_pg(dsn), nullptr) << "migrate once before the race";
  const std::string racer = (bin_dir().parent_path() / "tests" / "pg_commit_racer").string();
  std::vector<ProcessResult> results(kWriters);
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      results[w] = run_process({racer, url_of(dsn), "shop/prod", std::to_string(w), std::to_string(kRounds)},
                               std::filesystem::temp_directory_path());
    });
  }
  for (std::thread& writer : writers) writer.join();

  std::set<std::string> landed_runs;
  std::set<std::string> landed_ids;
  int conflicts = 0;
  for (const ProcessResult& result : results) {
    ASSERT_EQ(result.exit_code, 0) << result.errors;
    std::istringstream lines(result.output);
    for (std::string word; lines >> word;) {
      if (word == "conflict") {
        ++conflicts;
        continue;
      }
      ASSERT_EQ(word, "landed");
      std::string id, run;
      lines >> id >> run;
      landed_ids.insert(id);
      landed_runs.insert(run);
    }
  }
  std::cout << "8 writers x 50 rounds: " << landed_ids.size() << " landed, " << conflicts << " conflicts\n";
  EXPECT_EQ(static_cast<int>(landed_ids.size()) + conflicts, kWriters * kRounds);
  EXPECT_GE(landed_ids.size(), static_cast<std::size_t>(kRounds)) << "at least one writer's worth landed";

  auto store = open_pg(dsn);
  ASSERT_NE(store, nullptr);
  auto history = store->history("shop/prod", 0);
  ASSERT_TRUE(history.has_value()) << history.error().message;
  ASSERT_EQ(history->size(), landed_ids.size());
  for (std::size_t i = 0; i + 1 < history->size(); ++i) {
    EXPECT_EQ((*history)[i].parent, (*history)[i + 1].id) << "not one chain at " << i;
  }
  EXPECT_EQ(history->back().parent, std::nullopt);
  std::set<std::string> history_ids;
  for (const auto& snapshot : *history) history_ids.insert(snapshot.id);
  EXPECT_EQ(history_ids, landed_ids);

  const nlohmann::json head = nlohmann::json::parse(history->front().document);
  std::set<std::string> head_nodes;
  for (const auto& [id, node] : head["nodes"].items()) head_nodes.insert(id);
  EXPECT_EQ(head_nodes, landed_runs) << "the head holds every landed build and nothing else";
  auto report = store->check();
  ASSERT_TRUE(report.has_value());
  EXPECT_TRUE(report->ok) << (report->problems.empty() ? "" : report->problems.front());
}

}  // namespace
}  // namespace ods::testing
