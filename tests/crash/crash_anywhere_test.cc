// Crash anywhere: `ods state run` on a copy of examples/shop (DuckDB, SQLite state) killed with
// SIGKILL, with everything it started, at random moments spread over its steps (compile,
// probe, build, record). After each kill: the state is the last committed snapshot or the next
// one, never a mix; no node is recorded as built that dbt did not report successful; the
// history is one chain; and now and then (and at the end) an uninterrupted run brings every
// relation to what a control project built from scratch on the same data holds.
//
// ODS_CRASH_SEED replays a sequence (the seed is printed first); ODS_CRASH_ROUNDS (default 30)
// and ODS_CRASH_VERIFY_EVERY (default 15) size it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>

#include "crash/crash_run.h"
#include "crash/sqlite_state.h"
#include "harness/shop_baseline.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

std::uint64_t crash_seed() {
  if (const char* v = std::getenv("ODS_CRASH_SEED"); v && *v) return std::strtoull(v, nullptr, 10);
  return std::random_device{}();
}

fs::path state_file(const DbtProject& p) { return p.dir() / ".ods" / "state.db"; }

// The relations' fingerprints (tests/crash/relations.py) of the project's DuckDB file.
nlohmann::json relation_rows(const DbtProject& p) {
  ProcessResult r =
      run_process({(p.venv() / "python").string(), (source_dir() / "tests" / "crash" / "relations.py").string(),
                   "fingerprint", "shop.duckdb"},
                  p.dir(), p.env());
  EXPECT_EQ(r.exit_code, 0) << r.errors;
  return nlohmann::json::parse(r.output, nullptr, false);
}

// A copy of `p` with every dbt relation dropped and built again by plain `dbt build`: what
// the warehouse holds when nothing was ever reused or interrupted.
nlohmann::json control_rows(const DbtProject& p) {
  DbtProject control = DbtProject::copy_of(p);
  ProcessResult dropped =
      run_process({(p.venv() / "python").string(), (source_dir() / "tests" / "crash" / "relations.py").string(), "drop",
                   "shop.duckdb"},
                  control.dir(), control.env());
  EXPECT_EQ(dropped.exit_code, 0) << dropped.errors;
  ProcessResult built = control.dbt({"build"});
  EXPECT_EQ(built.exit_code, 0) << built.output << built.errors;
  return relation_rows(control);
}

// The statuses dbt wrote in target/run_results.json, when it is of invocation `run_id`.
std::map<std::string, std::string> dbt_statuses(const DbtProject& p, const std::string& run_id) {
  std::map<std::string, std::string> out;
  auto doc = nlohmann::json::parse(read_text_file(p.dir() / "target" / "run_results.json"), nullptr, false);
  if (doc.is_discarded() || doc.at("metadata").value("invocation_id", "") != run_id) return out;
  for (const auto& r : doc.at("results")) out[r.at("unique_id")] = r.at("status");
  return out;
}

// The invariants after a kill, given the state before the round. Returns "" or what broke.
std::string check_after_kill(const DbtProject& p, const RecordedState& before, const RecordedState& after) {
  if (!after.error.empty()) return "the state database can't be read: " + after.error;
  if (auto chain = chain_problem(after); !chain.empty()) return "the history is not one chain: " + chain;
  const std::size_t n = before.snapshots.size();
  if (after.snapshots.size() < n || after.snapshots.size() > n + 1) {
    return "had " + std::to_string(n) + " snapshots, now " + std::to_string(after.snapshots.size());
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (after.snapshots[i].id != before.snapshots[i].id || after.snapshots[i].document != before.snapshots[i].document)
      return "committed snapshot " + before.snapshots[i].id + " changed";
  }
  if (after.run_ids.size() < before.run_ids.size() || after.run_ids.size() > before.run_ids.size() + 1)
    return "the run ledger went from " + std::to_string(before.run_ids.size()) + " to " +
           std::to_string(after.run_ids.size()) + " entries";
  if (after.snapshots.size() == n) return "";
  // One new snapshot: built nodes are this run's dbt successes, the rest is the previous head's.
  const RecordedSnapshot& next = after.snapshots.back();
  const auto statuses = dbt_statuses(p, next.run_id);
  if (statuses.empty()) return "snapshot " + next.id + " records run " + next.run_id + ", whose run_results are absent";
  const nlohmann::json previous = n ? before.snapshots.back().document.at("nodes") : nlohmann::json::object();
  for (const auto& [id, node] : next.document.at("nodes").items()) {
    if (node.value("run_id", "") == next.run_id) {
      auto it = statuses.find(id);
      if (it == statuses.end() || it->second != "success")
        return id + " is recorded as built by " + next.run_id + " but dbt reported " +
               (it == statuses.end() ? std::string("nothing") : it->second);
    } else if (!previous.contains(id) || previous.at(id).at("run_id") != node.at("run_id") ||
               previous.at(id).at("fingerprint") != node.at("fingerprint")) {
      return id + " in the new snapshot is neither built by its run nor the previous head's entry";
    }
  }
  return "";
}

TEST(CrashAnywhere, SigkillAtRandomMomentsLosesNothingAndTheNextRunCatchesUp) {
  const std::uint64_t seed = crash_seed();
  const int rounds = env_int("ODS_CRASH_ROUNDS", 30);
  const int verify_every = std::max(1, env_int("ODS_CRASH_VERIFY_EVERY", 15));
  std::cout << "crash-anywhere seed " << seed << " (replay: ODS_CRASH_SEED=" << seed << "), " << rounds
            << " rounds, a full check every " << verify_every << std::endl;
  std::mt19937_64 random(seed);

  DbtProject p("shop");
  ODS_ASSERT_OK(p.generate_data());
  // The uninterrupted first run: every node built, and each step's duration measured.
  WatchedRun first = watch_ods_run(p, {});
  ASSERT_EQ(first.exit_code, 0) << first.log;
  std::map<RunPhase, double> duration;
  for (RunPhase ph : {RunPhase::compile, RunPhase::probe, RunPhase::build, RunPhase::record}) {
    const auto next = static_cast<RunPhase>(static_cast<int>(ph) + 1);
    ASSERT_TRUE(first.seen.contains(ph) && first.seen.contains(next)) << phase_name(ph) << " not seen:\n" << first.log;
    duration[ph] = first.seen[next] - first.seen[ph];
    std::cout << "  measured " << phase_name(ph) << ": " << duration[ph] << " s" << std::endl;
  }

  std::map<std::string, int> hits;
  int advanced = 0;
  const RunPhase aims[] = {RunPhase::compile, RunPhase::probe, RunPhase::build, RunPhase::record};
  for (int round = 1; round <= rounds; ++round) {
    // New rows in the sources, so the readers (an incremental model among them) build.
    ODS_ASSERT_OK(p.generate_data({"--append-orders", "3"}));
    const RecordedState before = read_sqlite_state(state_file(p));
    ASSERT_TRUE(before.error.empty()) << before.error;
    const RunPhase aim = aims[(round - 1) % 4];
    const double delay = std::uniform_real_distribution<double>(0, duration[aim])(random);
    WatchedRun killed = watch_ods_run(p, {}, aim, delay);
    const std::string hit = killed.killed_in ? phase_name(*killed.killed_in) : "none (ended first)";
    ++hits[hit];
    if (!killed.killed_in) {
      EXPECT_EQ(killed.exit_code, 0) << killed.log;
    }
    const RecordedState after = read_sqlite_state(state_file(p));
    const bool moved = after.snapshots.size() > before.snapshots.size();
    advanced += moved;
    std::cout << "  round " << round << ": aimed at " << phase_name(aim) << " +" << delay << " s, killed in " << hit
              << "; state " << (moved ? "advanced one snapshot" : "unchanged") << std::endl;
    const std::string broken = check_after_kill(p, before, after);
    ASSERT_EQ(broken, "") << "round " << round << " (seed " << seed << "):\n" << killed.log;
    ProcessResult doctor = p.ods({"state", "doctor"});
    ASSERT_EQ(doctor.exit_code, 0) << "round " << round << ": " << doctor.output << doctor.errors;

    if (round % verify_every == 0 || round == rounds) {
      WatchedRun next = watch_ods_run(p, {});
      ASSERT_EQ(next.exit_code, 0) << "the run after round " << round << ":\n" << next.log;
      const nlohmann::json got = relation_rows(p);
      const nlohmann::json want = control_rows(p);
      ASSERT_FALSE(got.is_discarded() || want.is_discarded());
      EXPECT_EQ(got, want) << "after round " << round << " the relations differ from a full build (seed " << seed
                           << ")";
      std::cout << "  after round " << round << ": an uninterrupted run; all " << got.size()
                << " relations equal a full build's" << std::endl;
    }
  }
  std::cout << "crash-anywhere: " << rounds << " kills (";
  for (const auto& [phase, count] : hits) std::cout << phase << " " << count << ", ";
  std::cout << advanced << " advanced the state), nothing lost" << std::endl;
}

}  // namespace
}  // namespace ods::testing
