#pragma once
// The planning rules of ADR-0013 (1-14, first match wins, DAG order) and record().
// Pure and synchronous: no I/O; "now" is an argument. Thread-safe (no shared state).
// plan() may split per-node work of a large project with one more thread of its own; it
// returns only once that thread is done.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ods/base/result.h"
#include "ods/planner/inputs.h"
#include "ods/planner/plan.h"
#include "ods/planner/snapshot.h"

namespace ods::planner {

struct PlanOptions {
  // Node ids selected (rule 1); nullopt: everything. The caller resolves selectors.
  std::optional<std::vector<std::string>> selected;
  std::string now;  // ISO-8601 UTC; used for lag_tolerance
  // Evidence that each reused relation still exists, by node id (ADR-0016). When absent
  // the REUSE says existence was not checked (exactness none). `false`: the relation is
  // missing -> BUILD relation_missing. Nodes absent from a non-null map -> relation_unverified.
  std::optional<std::map<std::string, bool>> relations_exist;
  // The identity of each existing relation as the warehouse gives it now, by node id (opaque
  // strings, compared for equality only; docs/warehouses.md). nullopt: not asked (a REUSE says
  // the identity was not checked). Set: a reuse candidate whose build recorded an identity
  // (NodeState::relation_identity) BUILDs relation_changed_outside when the identity now
  // differs, relation_unverified when it has none now; one with none recorded is checked to
  // exist only, as before identities were recorded.
  std::optional<std::map<std::string, std::string>> relation_identities = {};
  // Early cutoff's later waves (docs/early-cutoff.md): nodes already built earlier in this
  // run, by id -> true when built for code (their own or upstream), false when built for data
  // only. They get no entry; their readers see them as built, a code build as rule 5 does, a
  // data build by comparing the content recorded after it with the content the reader read.
  // `previous` must then be the snapshot that recorded those builds.
  std::map<std::string, bool> built_earlier = {};
};

// True when a BUILD entry is built for code (its own or an upstream node's: never built,
// fingerprint incomplete or changed, an upstream code change, an unknown parent), false for
// a build for data only (new data upstream, run context, missing evidence, a missing relation,
// checks that run only with its build and have not passed):
// its first reason's action in kReasonCodes (ods/planner/reason_catalog.h).
bool built_for_code(const PlanEntry& entry);

// The scope of a project/target: "<project>/<environment>", environment = target or "default".
std::string scope_of(const std::string& project, const std::string& target);

// Plans `inputs` against `previous` (nullptr: no state yet).
// Errors: "cycle" naming the nodes of a cycle; "invalid_inputs" for a duplicate id.
// A previous snapshot of another target identity is treated as empty (ADR-0017), with a warning.
[[nodiscard]] Result<ExecutionPlan> plan(const ProjectInputs& inputs, const StateSnapshot* previous,
                                         const PlanOptions& options);

// The outcome of one dbt run, as the provider read it from run_results.json.
struct RunOutcome {
  std::string run_id;                              // dbt invocation id
  std::string started_at;                          // ISO-8601 UTC
  std::map<std::string, std::string> node_status;  // node id -> "success" | "error" | "skipped" | ...
  // Tests that ran: node id -> true when every check on it passed (absent: none ran).
  std::map<std::string, bool> node_tests_passed;
  std::map<std::string, bool> source_tests_passed;
  // Source versions measured strictly before the run started; others are not used.
  std::map<std::string, DataVersion> source_versions;
  // Early cutoff (snapshot 1.3): node id -> the content of its relation measured right after
  // this run built it (absent: not measured; readers then never cut off on it), and the nodes
  // this run built for code (built_for_code), whose readers left unbuilt lose the content
  // they read (a code change never cuts off).
  std::map<std::string, DataVersion> node_contents = {};
  std::vector<std::string> built_for_code = {};
  // Snapshot 1.5: node id -> its relation's identity read right after this run built it
  // (absent: not read; the node is then recorded without one).
  std::map<std::string, std::string> node_identities = {};
  // A test-only run (`ods state test`, #220): it built nothing, so node_status is ignored and
  // every build is kept as it was; only the check results count.
  bool checks_only = false;
};

// The next snapshot after `run` (rule 5: only nodes whose status is success advance; a
// failed, skipped or errored node keeps its previous entry). `previous` may be nullptr.
// Checks (#220, #232): a node whose checks all passed is tested against its checks digest
// (a node built in the run only when they ran in it); a failed check clears the record of
// the node or source it reads; a source's pass records its version measured before the run.
// Errors: "stale_run" when the run started before the recorded state.
[[nodiscard]] Result<StateSnapshot> record(const ProjectInputs& inputs, const StateSnapshot* previous,
                                           const RunOutcome& run);

// The nodes record() would give this run's compile key although the run built nothing (a node
// kept from `recorded` takes the run's key when the run's code is complete and its `sql`
// component is the recorded one): those whose key in `recorded` differs from the one in
// `inputs`. Empty when `recorded` is of another target identity. A run that reused every node
// commits a snapshot only for these (docs/compile-key.md): otherwise a node whose key was never
// recorded (an incremental model's first build, a record older than compile keys) would be
// compiled by every run where nothing changed. Pure.
[[nodiscard]] std::vector<std::string> compile_keys_to_record(const ProjectInputs& inputs,
                                                              const StateSnapshot& recorded);

}  // namespace ods::planner
