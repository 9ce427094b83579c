#include "ods/delta/data_change.h"

#include <array>
#include <string_view>

namespace ods::delta {

namespace {

constexpr std::array<std::string_view, 16> kMaintenance = {"OPTIMIZE",
                                                           "VACUUM START",
                                                           "VACUUM END",
                                                           "ANALYZE",
                                                           "COMPUTE STATS",
                                                           "SET TBLPROPERTIES",
                                                           "UNSET TBLPROPERTIES",
                                                           "CHANGE COLUMN",
                                                           "ADD CONSTRAINT",
                                                           "DROP CONSTRAINT",
                                                           "UPGRADE PROTOCOL",
                                                           "SET TAGS",
                                                           "UNSET TAGS",
                                                           "CLUSTER BY",
                                                           "REORG",
                                                           "FSCK"};

constexpr std::array<std::string_view, 8> kChangeMetrics = {
    "numOutputRows",        "numRemovedFiles", "numTargetRowsInserted", "numTargetRowsUpdated",
    "numTargetRowsDeleted", "numDeletedRows",  "numUpdatedRows",        "numCopiedRows"};

// Operations whose change metrics say how many rows and files they changed (DeltaOperations.scala).
constexpr std::array<std::string_view, 7> kRowOperations = {
    "WRITE", "STREAMING UPDATE", "DELETE", "TRUNCATE", "MERGE", "UPDATE", "CREATE TABLE AS SELECT"};

template <std::size_t N>
bool one_of(std::string_view s, const std::array<std::string_view, N>& list) {
  for (auto item : list)
    if (s == item) return true;
  return false;
}

std::string parameter(const DeltaCommit& c, const std::string& key) {
  auto it = c.parameters.find(key);
  return it == c.parameters.end() ? "" : it->second;
}

// Why the commit replaces the table's contents, or "" when it doesn't.
std::string replaces_contents(const DeltaCommit& c) {
  const std::string& op = c.operation;
  if (op == "RESTORE") return "a RESTORE puts back another version's files";
  if (op == "CLONE" || op.starts_with("CLONE ")) return "a CLONE replaces the table's files";
  if (op.find("REPLACE TABLE") != std::string::npos) return "a " + op + " replaces the table";
  if (op == "WRITE" && parameter(c, "mode") == "Overwrite")
    return "a WRITE in Overwrite mode replaces the table's rows";
  if (op == "STREAMING UPDATE" && parameter(c, "outputMode") == "Complete")
    return "a STREAMING UPDATE in Complete mode replaces the table's rows";
  return "";
}

}  // namespace

CommitVerdict classify_commit(const DeltaCommit& c) {
  if (one_of(c.operation, kMaintenance))
    return {false, c.operation + " is maintenance or metadata: it changes no data"};
  if (auto why = replaces_contents(c); !why.empty()) return {true, why};
  if (!one_of(c.operation, kRowOperations))
    return {true, (c.operation.empty() ? std::string("a commit with no operation name") : c.operation) +
                      " is not known to leave the data as it was, so it counts as a data change"};
  bool recorded = false;
  for (auto metric : kChangeMetrics) {
    auto it = c.metrics.find(std::string(metric));
    if (it == c.metrics.end()) continue;
    recorded = true;
    if (it->second != "0") return {true, c.operation + " recorded " + std::string(metric) + " " + it->second};
  }
  if (recorded) return {false, c.operation + " recorded 0 rows and files changed"};
  return {true, c.operation + " recorded no change metrics, so it counts as a data change"};
}

}  // namespace ods::delta
