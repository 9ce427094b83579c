#pragma once
// StateStore contract (state_store 0.6): where snapshots and the run ledger live.
// Implementations: in-memory fake, SQLite (embedded default), PostgreSQL. One conformance
// suite (providers/state/conformance) runs against every implementation.
//
// Snapshots are opaque, schema-versioned JSON documents to the store (the planner owns
// their shape). A scope is "<project>/<environment>". Each scope has a head; commit is a
// compare-and-swap on it, so a run never overwrites what another writer recorded.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ods/base/result.h"

namespace ods::contracts {

struct StoredSnapshot {
  std::string id;                     // assigned by the store on commit; unique per store
  std::optional<std::string> parent;  // the head it replaced (nullopt: first in the scope)
  std::string scope;
  std::string run_id;        // the run it records
  std::string committed_at;  // ISO-8601 UTC, the store's clock
  std::string document;      // the snapshot JSON
};

// One entry of the run ledger: every run, whatever its outcome.
struct RunRecord {
  std::string run_id;
  std::string scope;
  std::string started_at;                  // ISO-8601 UTC
  std::string finished_at;                 // ISO-8601 UTC
  std::string outcome;                     // "success" | "partial" | "failed" | "planned" | ...
  std::string inputs_digest;               // digest of the project inputs document
  std::string plan;                        // the plan JSON
  std::string details;                     // JSON: timings, per-source probe latency, counts
  std::optional<std::string> snapshot_id;  // the snapshot it committed, if any
};

struct CheckReport {
  bool ok = true;
  std::vector<std::string> problems;  // each names what is damaged and where
  std::string schema_version;         // the database schema version found
};

// Every implementation is thread-safe: any method may be called from several threads at
// once, and several stores (processes) may share one database.
class StateStore {
 public:
  virtual ~StateStore() = default;

  // The head snapshot of `scope`; nullopt when the scope has none.
  // Errors: "corrupt" when stored data is damaged; "unavailable" when the store can't be read.
  [[nodiscard]] virtual ods::Result<std::optional<StoredSnapshot>> latest(const std::string& scope) = 0;

  // Makes `document` the new head of `scope` if the head is still `expected_parent`
  // (nullopt: the scope must have no head). Atomic: afterwards the head is either the old
  // one or the new one. Returns the stored snapshot (with its id and committed_at).
  // Errors: "conflict" when the head moved (nothing written); "invalid_argument" for an empty
  // scope or run id or a document that isn't JSON (nothing written); "unavailable"; "corrupt".
  [[nodiscard]] virtual ods::Result<StoredSnapshot> commit(const std::string& scope,
                                                           const std::optional<std::string>& expected_parent,
                                                           const std::string& run_id, const std::string& document) = 0;

  // Snapshots of `scope`, newest first, at most `limit` (0: all).
  [[nodiscard]] virtual ods::Result<std::vector<StoredSnapshot>> history(const std::string& scope,
                                                                         std::size_t limit) = 0;

  // Appends a run to the ledger. Errors: "conflict" when run_id is already in the ledger
  // for that scope; "unavailable".
  [[nodiscard]] virtual ods::Result<void> append_run(const RunRecord& run) = 0;

  // Runs of `scope` in the ledger, newest first, at most `limit` (0: all).
  [[nodiscard]] virtual ods::Result<std::vector<RunRecord>> runs(const std::string& scope, std::size_t limit) = 0;

  // As runs(), with each entry's `plan` left empty: for readers of the details alone (the
  // newest build times), which at 10k nodes would otherwise read megabytes of plan per entry.
  // (0.5)
  [[nodiscard]] virtual ods::Result<std::vector<RunRecord>> runs_without_plans(const std::string& scope,
                                                                               std::size_t limit) = 0;

  // Whether `run_id` was already committed as a snapshot or ledger entry in `scope`.
  [[nodiscard]] virtual ods::Result<bool> has_run(const std::string& scope, const std::string& run_id) = 0;

  // Every scope with a head or a ledger entry, sorted. (0.4)
  [[nodiscard]] virtual ods::Result<std::vector<std::string>> scopes() = 0;

  // Read-only integrity check of everything stored. Never modifies anything. Damage is
  // reported in CheckReport::problems (ok=false), not as an error; errors mean the check
  // itself could not run ("unavailable").
  [[nodiscard]] virtual ods::Result<CheckReport> check() = 0;

  // Writes a consistent copy of the whole store to `path`: a SQLite state database (for
  // SQLite the file copied; for PostgreSQL every snapshot, head and ledger entry with their
  // ids and times), which opens with `sqlite:PATH`.
  // Errors: "unsupported" when the implementation cannot; "io" (including a target file that
  // already has content, which is never overwritten).
  [[nodiscard]] virtual ods::Result<void> backup(const std::string& path) = 0;

  // Removes every snapshot and ledger entry of `scope`. Returns how many snapshots went.
  [[nodiscard]] virtual ods::Result<std::size_t> reset(const std::string& scope) = 0;

  // Whether this handle can record: succeeds when commit() and append_run() would not be
  // refused for lack of permission. Writes nothing that outlives the call (at most a
  // transaction that is rolled back). A command that records calls it before it starts work
  // only a record would keep (dbt build), so a store it can't write stops it before dbt runs
  // rather than after ("the build ran but was not recorded").
  // Errors: "permission_denied" naming the store and why (opened read-only; a file or directory this
  // user can't write; a role without the privileges commit() and append_run() need; a
  // read-only session or server); "unavailable" when the store can't be asked. (0.6)
  [[nodiscard]] virtual ods::Result<void> check_writable() = 0;
};

}  // namespace ods::contracts
