// The PostgreSQL state server killed at random moments of `ods state run` (examples/shop,
// DuckDB warehouse, the state in a private PostgreSQL server on a loopback port): with SIGKILL
// to the postmaster and every backend (a machine that dies), and now and then with an
// immediate shutdown, at moments spread over the commit (the record step) and some over the
// probe and the build; restarted at once on the same data directory (crash recovery), while
// ods goes on. After each: the store holds the last committed snapshot or the next one, never
// a mix; no node is recorded as built that dbt did not report successful; one chain; the
// ledger grew by at most one; `ods state doctor` is content; a failed run's error names the
// store and never its password; and now and then (and at the end) an uninterrupted run
// brings every relation to what a full-build control holds.
//
// ODS_PG_CRASH_SEED replays a sequence (the seed is printed first); ODS_PG_CRASH_ROUNDS
// (default 6) and ODS_PG_CRASH_VERIFY_EVERY (default 6: one comparison, after the last) size it.
#include <gtest/gtest.h>

#include <iostream>
#include <random>

#include "crash/crash_checks.h"
#include "crash/crash_run.h"
#include "crash/postgres_state.h"
#include "harness/postgres_server.h"
#include "harness/shop_baseline.h"

namespace ods::testing {
namespace {

using CrashMode = PostgresServer::CrashMode;

// The password in the store's URL. The test server trusts loopback connections, so it is
// never asked for; it must still appear in nothing ods prints.
constexpr char kPassword[] = "pg-crash-Secret-7d3f";

TEST(PostgresKilledMidCommit, TheStoreHoldsTheLastOrTheNextSnapshotAndTheNextRunCatchesUp) {
  const std::uint64_t seed = crash_seed("ODS_PG_CRASH_SEED");
  const int rounds = env_int("ODS_PG_CRASH_ROUNDS", 6);
  const int verify_every = std::max(1, env_int("ODS_PG_CRASH_VERIFY_EVERY", 6));
  std::cout << "postgres-killed seed " << seed << " (replay: ODS_PG_CRASH_SEED=" << seed << "), " << rounds
            << " rounds, a full check every " << verify_every << std::endl;
  std::mt19937_64 random(seed);

  PostgresServer::Options options;
  options.durable_commits = true;  // what ods was told is committed must survive the kill
  auto started = PostgresServer::start(options);
  ASSERT_TRUE(started.has_value()) << started.error();
  PostgresServer& server = **started;
  const std::string where = "postgres@127.0.0.1:" + std::to_string(server.port()) + "/" + server.database();
  const std::string url = "postgresql://postgres:" + std::string(kPassword) +
                          "@127.0.0.1:" + std::to_string(server.port()) + "/" + server.database();
  const std::vector<std::string> state{"--state", url};

  DbtProject p("shop");
  ODS_ASSERT_OK(p.generate_data());
  WatchedRun first = watch_ods_run(p, state);
  ASSERT_EQ(first.exit_code, 0) << first.log;
  std::map<RunPhase, double> duration;
  ASSERT_EQ(step_durations(first, duration), "") << first.log;
  for (const auto& [ph, seconds] : duration)
    std::cout << "  measured " << phase_name(ph) << ": " << seconds << " s" << std::endl;

  // Most moments over the record step (the commit and the ledger entry), some over the probe
  // (which reads the head) and the build (the store idle, its connection cut under it).
  const RunPhase aims[] = {RunPhase::record, RunPhase::probe, RunPhase::record, RunPhase::build, RunPhase::record};
  std::map<std::string, int> hits;
  int advanced = 0;
  int failed = 0;
  for (int round = 1; round <= rounds; ++round) {
    ODS_ASSERT_OK(p.generate_data({"--append-orders", "3"}));
    const RecordedState before = read_postgres_state(server);
    ASSERT_TRUE(before.error.empty()) << before.error;
    const RunPhase aim = aims[(round - 1) % 5];
    const CrashMode mode = round % 5 == 0 ? CrashMode::immediate_shutdown : CrashMode::sigkill;
    const double delay = std::uniform_real_distribution<double>(0, duration[aim])(random);
    std::string server_problem;
    WatchedRun run = watch_ods_run(p, state, aim, delay, std::chrono::seconds(900), [&] {
      if (auto crashed = server.crash(mode); !crashed) server_problem = crashed.error();
      if (auto restarted = server.restart(); !restarted) server_problem += restarted.error();
    });
    ASSERT_EQ(server_problem, "") << "round " << round;
    const std::string how = mode == CrashMode::sigkill ? "SIGKILL" : "immediate shutdown";
    const std::string hit = run.killed_in ? phase_name(*run.killed_in) : "none (ended first)";
    ++hits[hit];
    if (run.exit_code != 0) {
      ++failed;
      EXPECT_EQ(run.exit_code, 1) << "round " << round << ":\n" << run.log;
      EXPECT_NE(run.log.find(where), std::string::npos) << "round " << round << ": the error names no store:\n"
                                                        << run.log;
    }
    EXPECT_EQ(run.log.find(kPassword), std::string::npos) << "round " << round << " printed the password:\n" << run.log;

    const RecordedState after = read_postgres_state(server);
    const bool moved = after.snapshots.size() > before.snapshots.size();
    advanced += moved;
    std::cout << "  round " << round << ": " << how << " aimed at " << phase_name(aim) << " +" << delay
              << " s, landed in " << hit << "; ods exited " << run.exit_code << ", state "
              << (moved ? "advanced one snapshot" : "unchanged") << std::endl;
    if (run.exit_code == 0) {
      EXPECT_TRUE(moved) << "round " << round << ": ods succeeded but the store holds no new snapshot:\n" << run.log;
    }
    const std::string broken = check_after_kill(run, before, after);
    ASSERT_EQ(broken, "") << "round " << round << " (seed " << seed << "):\n" << run.log;
    ProcessResult doctor = p.ods({"state", "doctor", "--state", url});
    ASSERT_EQ(doctor.exit_code, 0) << "round " << round << ": " << doctor.output << doctor.errors;

    if (round % verify_every == 0 || round == rounds) {
      std::size_t relations = 0;
      const std::string differs = converges_to_full_build(p, state, relations);
      ASSERT_EQ(differs, "") << "after round " << round << " (seed " << seed << ")";
      std::cout << "  after round " << round << ": an uninterrupted run; all " << relations
                << " relations equal a full build's" << std::endl;
    }
  }
  std::cout << "postgres-killed: " << rounds << " server crashes (";
  for (const auto& [phase, count] : hits) std::cout << phase << " " << count << ", ";
  std::cout << failed << " runs failed, " << advanced << " advanced the state), nothing lost" << std::endl;
}

}  // namespace
}  // namespace ods::testing
