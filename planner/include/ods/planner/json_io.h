#pragma once
// JSON (de)serialisation of the planner's documents: project inputs, snapshots, plans.
// Readers validate shape and schema version and name the offending field in errors.
#include <ostream>
#include <string>
#include <string_view>

#include "ods/base/result.h"
#include "ods/planner/inputs.h"
#include "ods/planner/plan.h"
#include "ods/planner/snapshot.h"

namespace ods::planner {

// A data version's JSON object, compact, members in key order:
// {"covers_schema":true (only when set),"exactness":…,"observed_at":…,"origin":…,"value":…}. The one form every
// document carries it in (snapshots, project inputs, the callback protocol's node contents). Throws
// ods::json::InvalidUtf8 when a member is not valid UTF-8.
std::string to_json(const DataVersion& version);

std::string to_json(const ProjectInputs& inputs);
// SHA-256 (hex) of to_json(inputs): the digest a run's ledger entry and the controller keep of
// the inputs a run was planned from.
std::string inputs_digest(const ProjectInputs& inputs);
[[nodiscard]] Result<ProjectInputs> inputs_from_json(std::string_view text);

// Canonical (sorted keys, compact). Errors: "corrupt" (not JSON / wrong shape, naming the
// field), "newer_schema" (schema_version this binary cannot read).
std::string to_json(const StateSnapshot& snapshot);
[[nodiscard]] Result<StateSnapshot> snapshot_from_json(std::string_view text);

// The `ods state plan --format json` document: pretty (2 spaces) or compact, members in key
// order. write_json streams it to `out` without building it in memory first (flushing as it
// goes; the stream's state says whether writing failed); to_json returns the same text.
void write_json(std::ostream& out, const ExecutionPlan& plan, bool pretty);
std::string to_json(const ExecutionPlan& plan, bool pretty);
// The same document read back (what a runner pod receives from the controller): to_json of
// the result is the input's content. Errors: "corrupt" (not JSON, a missing or mistyped
// member, an unknown action, an entry without a reason), naming the field.
[[nodiscard]] Result<ExecutionPlan> plan_from_json(std::string_view text);

}  // namespace ods::planner
