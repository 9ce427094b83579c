#pragma once
// Which Delta commits change a table's data (ADR-0022 §3; checked against delta-io/delta's
// DeltaOperations.scala). A table's data version is the newest commit that does; the others
// (compaction, vacuum, properties, comments, constraints) leave what a reader sees as it was,
// so they never move the version.
#include <map>
#include <string>

#include "ods/table_format/version_walk.h"

namespace ods::delta {

// One commit of DESCRIBE HISTORY, as the probe returned it (values as text).
struct DeltaCommit {
  std::string version;
  std::string timestamp;
  std::string operation;                          // e.g. "WRITE", "MERGE", "OPTIMIZE"
  std::map<std::string, std::string> metrics;     // operationMetrics
  std::map<std::string, std::string> parameters;  // operationParameters
};

// Whether it changes data, and why (one sentence, for the evidence).
using CommitVerdict = table_format::ChangeVerdict;

// The rule, in order:
//  1. a maintenance or metadata operation never changes data: OPTIMIZE, VACUUM START/END,
//     ANALYZE, COMPUTE STATS, SET/UNSET TBLPROPERTIES, CHANGE COLUMN, ADD/DROP CONSTRAINT,
//     UPGRADE PROTOCOL, SET/UNSET TAGS, CLUSTER BY, REORG, FSCK;
//  2. an operation that replaces the table's contents always does: RESTORE, CLONE, any
//     [CREATE OR] REPLACE TABLE, a WRITE in Overwrite mode, a STREAMING UPDATE in Complete mode
//     (their row metrics can all be 0 while the table's contents changed: a RESTORE records
//     numRestoredFiles, a REPLACE of an empty table numRemovedFiles 0);
//  3. an operation that records its row and file changes (WRITE, STREAMING UPDATE, DELETE,
//     TRUNCATE, MERGE, UPDATE, CREATE TABLE AS SELECT) does, unless all of its change metrics
//     that it records (numOutputRows, numRemovedFiles, numTargetRowsInserted/Updated/Deleted,
//     numDeletedRows, numUpdatedRows, numCopiedRows) are 0; recording none of them, it does;
//  4. any other operation does: a schema change (ADD/DROP/RENAME COLUMN), CREATE TABLE, CONVERT,
//     and every operation this rule has never heard of (extra builds, never a wrong reuse).
// Pure; thread-safe.
CommitVerdict classify_commit(const DeltaCommit& commit);

}  // namespace ods::delta
