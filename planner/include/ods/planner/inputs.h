#pragma once
// The planner's input: one serialisable document ("project inputs") with nodes, edges,
// fingerprint components, sources and their evidence. Providers produce it (the dbt
// provider from manifest.json / sources.json); the planner consumes it. It crosses
// process boundaries as JSON (inputs_json.h).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ods/planner/evidence.h"
#include "ods/planner/fingerprint.h"

namespace ods::planner {

// Per-node freshness policy (read from the node's `meta.ods`, which is not fingerprinted).
struct FreshnessPolicy {
  std::optional<std::int64_t> lag_tolerance_seconds;  // reuse stale data for this long
  bool require_fresh_data_from_all = false;           // build only when every parent has new data
  std::string error;  // non-empty: the policy could not be read; it cannot be honoured (rule 8)
  bool allows_reuse() const { return error.empty(); }
};

// One planned node (model, seed, snapshot). Ephemeral models are not planned: the
// provider inlines them (their SQL is in the readers' compiled SQL, and the readers
// depend on the ephemeral model's parents instead).
struct NodeInput {
  std::string id;                    // "model.shop.orders"
  std::string name;                  // "orders"
  std::string resource_type;         // "model" | "seed" | "snapshot"
  std::string relation;              // rendered relation name, e.g. "\"shop\".\"main\".\"orders\""
  std::vector<std::string> parents;  // node ids and source ids it reads (sorted, unique)

  Fingerprint fingerprint;      // complete components (see `incomplete`)
  std::string raw_digest;       // SHA-256 of the raw text, kept outside the fingerprint (cosmetic)
  bool sql_normalised = false;  // the `sql` component is formatting-insensitive
  // The compile key (docs/compile-key.md): a digest of everything the node's compiled SQL is a
  // function of, as the parse shows it; empty when the node can't be keyed (its compile is the
  // only evidence of its SQL). Recorded with its build; equal keys mean equal compiled SQL.
  std::string compile_key;
  // The compile key holds is_incremental() as true (docs/compile-key.md, "is_incremental()"): the
  // key's SQL is the incremental form, which dbt renders only when the node's relation exists as
  // a table and the run is no full refresh. The command that takes recorded SQL by this key
  // checks that against the probe, and clears the key when it doesn't hold (not recorded in JSON:
  // it is the parse's, for this run).
  bool compile_key_assumes_incremental = false;
  // Non-empty: the `sql` component is the one recorded by this run id's compile, taken because
  // the compile key is unchanged since (the node was not compiled in this run).
  std::string sql_from_run;

  // Why the code evidence is incomplete (rule 3), e.g. "no compiled SQL: run dbt compile".
  std::vector<std::string> incomplete;
  // Non-empty: its code could not be compiled before the run builds its upstream (its compile
  // queries a relation that doesn't exist yet), so its code evidence is incomplete until then;
  // says why (rule 3: compile_needs_upstream). The build compiles it in its turn.
  std::string compile_needs_upstream;
  // Why the node must always build regardless of state, e.g. "pre-hook 1 reads env_var".
  std::vector<std::string> always_build;

  // A build of the node replaces its relation: dbt creates a new one and drops the old (a table
  // or a view rebuilt; not an incremental model or a seed that only writes rows into it). Set by
  // the provider from the materialization; true when unknown (the safe side for the next field).
  bool build_replaces_relation = false;
  // The warehouse drops the node's relation whenever a relation it reads is replaced (a
  // PostgreSQL view is bound to what it reads by oid, and dbt drops the old relation with
  // CASCADE). While a parent with build_replaces_relation builds in the run, the node builds too
  // (dropped_with_upstream, after that parent), whatever else says it could be reused or cut
  // off. Set from the warehouse's facts (docs/warehouses.md); false where views resolve by name.
  bool dropped_when_parent_replaced = false;

  bool self_contained = false;  // a seed: reads nothing but its own file (rule 7)
  std::string checks_digest;    // digest of the checks (tests) that read it; empty: none
  // Some of its checks run only as part of its build (dbt's unit tests): while they have not
  // passed on its current build, it is built again so they run (docs/reason-codes.md,
  // checks_not_passed).
  bool checks_need_build = false;
  FreshnessPolicy policy;
};

// One source the project reads, with the evidence of its data version.
struct SourceInput {
  std::string id;    // "source.shop.raw.orders"
  std::string name;  // "raw.orders"
  std::string relation;
  std::optional<DataVersion> version;  // the chosen version; nullopt: unknown (counts as changed)
  std::vector<Evidence> evidence;      // which strategy won and why the others lost
  std::string checks_digest;           // digest of the source's tests; empty: none
};

struct ProjectInputs {
  std::string scheme = std::string(kFingerprintScheme);
  std::string project;          // dbt project name
  std::string target;           // dbt target name ("" when not given)
  std::string target_identity;  // non-secret identity of where builds go (adapter/database/schema)
  std::string invocation_id;    // dbt invocation that wrote the manifest
  std::string generated_at;     // ISO-8601 UTC
  std::vector<NodeInput> nodes;
  std::vector<SourceInput> sources;
  std::vector<std::string> warnings;  // things the provider wants a person to know
};

}  // namespace ods::planner
