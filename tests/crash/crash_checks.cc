#include "crash/crash_checks.h"

#include <gtest/gtest.h>

#include <algorithm>
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
  // The checked-out commit: the same kill moments for a commit on any machine, other ones for
  // the next commit. The variable's name is mixed in so that the suites do not aim alike.
  const ProcessResult head = run_process({"git", "rev-parse", "HEAD"}, source_dir());
  if (head.exit_code == 0 && head.output.size() >= 16) {
    std::uint64_t seed = std::strtoull(head.output.substr(0, 16).c_str(), nullptr, 16);
    for (const char* c = variable; *c; ++c) seed = (seed ^ static_cast<unsigned char>(*c)) * 1099511628211ULL;
    return seed;
  }
  return std::random_device{}();  // not a git checkout
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

std::string check_after_kill(const WatchedRun& run, const RecordedState& before, const RecordedState& after) {
  return check_after_kill(
      [&](const std::string& run_id) {
        auto it = run.dbt_results.find(run_id);
        return it == run.dbt_results.end() ? DbtStatuses{} : it->second;
      },
      before, after);
}

namespace {

// `next` follows `previous` (the head it was committed on): its nodes recorded as built by its
// run are ones dbt reported `success`; every other node is the previous head's entry.
std::string check_new_snapshot(const DbtStatuses& statuses, const nlohmann::json& previous,
                               const RecordedSnapshot& next) {
  if (statuses.empty()) return "snapshot " + next.id + " records run " + next.run_id + ", whose run_results are absent";
  for (const auto& [id, node] : next.document.at("nodes").items()) {
    if (node.value("run_id", "") == next.run_id) {
      auto it = statuses.find(id);
      if (it == statuses.end() || it->second != "success")
        return id + " is recorded as built by " + next.run_id + " but dbt reported " +
               (it == statuses.end() ? std::string("nothing") : it->second);
    } else if (!previous.contains(id) || previous.at(id).at("run_id") != node.at("run_id") ||
               previous.at(id).at("fingerprint") != node.at("fingerprint")) {
      return id + " in snapshot " + next.id + " is neither built by its run nor the previous head's entry";
    }
  }
  return "";
}

}  // namespace

std::string check_after_kill(const std::function<DbtStatuses(const std::string& run_id)>& dbt_reported,
                             const RecordedState& before, const RecordedState& after, std::size_t ledger_per_run) {
  if (!after.error.empty()) return "the state database can't be read: " + after.error;
  if (auto chain = chain_problem(after); !chain.empty()) return "the history is not one chain: " + chain;
  const std::size_t n = before.snapshots.size();
  if (after.snapshots.size() < n) {
    return "had " + std::to_string(n) + " snapshots, now " + std::to_string(after.snapshots.size());
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (after.snapshots[i].id != before.snapshots[i].id || after.snapshots[i].document != before.snapshots[i].document)
      return "committed snapshot " + before.snapshots[i].id + " changed";
  }
  const std::size_t added = after.snapshots.size() - n;
  const std::size_t ledger_limit = ledger_per_run * std::max<std::size_t>(1, added);
  if (after.run_ids.size() < before.run_ids.size() || after.run_ids.size() > before.run_ids.size() + ledger_limit)
    return "the run ledger went from " + std::to_string(before.run_ids.size()) + " to " +
           std::to_string(after.run_ids.size()) + " entries (" + std::to_string(added) + " new snapshots)";
  // Each new snapshot (one per wave the run recorded) on the one before it.
  for (std::size_t i = n; i < after.snapshots.size(); ++i) {
    const RecordedSnapshot& next = after.snapshots[i];
    const nlohmann::json previous = i ? after.snapshots[i - 1].document.at("nodes") : nlohmann::json::object();
    if (auto broken = check_new_snapshot(dbt_reported(next.run_id), previous, next); !broken.empty()) return broken;
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
