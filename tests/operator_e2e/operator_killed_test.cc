// The operator killed at random moments of a DbtRun (the operator e2e world: real control plane,
// real PostgreSQL state store, runner pods as `ods pod` processes with real dbt on examples/shop):
// each round aims at a phase the run reaches (Compiling or Planning: the pod's callbacks in
// progress; Building: the pod running dbt; Recording: the controller committing) and SIGKILLs the
// leading replica a random moment after the run was first seen there; a new replica starts at
// once. Then: the run ends in a terminal phase (Succeeded, or Failed with a reason; Succeeded
// when the kill landed while the pod built); the project never has two runner pods running and
// the run has one Job; the state store holds the last committed snapshot or the next one, the
// run recorded once (tests/crash's checks, read straight from PostgreSQL); and
// one more round SIGKILLs the runner pod itself (with its dbt) while it builds: the run fails
// with the Job's reason and the state holds at most the waves the pod reported before it died
// (early cutoff: each checked against that wave's own dbt results). At the end an uninterrupted run succeeds
// and every relation equals a full-build control's.
//
// ODS_OPERATOR_CRASH_SEED replays a sequence (printed first); ODS_OPERATOR_CRASH_ROUNDS
// (default 3) sizes it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <thread>
#include <vector>

#include "crash/crash_checks.h"
#include "crash/postgres_state.h"
#include "harness/process_tree.h"
#include "harness/shop_baseline.h"
#include "ods/control/objects.h"
#include "ods/control/run_job.h"
#include "operator_world.h"

namespace ods::testing {
namespace {

using kube::Json;
using namespace std::chrono_literals;

const std::vector<std::string> kPhases = {"Pending", "Compiling", "Planning", "Building", "Recording", "Succeeded"};

int phase_rank(const std::string& phase) {
  for (std::size_t i = 0; i < kPhases.size(); ++i) {
    if (kPhases[i] == phase) return static_cast<int>(i);
  }
  return phase == "Failed" ? static_cast<int>(kPhases.size()) : -1;
}

// The pod folder of run `run`'s Job (the kubelet stand-in's).
std::filesystem::path pod_dir(OperatorWorld& w, const std::string& run) {
  return w.plane().dir() / "pods" / (control::runner_job_name(run) + "-standin");
}

// What dbt reported in a run's pod, one entry per `dbt build` invocation (one per wave) in the
// order they ran: each wave's dbt rewrites the work volume's target/run_results.json, so the
// watch keeps every version it sees (dbt compile writes one too, which is left out).
struct PodBuilds {
  std::vector<std::string> invocations;
  std::map<std::string, DbtStatuses> statuses;  // by invocation id
  std::filesystem::file_time_type read_at = std::filesystem::file_time_type::min();

  // Reads the pod's run_results.json when it changed since the last read; a file dbt is still
  // writing (unparsable) is read again next time.
  void keep(const std::filesystem::path& results) {
    std::error_code ec;
    const auto written = std::filesystem::last_write_time(results, ec);
    if (ec || written == read_at) return;
    auto report = read_dbt_report(results);
    if (!report) return;
    read_at = written;
    if (report->command != "build") return;
    if (!statuses.contains(report->invocation_id)) invocations.push_back(report->invocation_id);
    DbtStatuses& of_invocation = statuses[report->invocation_id];
    for (auto& [id, status] : report->statuses) of_invocation[id] = std::move(status);
  }

  // The statuses behind ledger run id `run_id`: `<uid>.wave<N>` is wave N's dbt build, the run's
  // own uid its last wave's; empty when that invocation was not seen.
  DbtStatuses of_run(const std::string& run_id) const {
    if (invocations.empty()) return {};
    std::size_t index = invocations.size() - 1;
    if (const auto at = run_id.rfind(".wave"); at != std::string::npos)
      index = static_cast<std::size_t>(std::atoi(run_id.c_str() + at + 5)) - 1;
    return index < invocations.size() ? statuses.at(invocations[index]) : DbtStatuses{};
  }
};

// The pid of the `ods pod` process of run `run` (a child of this process, the stand-in's), or 0.
pid_t runner_pid(OperatorWorld& w, const std::string& run) {
  const std::string log = (pod_dir(w, run) / "log").string();
  for (pid_t pid : descendants_of(::getpid())) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
    std::string cmdline(std::istreambuf_iterator<char>(in), {});
    if (cmdline.find(std::string("pod") + '\0') != std::string::npos &&
        std::filesystem::path(cmdline.substr(0, cmdline.find('\0'))).filename() == "ods") {
      std::ifstream env("/proc/" + std::to_string(pid) + "/environ");
      std::string environ(std::istreambuf_iterator<char>(env), {});
      if (environ.find("ODS_RUN=" + std::string(kAppNamespace) + "/" + run + '\0') != std::string::npos) return pid;
    }
  }
  return 0;
}

struct WatchedDbtRun {
  std::optional<Json> finished;
  std::string killed_in;  // the phase when the kill landed ("" when the run ended first)
  int most_running_pods = 0;
  PodBuilds builds;
  std::string problem;
};

// Creates run `name` and polls it (and the project's pods) until it ends; once it has reached
// `aim` (or a later phase), waits `delay` seconds and calls `kill` once.
WatchedDbtRun watch_run(OperatorWorld& w, const std::string& name, const std::string& aim, double delay,
                        const std::function<void()>& kill) {
  WatchedDbtRun out;
  if (auto created = w.create_run(name, "shop"); !created) {
    out.problem = "create " + name + ": " + created.error();
    return out;
  }
  std::optional<std::chrono::steady_clock::time_point> reached;
  const auto deadline = std::chrono::steady_clock::now() + 600s;
  while (std::chrono::steady_clock::now() < deadline) {
    auto run = w.client().find(kube::resources::kDbtRuns, {kAppNamespace, name});
    const std::string phase = run && *run ? phase_of(**run) : "";
    kube::ListOptions of_project;
    of_project.label_selector = std::string(control::kProjectLabel) + "=shop";
    auto pods = w.client().list(kube::resources::kPods, kAppNamespace, of_project);
    if (pods) {
      int running = 0;
      for (const auto& pod : (*pods)["items"])
        running += pod.contains("status") && pod["status"].value("phase", "") == "Running";
      out.most_running_pods = std::max(out.most_running_pods, running);
    }
    out.builds.keep(pod_dir(w, name) / "volumes" / "work" / "target" / "run_results.json");
    if (phase == "Succeeded" || phase == "Failed") {
      out.finished = **run;
      return out;
    }
    if (out.killed_in.empty() && kill) {
      if (!reached && phase_rank(phase) >= phase_rank(aim)) reached = std::chrono::steady_clock::now();
      if (reached && std::chrono::steady_clock::now() >= *reached + std::chrono::duration<double>(delay)) {
        out.killed_in = phase;
        kill();
      }
    }
    std::this_thread::sleep_for(50ms);
  }
  out.problem = "run " + name + " did not end within 600 s";
  return out;
}

// The Jobs of run `name`.
int jobs_of(OperatorWorld& w, const std::string& name) {
  kube::ListOptions of_run;
  of_run.label_selector = std::string(control::kRunLabel) + "=" + name;
  auto jobs = w.client().list(kube::resources::kJobs, kAppNamespace, of_run);
  return jobs ? static_cast<int>((*jobs)["items"].size()) : -1;
}

TEST(OperatorKilledMidRun, EveryRunEndsOnceWithOnePodAndTheStoreHoldsTheLastOrTheNextSnapshot) {
  const std::uint64_t seed = crash_seed("ODS_OPERATOR_CRASH_SEED");
  const int rounds = env_int("ODS_OPERATOR_CRASH_ROUNDS", 3);
  std::cout << "operator-killed seed " << seed << " (replay: ODS_OPERATOR_CRASH_SEED=" << seed << "), " << rounds
            << " operator kills and one runner pod kill" << std::endl;
  std::mt19937_64 random(seed);

  ::setenv("TMPDIR", "/var/tmp", 1);
  auto started = OperatorWorld::start();
  ASSERT_TRUE(started) << started.error();
  OperatorWorld& w = **started;
  int replicas = 0;
  std::string leader = "replica-" + std::to_string(replicas++);
  ASSERT_TRUE(w.start_operator(leader));
  ProcessResult applied = w.kubectl_apply(w.shop_project("shop", "0 6 * * *", /*with_digest_key=*/true));
  ASSERT_EQ(applied.exit_code, 0) << applied.errors;

  // The first run builds everything, uninterrupted: how long each phase lasts.
  WatchedDbtRun first = watch_run(w, "shop-first", "", 0, nullptr);
  ASSERT_TRUE(first.finished) << first.problem << w.diagnostics();
  ASSERT_EQ(phase_of(*first.finished), "Succeeded") << first.finished->dump(2) << w.diagnostics();

  const RecordedState first_state = read_postgres_state(w.postgres());
  ASSERT_TRUE(first_state.error.empty()) << first_state.error;
  const std::size_t ledger_per_run = first_state.run_ids.size();  // the plan's entry and the result's
  ASSERT_GE(ledger_per_run, 1u);

  const std::string aims[] = {"Building", "Planning", "Recording", "Compiling"};
  int operator_kills_in_building = 0;
  for (int round = 1; round <= rounds + 1; ++round) {
    const bool kill_pod = round == rounds + 1;
    ODS_ASSERT_OK(w.project().generate_data({"--append-orders", "3"}));
    const RecordedState before = read_postgres_state(w.postgres());
    ASSERT_TRUE(before.error.empty()) << before.error;
    const std::string aim = kill_pod ? "Building" : aims[(round - 1) % 4];
    // Within a few seconds of reaching the phase: the Recording phase lasts well under one. The
    // runner pod's Building (dbt's two waves of the shop's changed nodes) lasts 1-4 s here:
    // its kill comes within 3 s, or it would mostly land after the run ended and prove nothing.
    const double most = aim != "Building" ? 0.5 : kill_pod ? 3.0 : 5.0;
    const double delay = std::uniform_real_distribution<double>(0, most)(random);
    const std::string name = "shop-kill-" + std::to_string(round);
    std::string kill_problem;
    bool pod_gone = false;  // the kill came after the runner pod's process had exited
    WatchedDbtRun run = watch_run(w, name, aim, delay, [&] {
      if (kill_pod) {
        const pid_t pod = runner_pid(w, name);
        pod_gone = pod == 0;
        if (pod != 0) kill_process_tree(pod);
        return;
      }
      w.kill_operator(leader);
      leader = "replica-" + std::to_string(replicas++);
      if (auto next = w.start_operator(leader); !next) kill_problem = next.error();
    });
    ASSERT_EQ(run.problem, "") << w.diagnostics();
    ASSERT_EQ(kill_problem, "") << w.diagnostics();
    if (pod_gone) run.killed_in.clear();  // the pod had reported its results: the run ended first
    const Json& ended = *run.finished;
    const std::string phase = phase_of(ended);
    const std::string reason = ended["status"].value("reason", "");
    std::cout << "  round " << round << ": " << (kill_pod ? "runner pod" : "operator") << " SIGKILL aimed at " << aim
              << " +" << delay << " s, landed in " << (run.killed_in.empty() ? "none (ended first)" : run.killed_in)
              << "; the run " << phase << (reason.empty() ? "" : " (" + reason + ")") << std::endl;
    EXPECT_TRUE(phase == "Succeeded" || (phase == "Failed" && !reason.empty())) << ended.dump(2);
    if (kill_pod && !run.killed_in.empty()) {
      EXPECT_EQ(phase, "Failed") << "a runner pod killed while it built: " << ended.dump(2);
    }
    // The leader killed while the pod builds: the new one takes the Lease over, the pod's
    // results reach it, and the run succeeds (recorded once: check_after_kill below).
    if (!kill_pod && run.killed_in == "Building") {
      ++operator_kills_in_building;
      EXPECT_EQ(phase, "Succeeded") << "the operator killed while its run built: " << ended.dump(2);
    }
    EXPECT_LE(run.most_running_pods, 1) << "two runner pods of one project at once";
    EXPECT_EQ(jobs_of(w, name), 1) << "run " << name << " has not exactly one Job";

    const RecordedState after = read_postgres_state(w.postgres());
    const std::string broken = check_after_kill([&](const std::string& run_id) { return run.builds.of_run(run_id); },
                                                before, after, ledger_per_run);
    ASSERT_EQ(broken, "") << "round " << round << " (seed " << seed << ")\n" << w.pod_log(name) << w.diagnostics();
    const bool moved = after.snapshots.size() > before.snapshots.size();
    if (phase == "Succeeded") {
      EXPECT_TRUE(moved) << "a Succeeded run records a snapshot";
    }
    // A Failed run records at most the waves its pod reported before it died, never its end.
    for (std::size_t i = before.snapshots.size(); phase != "Succeeded" && i < after.snapshots.size(); ++i) {
      EXPECT_NE(after.snapshots[i].run_id.find(".wave"), std::string::npos)
          << "a Failed run recorded snapshot " << after.snapshots[i].id << " of " << after.snapshots[i].run_id;
    }
  }

  // The next run converges: it succeeds and the warehouse is what a full build makes.
  ODS_ASSERT_OK(w.project().generate_data({"--append-orders", "3"}));
  WatchedDbtRun last = watch_run(w, "shop-after", "", 0, nullptr);
  ASSERT_TRUE(last.finished) << last.problem << w.diagnostics();
  ASSERT_EQ(phase_of(*last.finished), "Succeeded") << last.finished->dump(2) << w.diagnostics();
  w.stop_all_operators();
  const Json got = relation_rows(w.project());
  const Json want = control_rows(w.project());
  ASSERT_FALSE(got.is_discarded() || want.is_discarded());
  EXPECT_EQ(got, want) << "after the kills the relations differ from a full build (seed " << seed << ")";
  std::cout << "operator-killed: " << rounds << " operator kills (" << operator_kills_in_building
            << " while the pod built) and one runner pod kill; all " << got.size()
            << " relations equal a full build's, nothing lost" << std::endl;
}

}  // namespace
}  // namespace ods::testing
