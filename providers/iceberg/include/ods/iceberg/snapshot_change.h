#pragma once
// Which Iceberg snapshots change a table's data (ADR-0022 §3, the shape of Delta's rule; checked
// against the Iceberg table spec's operations and the summary Iceberg's SnapshotSummary writes,
// which leaves out every counter that is 0). A table's data version is the newest snapshot of
// its current line that does.
#include <map>
#include <string>

#include "ods/table_format/version_walk.h"

namespace ods::iceberg {

// One row of the `snapshots` metadata table, as the probe returned it (values as text).
struct IcebergSnapshot {
  std::string snapshot_id;
  std::string parent_id;  // "" for the table's first snapshot
  std::string committed_at;
  std::string operation;                       // "append", "overwrite", "delete", "replace"
  std::map<std::string, std::string> summary;  // e.g. {"added-records": "2", "total-records": "4"}
};

// The rule, in order:
//  1. `replace` (compaction, rewrite of data or delete files or manifests: the spec says it
//     leaves the data as it was) changes no data when its row counts balance — added-records
//     and deleted-records, added- and removed-position-deletes, added- and
//     removed-equality-deletes (a counter left out is 0); otherwise, or with a counter that
//     isn't a whole number, it does;
//  2. `append`, `overwrite` and `delete` change no data when their summary was written with
//     totals (total-records present) and every change counter (added/deleted data files,
//     records, delete files, position and equality deletes, deletion vectors, file sizes) is
//     left out or 0 — a DELETE that matched no row, an INSERT OVERWRITE of an empty table with
//     no rows; otherwise (a counter not 0, even unreadable, or no totals) they do;
//  3. any other operation does, the unnamed one included (extra builds, never a wrong reuse).
// Pure; thread-safe.
table_format::ChangeVerdict classify_snapshot(const IcebergSnapshot& snapshot);

}  // namespace ods::iceberg
