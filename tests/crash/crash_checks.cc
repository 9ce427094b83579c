#include "crash/crash_checks.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "crash/crash_run.h"

namespace ods::testing {

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

std::uint64_t crash_seed(const char* variable) {
  if (const char* v = std::getenv(variable); v && *v) return std::strtoull(v, nullptr, 10);
  return std::random_device{}();
}

nlohmann::json relation_rows(const DbtProject& p) {
  ProcessResult r =
      run_process({(p.venv() / "python").string(), (source_dir() / "tests" / "crash" / "relations.py").string(),
                   "fingerprint", "shop.duckdb"},
                  p.dir(), p.env());
  EXPECT_EQ(r.exit_code, 0) << r.errors;
  return nlohmann::json::parse(r.output, nullptr, false);
}

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

std::map<std::string, std::string> dbt_statuses(const std::filesystem::path& run_results, const std::string& run_id) {
  std::map<std::string, std::string> out;
  auto doc = nlohmann::json::parse(read_text_file(run_results), nullptr, false);
  if (doc.is_discarded() || doc.at("metadata").value("invocation_id", "") != run_id) return out;
  for (const auto& r : doc.at("results")) out[r.at("unique_id")] = r.at("status");
  return out;
}

std::string check_after_kill(const std::filesystem::path& run_results, const RecordedState& before,
                             const RecordedState& after) {
  return check_after_kill([&](const std::string& run_id) { return dbt_statuses(run_results, run_id); }, before, after);
}

std::string check_after_kill(const std::function<DbtStatuses(const std::string& run_id)>& dbt_reported,
                             const RecordedState& before, const RecordedState& after, std::size_t ledger_per_run) {
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
  if (after.run_ids.size() < before.run_ids.size() || after.run_ids.size() > before.run_ids.size() + ledger_per_run)
    return "the run ledger went from " + std::to_string(before.run_ids.size()) + " to " +
           std::to_string(after.run_ids.size()) + " entries";
  if (after.snapshots.size() == n) return "";
  // One new snapshot: built nodes are this run's dbt successes, the rest is the previous head's.
  const RecordedSnapshot& next = after.snapshots.back();
  const auto statuses = dbt_reported(next.run_id);
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

std::string converges_to_full_build(const DbtProject& p, const std::vector<std::string>& extra,
                                    std::size_t& relations) {
  WatchedRun next = watch_ods_run(p, extra);
  if (next.exit_code != 0) return "the uninterrupted run failed:\n" + next.log;
  const nlohmann::json got = relation_rows(p);
  const nlohmann::json want = control_rows(p);
  if (got.is_discarded() || want.is_discarded()) return "the relations could not be fingerprinted";
  relations = got.size();
  if (got != want) return "the relations differ from a full build's:\n" + got.dump() + "\nwanted\n" + want.dump();
  return "";
}

}  // namespace ods::testing
