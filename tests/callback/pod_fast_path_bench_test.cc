// The pod's wall and CPU seconds for a nothing-changed run (issue 41 item 4; docs/benchmarks.md,
// "Nothing changed in a runner pod"), measured here rather than on the real node: `ods pod` as a
// runner pod runs it (a fresh target folder each run, as the Job's emptyDir), against the
// controller's callback server in this process with the PostgreSQL state store, on a project of
// bench/gen_project.py --adapter postgres. Skipped unless $ODS_POD_BENCH_NODES is set (the
// project's size; its first build takes minutes). Rounds of three pods each, alternating:
//   fast path:   this ods with the packages cache (the kept parse and the head step);
//   no cache:    this ods without a cache (the head step only: dbt parses, compiles nothing);
//   before:      $ODS_POD_BENCH_BASELINE (an ods without the head step, e.g. main's build), which
//                compiles the whole project each run; absent: not measured.
// Wall seconds: process start to exit; CPU seconds: user + system of the pod process and every
// process it started and waited for (getrusage RUSAGE_CHILDREN around it). Prints one line per
// pod and the medians; the load average (1 min) beside each.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "callback_fixture.h"
#include "harness/postgres_server.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;

double children_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_CHILDREN, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

std::string load1() {
  std::ifstream in("/proc/loadavg");
  std::string first;
  in >> first;
  return first;
}

struct PodTime {
  double wall = 0, cpu = 0;
  std::string load;
};

TEST(PodFastPathBench, NothingChangedInAPodWithAndWithoutTheKeptParse) {
  const char* nodes = std::getenv("ODS_POD_BENCH_NODES");
  if (nodes == nullptr) GTEST_SKIP() << "set ODS_POD_BENCH_NODES (e.g. 1000) to measure";
  const char* baseline = std::getenv("ODS_POD_BENCH_BASELINE");
  const int rounds = std::getenv("ODS_POD_BENCH_ROUNDS") ? std::atoi(std::getenv("ODS_POD_BENCH_ROUNDS")) : 3;
  auto state = fresh_postgres_store();
  ASSERT_NE(state, nullptr);
  const std::string data_dsn = fresh_state_database();  // the warehouse: another database of the same server
  const std::string data_db = data_dsn.substr(data_dsn.rfind('=') + 1);
  const std::string port =
      data_dsn.substr(data_dsn.find("port=") + 5, data_dsn.find(" user=") - data_dsn.find("port=") - 5);
  const std::string user =
      data_dsn.substr(data_dsn.find("user=") + 5, data_dsn.find(" dbname=") - data_dsn.find("user=") - 5);
  DbtProject p = DbtProject::empty("podbench");
  p.add_env(
      {"BENCH_PG_HOST=127.0.0.1", "BENCH_PG_PORT=" + port, "BENCH_PG_USER=" + user, "BENCH_PG_DBNAME=" + data_db});
  ProcessResult generated =
      run_process({(venv_bin() / "python").string(), (source_dir() / "bench/gen_project.py").string(), nodes,
                   p.dir().string(), "--adapter", "postgres"},
                  p.dir(), p.env());
  ASSERT_EQ(generated.exit_code, 0) << generated.output << generated.errors;
  ProcessResult raw = p.dbt({"run-operation", "bench_create_raw"});
  ASSERT_EQ(raw.exit_code, 0) << raw.output << raw.errors;

  TestRuns runs;
  PhaseLog log;
  auto server = start_test_server(runs, log, *state);
  ASSERT_NE(server, nullptr);
  const fs::path cache = p.dir().parent_path() / "packages-cache";
  int next = 0;
  // One pod of `binary` ("" this ods), `cached`: with the packages cache.
  auto pod = [&](const std::string& binary, bool cached, std::string* said = nullptr) {
    fs::remove_all(p.dir() / "target");
    const std::string name = "run-" + std::to_string(++next);
    runs.add("bench", name, "uid-" + name, "dev", "bench");
    std::vector<std::string> argv = pod_args(p, *server, "bench", name, "uid-" + name);
    argv.insert(argv.end(), {"--target", "dev", "--project-dir", p.dir().string()});
    if (cached) argv.insert(argv.end(), {"--packages-cache", cache.string()});
    argv.insert(argv.begin(), binary.empty() ? (bin_dir() / "ods").string() : binary);
    PodTime t;
    t.load = load1();
    const double cpu0 = children_cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    ProcessResult r = run_process(argv, p.dir(), p.env());
    t.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    t.cpu = children_cpu_seconds() - cpu0;
    EXPECT_EQ(r.exit_code, 0) << r.output << r.errors;
    if (said) *said = r.output + r.errors;
    return t;
  };
  std::string said;
  for (int i = 0; i < 4; ++i) {
    const PodTime t = pod("", true, &said);
    std::cout << "[pod bench] steady-up run " << i + 1 << ": " << t.wall << " s wall (load " << t.load << ")"
              << std::endl;
    if (said.find("dbt build not started") != std::string::npos) break;
  }
  ASSERT_NE(said.find("dbt build not started"), std::string::npos) << said;

  std::map<std::string, std::vector<PodTime>> times;
  for (int round = 0; round < rounds; ++round) {
    times["fast path"].push_back(pod("", true, &said));
    EXPECT_NE(said.find("the kept parse stands, dbt not started"), std::string::npos) << said;
    EXPECT_NE(said.find("dbt build not started"), std::string::npos) << said;
    times["no cache"].push_back(pod("", false));
    if (baseline) times["before"].push_back(pod(baseline, false));
  }
  for (auto& [mode, list] : times) {
    for (const auto& t : list)
      std::cout << "[pod bench] " << nodes << " nodes, " << mode << ": " << t.wall << " s wall, " << t.cpu
                << " s CPU (load " << t.load << ")" << std::endl;
    auto by_wall = list;
    std::sort(by_wall.begin(), by_wall.end(), [](const PodTime& a, const PodTime& b) { return a.wall < b.wall; });
    auto by_cpu = list;
    std::sort(by_cpu.begin(), by_cpu.end(), [](const PodTime& a, const PodTime& b) { return a.cpu < b.cpu; });
    const PodTime& median = by_wall[by_wall.size() / 2];
    std::cout << "[pod bench] median " << nodes << " nodes, " << mode << ": " << median.wall << " s wall (load "
              << median.load << "), " << by_cpu[by_cpu.size() / 2].cpu << " s CPU" << std::endl;
  }
}

}  // namespace
}  // namespace ods::testing
