#include "ods/iceberg/snapshot_change.h"

#include <array>
#include <string_view>

#include "ods/table_format/probe_values.h"

namespace ods::iceberg {

namespace {

// The counters of Iceberg's SnapshotSummary that say what a snapshot added or removed.
constexpr std::array<std::string_view, 18> kChangeCounters = {"added-data-files",
                                                              "deleted-data-files",
                                                              "added-records",
                                                              "deleted-records",
                                                              "added-delete-files",
                                                              "removed-delete-files",
                                                              "added-position-delete-files",
                                                              "removed-position-delete-files",
                                                              "added-equality-delete-files",
                                                              "removed-equality-delete-files",
                                                              "added-position-deletes",
                                                              "removed-position-deletes",
                                                              "added-equality-deletes",
                                                              "removed-equality-deletes",
                                                              "added-dvs",
                                                              "removed-dvs",
                                                              "added-files-size",
                                                              "removed-files-size"};

// The row counts a compaction must keep: what it added and what it removed of each.
constexpr std::array<std::pair<std::string_view, std::string_view>, 3> kBalancedPairs = {
    {{"added-records", "deleted-records"},
     {"added-position-deletes", "removed-position-deletes"},
     {"added-equality-deletes", "removed-equality-deletes"}}};

// A counter's value (a left-out counter is 0), or nullopt when it isn't a whole number.
std::optional<long long> counter(const IcebergSnapshot& s, std::string_view key) {
  auto it = s.summary.find(std::string(key));
  if (it == s.summary.end()) return 0;
  return table_format::as_count(it->second);
}

table_format::ChangeVerdict replace_verdict(const IcebergSnapshot& s) {
  for (const auto& [added, removed] : kBalancedPairs) {
    auto a = counter(s, added), r = counter(s, removed);
    if (!a || !r)
      return {true, "a replace whose " + std::string(!a ? added : removed) +
                        " is not a whole number counts as a data change"};
    if (*a != *r)
      return {true, "a replace that changed the row counts (" + std::string(added) + " " + std::to_string(*a) + ", " +
                        std::string(removed) + " " + std::to_string(*r) + ")"};
  }
  return {false, "a replace (compaction or rewrite) that kept the row counts: it changes no data"};
}

}  // namespace

table_format::ChangeVerdict classify_snapshot(const IcebergSnapshot& s) {
  const std::string& op = s.operation;
  if (op == "replace") return replace_verdict(s);
  if (op != "append" && op != "overwrite" && op != "delete")
    return {true, (op.empty() ? std::string("a snapshot with no operation") : "the operation '" + op + "'") +
                      " is not known to leave the data as it was, so it counts as a data change"};
  if (!s.summary.contains("total-records"))
    return {true, "the " + op + "'s summary has no totals: its counters can't be relied on, so it counts"};
  for (auto key : kChangeCounters) {
    auto it = s.summary.find(std::string(key));
    if (it != s.summary.end() && it->second != "0")
      return {true, op + " recorded " + std::string(key) + " " + it->second};
  }
  return {false, op + " added and removed no rows or files"};
}

}  // namespace ods::iceberg
