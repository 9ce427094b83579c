#include "crash/crash_run.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "harness/background_process.h"
#include "harness/process_tree.h"

namespace ods::testing {

namespace fs = std::filesystem;

std::string phase_name(RunPhase phase) {
  switch (phase) {
    case RunPhase::compile:
      return "compile";
    case RunPhase::probe:
      return "probe";
    case RunPhase::build:
      return "build";
    case RunPhase::record:
      return "record";
    case RunPhase::exited:
      return "exited";
  }
  return "?";
}

namespace {

fs::file_time_type mtime_or_min(const fs::path& file) {
  std::error_code ec;
  auto t = fs::last_write_time(file, ec);
  return ec ? fs::file_time_type::min() : t;
}

// The newest step the log and the artifacts show.
RunPhase current_phase(const std::string& log, bool results_rewritten) {
  if (log.find("ods: building") != std::string::npos) return results_rewritten ? RunPhase::record : RunPhase::build;
  if (log.find("dbt build not started") != std::string::npos) return RunPhase::record;
  if (log.find("ods: probing") != std::string::npos) return RunPhase::probe;
  return RunPhase::compile;
}

// Adds the statuses in `results` to run.dbt_results: false while the file can't be parsed (dbt
// is still writing it).
bool keep_results(const fs::path& results, WatchedRun& run) {
  auto report = read_dbt_report(results);
  if (!report) return false;
  DbtStatuses& statuses = run.dbt_results[report->invocation_id];
  for (auto& [id, status] : report->statuses) statuses[id] = std::move(status);
  return true;
}

}  // namespace

std::optional<DbtReport> read_dbt_report(const fs::path& path) {
  auto doc = nlohmann::json::parse(read_text_file(path), nullptr, false);
  if (doc.is_discarded() || !doc.contains("metadata") || !doc.contains("results")) return std::nullopt;
  DbtReport report;
  report.invocation_id = doc.at("metadata").value("invocation_id", "");
  report.command = doc.value("args", nlohmann::json::object()).value("which", "");
  for (const auto& r : doc.at("results")) report.statuses[r.value("unique_id", "")] = r.value("status", "");
  return report;
}

std::size_t waves_started(const std::string& log) {
  std::size_t count = 0;
  for (auto at = log.find("ods: wave "); at != std::string::npos; at = log.find("ods: wave ", at + 1)) {
    const auto colon = log.find(':', at + 10);
    if (colon != std::string::npos && log.compare(colon, 10, ": building") == 0) ++count;
  }
  return count;
}

WatchedRun watch_ods_run(const DbtProject& p, const std::vector<std::string>& extra, std::optional<RunPhase> kill_phase,
                         double kill_after, std::chrono::seconds deadline, const std::function<void()>& instead) {
  const fs::path log = p.dir() / "ods-crash.log";
  const fs::path results = p.dir() / "target" / "run_results.json";
  fs::remove(log);
  // dbt compile writes run_results.json too: the build's is the one written after it (or its
  // latest wave) started.
  std::optional<fs::file_time_type> results_at_build;
  std::size_t waves = 0;
  fs::file_time_type results_read = mtime_or_min(results);
  std::vector<std::string> argv{"/usr/bin/env"};
  argv.insert(argv.end(), p.env().begin(), p.env().end());
  argv.push_back("ODS_DBT=" + (p.venv() / "dbt").string());
  argv.push_back("DBT_SEND_ANONYMOUS_USAGE_STATS=false");
  for (const auto& a : {ods_binary().string(), std::string("state"), std::string("run"), std::string("--project-dir"),
                        p.dir().string(), std::string("--profiles-dir"), p.dir().string()}) {
    argv.push_back(a);
  }
  argv.insert(argv.end(), extra.begin(), extra.end());

  WatchedRun run;
  BackgroundProcess ods;
  auto started = ods.start(argv, p.dir(), log);
  EXPECT_TRUE(started.has_value()) << started.error();
  if (!started) return run;
  const auto t0 = std::chrono::steady_clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  std::string text;
  for (;;) {
    const bool ended = ods.exited();
    text = read_text_file(log);
    if (!results_at_build && text.find("ods: building") != std::string::npos) results_at_build = mtime_or_min(results);
    if (const std::size_t seen_waves = waves_started(text); seen_waves > waves) {
      waves = seen_waves;
      results_at_build = mtime_or_min(results);
    }
    if (const auto written = mtime_or_min(results); written != results_read && keep_results(results, run))
      results_read = written;
    auto rewritten = [&] { return results_at_build && mtime_or_min(results) != *results_at_build; };
    const RunPhase now = ended ? RunPhase::exited : current_phase(text, rewritten());
    for (RunPhase ph = RunPhase::compile; ph <= now; ph = static_cast<RunPhase>(static_cast<int>(ph) + 1)) {
      run.seen.try_emplace(ph, seconds());
    }
    if (ended) break;
    if (kill_phase && !run.killed_in && run.seen.contains(*kill_phase) &&
        seconds() >= run.seen[*kill_phase] + kill_after) {
      if (instead) {
        run.killed_in = current_phase(read_text_file(log), rewritten());
        instead();
        continue;
      }
      kill_process_tree(ods.pid());
      run.killed_in = current_phase(read_text_file(log), rewritten());
      while (!ods.exited()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      break;
    }
    if (seconds() > static_cast<double>(deadline.count())) {
      ADD_FAILURE() << "ods state run did not end within " << deadline.count() << " s:\n" << text;
      kill_process_tree(ods.pid());
      ods.stop();
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  run.log = read_text_file(log);
  keep_results(results, run);
  const std::string how = ods.exit_description();
  const std::string prefix = "exited with code ";
  if ((!run.killed_in || instead) && how.starts_with(prefix)) run.exit_code = std::stoi(how.substr(prefix.size()));
  return run;
}

std::string step_durations(const WatchedRun& run, std::map<RunPhase, double>& duration) {
  for (RunPhase ph : {RunPhase::compile, RunPhase::probe, RunPhase::build, RunPhase::record}) {
    const auto next = static_cast<RunPhase>(static_cast<int>(ph) + 1);
    if (!run.seen.contains(ph) || !run.seen.contains(next)) return phase_name(ph) + " not seen";
    duration[ph] = run.seen.at(next) - run.seen.at(ph);
  }
  return "";
}

}  // namespace ods::testing
