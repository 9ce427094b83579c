#pragma once
// Persisted state (ADR-0013 "Snapshots", #220 tested builds, #232 tested sources,
// ADR-0017 target identity). Schema-versioned, immutable documents.
#include <map>
#include <optional>
#include <string>

#include "ods/planner/evidence.h"
#include "ods/planner/fingerprint.h"

namespace ods::planner {

struct SchemaVersion {
  int major = 1;
  int minor = 5;
  // A reader of version *this reads `doc` when the major is equal and doc's minor is not newer.
  bool can_read(const SchemaVersion& doc) const { return doc.major == major && doc.minor <= minor; }
  std::string to_string() const { return std::to_string(major) + "." + std::to_string(minor); }
};
// 1.3 (additive, early cutoff): a node's own content after its build and the content of each
// parent it read. Older documents read with both absent (unknown: no cutoff, rule 2).
// 1.4 (additive, compile key): the compile key of the code a node was last built or reused
// with. Older documents read without it (no key: the node is compiled, rule 2).
// 1.5 (additive, relation identity): the identity of a node's relation read right after its
// build. Older documents read without it (none recorded: the relation is checked to exist only).
inline constexpr SchemaVersion kSnapshotSchema{1, 5};

// The last pass of a node's or source's checks.
struct TestRecord {
  std::string run_id;
  std::string at;             // ISO-8601 UTC
  std::string checks_digest;  // the checks as they were when they passed
};

// What ODS knows about a node's last successful build.
struct NodeState {
  Fingerprint fingerprint;
  std::string raw_digest;
  std::string built_at;                                // ISO-8601 UTC, when the run that built it started
  std::string run_id;                                  // the run that built it
  std::map<std::string, std::string> parent_runs;      // parent node id -> run id of the build it read
  std::map<std::string, DataVersion> source_versions;  // source id -> version it saw (absent: unknown)
  // 1.3: the content fingerprint of its relation measured right after its build (absent:
  // not measured or not measurable), and parent node id -> the content of that parent it
  // read (absent: unknown). A reader's entry is dropped when the parent is rebuilt for its
  // code, so a code change never cuts off (docs/early-cutoff.md).
  std::optional<DataVersion> content;
  std::map<std::string, DataVersion> parent_contents;
  std::optional<TestRecord> tested;
  // 1.4: the compile key (NodeInput::compile_key) whose compiled SQL gave fingerprint's `sql`
  // component; empty: none recorded.
  std::string compile_key;
  // 1.5: its relation's identity as the warehouse gave it right after its build
  // (contracts::ProbeReport::relation_identities, opaque); empty: none recorded.
  std::string relation_identity;
};

struct SourceState {
  std::optional<TestRecord> tested;
  std::optional<DataVersion> version;  // measured before the checks ran
};

struct StateSnapshot {
  SchemaVersion schema = kSnapshotSchema;
  std::string project;
  std::string environment;      // the dbt target, or "default"
  std::string target_identity;  // non-secret; a build is reused only in the target it went to
  std::string run_id;           // the run this snapshot recorded
  std::string run_started_at;   // ISO-8601 UTC
  std::map<std::string, NodeState> nodes;
  std::map<std::string, SourceState> sources;
};

}  // namespace ods::planner
