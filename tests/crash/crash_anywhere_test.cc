// Crash anywhere: `ods state run` on a copy of examples/shop (DuckDB, SQLite state) killed with
// SIGKILL, with everything it started, at random moments spread over its steps (compile,
// probe, build, record), half of the rounds in two waves (`--cutoff always`). After each kill:
// the state is the last committed snapshot or a next one per wave recorded, never a mix; no node is recorded as built
// that dbt did not report successful; the history is one chain; and now and then (and at the end) an uninterrupted run
// brings every relation to what a control project built from scratch on the same data holds.
//
// ODS_CRASH_SEED replays a sequence (the seed is printed first); ODS_CRASH_ROUNDS (default 30)
// and ODS_CRASH_VERIFY_EVERY (default 15) size it.
#include <gtest/gtest.h>

#include <iostream>
#include <random>

#include "crash/crash_checks.h"
#include "crash/crash_run.h"
#include "crash/sqlite_state.h"
#include "harness/shop_baseline.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;

fs::path state_file(const DbtProject& p) { return p.dir() / ".ods" / "state.db"; }

TEST(CrashAnywhere, SigkillAtRandomMomentsLosesNothingAndTheNextRunCatchesUp) {
  const std::uint64_t seed = crash_seed("ODS_CRASH_SEED");
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
  ASSERT_EQ(step_durations(first, duration), "") << first.log;
  for (const auto& [ph, seconds] : duration)
    std::cout << "  measured " << phase_name(ph) << ": " << seconds << " s" << std::endl;
  // The same of a run in two waves (new rows: the staging models build, then their readers):
  // its `record` is everything after the first wave's build, the second wave included.
  const std::vector<std::string> two_waves{"--cutoff", "always"};
  ODS_ASSERT_OK(p.generate_data({"--append-orders", "3"}));
  const RecordedState before_waves = read_sqlite_state(state_file(p));
  WatchedRun in_waves = watch_ods_run(p, two_waves);
  ASSERT_EQ(in_waves.exit_code, 0) << in_waves.log;
  ASSERT_NE(in_waves.log.find("ods: wave 2: building"), std::string::npos) << in_waves.log;
  // Uninterrupted, it commits one snapshot per wave, each of its own dbt build's successes.
  const RecordedState after_waves = read_sqlite_state(state_file(p));
  ASSERT_EQ(after_waves.snapshots.size(), before_waves.snapshots.size() + waves_started(in_waves.log)) << in_waves.log;
  ASSERT_EQ(check_after_kill(in_waves, before_waves, after_waves), "") << in_waves.log;
  std::map<RunPhase, double> wave_duration;
  ASSERT_EQ(step_durations(in_waves, wave_duration), "") << in_waves.log;
  for (const auto& [ph, seconds] : wave_duration)
    std::cout << "  measured in two waves " << phase_name(ph) << ": " << seconds << " s" << std::endl;

  std::map<std::string, int> hits;
  int advanced = 0;
  const RunPhase aims[] = {RunPhase::compile, RunPhase::probe, RunPhase::build, RunPhase::record};
  for (int round = 1; round <= rounds; ++round) {
    // New rows in the sources, so the readers (an incremental model among them) build.
    ODS_ASSERT_OK(p.generate_data({"--append-orders", "3"}));
    const RecordedState before = read_sqlite_state(state_file(p));
    ASSERT_TRUE(before.error.empty()) << before.error;
    const RunPhase aim = aims[(round - 1) % 4];
    // Every other four rounds in two waves whatever the cost model says (`--cutoff always`), so
    // kills land between waves too.
    const bool waves = ((round - 1) / 4) % 2 == 1;
    const double delay = std::uniform_real_distribution<double>(0, (waves ? wave_duration : duration)[aim])(random);
    WatchedRun killed = watch_ods_run(p, waves ? two_waves : std::vector<std::string>{}, aim, delay);
    const std::string hit = killed.killed_in ? phase_name(*killed.killed_in) : "none (ended first)";
    ++hits[hit];
    if (!killed.killed_in) {
      EXPECT_EQ(killed.exit_code, 0) << killed.log;
    }
    const RecordedState after = read_sqlite_state(state_file(p));
    const std::size_t added = after.snapshots.size() - std::min(after.snapshots.size(), before.snapshots.size());
    advanced += added > 0;
    std::cout << "  round " << round << ": " << (waves ? "--cutoff always, " : "") << "aimed at " << phase_name(aim)
              << " +" << delay << " s, killed in " << hit << "; state "
              << (added ? "advanced " + std::to_string(added) + " snapshot(s)" : std::string("unchanged")) << std::endl;
    const std::string broken = check_after_kill(killed, before, after);
    ASSERT_EQ(broken, "") << "round " << round << " (seed " << seed << "):\n" << killed.log;
    ProcessResult doctor = p.ods({"state", "doctor"});
    ASSERT_EQ(doctor.exit_code, 0) << "round " << round << ": " << doctor.output << doctor.errors;

    if (round % verify_every == 0 || round == rounds) {
      std::size_t relations = 0;
      const std::string differs = converges_to_full_build(p, {}, relations);
      ASSERT_EQ(differs, "") << "after round " << round << " (seed " << seed << ")";
      std::cout << "  after round " << round << ": an uninterrupted run; all " << relations
                << " relations equal a full build's" << std::endl;
    }
  }
  std::cout << "crash-anywhere: " << rounds << " kills (";
  for (const auto& [phase, count] : hits) std::cout << phase << " " << count << ", ";
  std::cout << advanced << " advanced the state), nothing lost" << std::endl;
}

}  // namespace
}  // namespace ods::testing
