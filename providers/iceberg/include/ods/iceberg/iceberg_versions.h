#pragma once
// IcebergVersions (ADR-0022 §1, §3): a ChangeProvider whose version of an Iceberg table is
// "schema-<digest of its columns>/<id of the newest snapshot of its current line that changes
// data>", exact, origin "iceberg_snapshots". Its request asks, for each source that is a table
// whose format the probe confirms as Iceberg:
//   metadata:  the newest row of {relation}.metadata_log_entries (the current snapshot's id)
//   snapshots: the newest 20 rows of {relation}.snapshots whose ids {relation}.history marks as
//              ancestors of the current snapshot (operation, parent, summary)
//   columns:   DESCRIBE TABLE {relation} (the columns' names and types, in order)
// It walks from the current snapshot through the parents. Snapshot ids are drawn at random for
// each commit (64 bits), so a table dropped and created again never repeats one: with Spark
// exposing no table UUID through SQL, the id names the table too. The columns are in the value
// because a schema change writes no snapshot (and metadata_log_entries' latest_schema_id is
// the current snapshot's schema, not the table's). A rollback makes an older snapshot current: its
// id is the version. Unknown, with the reason: a view or a table of another format, no
// snapshot yet, the two statements disagreeing (a commit between them), no data change in the
// window. Built over any RelationProbe: it says what to run and reads the answers, never how.
#include <memory>

#include "ods/contracts/change_provider.h"

namespace ods::iceberg {

inline constexpr const char* kIcebergOrigin = "iceberg_snapshots";
inline constexpr std::size_t kSnapshotWindow = 20;

std::unique_ptr<contracts::ChangeProvider> make_iceberg_versions();

}  // namespace ods::iceberg
