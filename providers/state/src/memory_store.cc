// The in-memory StateStore: the fake for unit tests of the components that use a store,
// and `memory:` URLs. One mutex serialises everything.
#include <algorithm>
#include <map>
#include <mutex>
#include <utility>

#include "ods/state/stores.h"
#include "store_support.h"

namespace ods::state {
namespace {

using ods::contracts::CheckReport;
using ods::contracts::RunRecord;
using ods::contracts::StoredSnapshot;

// Newest first, at most `limit` (0: all), of a vector kept oldest first.
template <class T>
std::vector<T> newest_first(const std::vector<T>& oldest_first, std::size_t limit) {
  const std::size_t count = limit == 0 ? oldest_first.size() : std::min(limit, oldest_first.size());
  return {oldest_first.rbegin(), oldest_first.rbegin() + static_cast<std::ptrdiff_t>(count)};
}

class MemoryStateStore final : public ods::contracts::StateStore {
 public:
  explicit MemoryStateStore(const Clock& clock) : clock_(clock) {}

  ods::Result<std::optional<StoredSnapshot>> latest(const std::string& scope) override {
    std::lock_guard lock(mutex_);
    const Scope* data = find(scope);
    if (data == nullptr || data->snapshots.empty()) return std::optional<StoredSnapshot>();
    return std::optional<StoredSnapshot>(data->snapshots.back());
  }

  ods::Result<StoredSnapshot> commit(const std::string& scope, const std::optional<std::string>& expected_parent,
                                     const std::string& run_id, const std::string& document) override {
    if (auto valid = internal::validate_commit(scope, run_id, document); !valid) {
      return std::unexpected(valid.error());
    }
    std::lock_guard lock(mutex_);
    const Scope* known = find(scope);
    std::optional<std::string> head;
    if (known != nullptr && !known->snapshots.empty()) head = known->snapshots.back().id;
    if (head != expected_parent) {
      return std::unexpected(internal::head_moved(scope, head, expected_parent));
    }
    StoredSnapshot snapshot{internal::new_snapshot_id(), head, scope, run_id, format_iso8601(clock_.now()), document};
    scopes_[scope].snapshots.push_back(snapshot);
    return snapshot;
  }

  ods::Result<std::vector<StoredSnapshot>> history(const std::string& scope, std::size_t limit) override {
    std::lock_guard lock(mutex_);
    const Scope* data = find(scope);
    if (data == nullptr) return std::vector<StoredSnapshot>();
    return newest_first(data->snapshots, limit);
  }

  ods::Result<void> append_run(const RunRecord& run) override {
    if (auto valid = internal::validate_run(run); !valid) return valid;
    std::lock_guard lock(mutex_);
    Scope& data = scopes_[run.scope];
    const bool duplicate =
        std::ranges::any_of(data.runs, [&](const RunRecord& known) { return known.run_id == run.run_id; });
    if (duplicate) {
      return ods::fail("conflict", "Run '" + run.run_id + "' is already in the ledger of scope '" + run.scope + "'.");
    }
    data.runs.push_back(run);
    return {};
  }

  ods::Result<std::vector<RunRecord>> runs(const std::string& scope, std::size_t limit) override {
    std::lock_guard lock(mutex_);
    const Scope* data = find(scope);
    if (data == nullptr) return std::vector<RunRecord>();
    return newest_first(data->runs, limit);
  }

  ods::Result<std::vector<RunRecord>> runs_without_plans(const std::string& scope, std::size_t limit) override {
    auto records = runs(scope, limit);
    if (records)
      for (auto& run : *records) run.plan.clear();
    return records;
  }

  ods::Result<bool> has_run(const std::string& scope, const std::string& run_id) override {
    std::lock_guard lock(mutex_);
    const Scope* data = find(scope);
    if (data == nullptr) return false;
    return std::ranges::any_of(data->runs, [&](const RunRecord& run) { return run.run_id == run_id; }) ||
           std::ranges::any_of(data->snapshots, [&](const StoredSnapshot& s) { return s.run_id == run_id; });
  }

  ods::Result<std::vector<std::string>> scopes() override {
    std::lock_guard lock(mutex_);
    std::vector<std::string> names;
    for (const auto& [scope, data] : scopes_)
      if (!data.snapshots.empty() || !data.runs.empty()) names.push_back(scope);
    return names;
  }

  ods::Result<CheckReport> check() override {
    std::lock_guard lock(mutex_);
    CheckReport report;
    report.schema_version = "memory";
    std::vector<internal::ChainLink> links;
    std::map<std::string, std::string> heads;
    for (const auto& [scope, data] : scopes_) {
      for (const StoredSnapshot& snapshot : data.snapshots) {
        links.push_back({snapshot.id, snapshot.parent, snapshot.scope});
        if (!internal::is_json(snapshot.document)) {
          report.problems.push_back("The document of snapshot " + snapshot.id + " (scope '" + scope +
                                    "') is not valid JSON.");
        }
      }
      if (!data.snapshots.empty()) heads.emplace(scope, data.snapshots.back().id);
    }
    for (std::string& problem : internal::check_chains(links, heads)) report.problems.push_back(std::move(problem));
    report.ok = report.problems.empty();
    return report;
  }

  ods::Result<void> backup(const std::string& path) override {
    return ods::fail("unsupported", "The in-memory state store cannot be backed up (to " + path + ").");
  }

  ods::Result<std::size_t> reset(const std::string& scope) override {
    std::lock_guard lock(mutex_);
    const auto found = scopes_.find(scope);
    if (found == scopes_.end()) return std::size_t{0};
    const std::size_t removed = found->second.snapshots.size();
    scopes_.erase(found);
    return removed;
  }

  ods::Result<void> check_writable() override { return {}; }  // held in memory: always writable

 private:
  struct Scope {
    std::vector<StoredSnapshot> snapshots;  // oldest first; the head is the last
    std::vector<RunRecord> runs;            // oldest first
  };

  const Scope* find(const std::string& scope) const {
    const auto found = scopes_.find(scope);
    return found == scopes_.end() ? nullptr : &found->second;
  }

  const Clock& clock_;
  std::mutex mutex_;
  std::map<std::string, Scope> scopes_;
};

}  // namespace

std::unique_ptr<ods::contracts::StateStore> make_memory_store(const Clock& clock) {
  return std::make_unique<MemoryStateStore>(clock);
}

}  // namespace ods::state
