#pragma once
// Reading this project's state: the scope and its head snapshot, parsed.
#include <optional>
#include <string>

#include "context.h"
#include "ods/contracts/state_store.h"
#include "ods/planner/snapshot.h"
#include "ods/state/state_commit.h"

namespace ods::cli {

// The dbt project's name from <project-dir>/dbt_project.yml (top-level `name:`).
// Errors: dbt::read_project_file's ("usage": the file missing, malformed, or without a name).
[[nodiscard]] Result<std::string> project_name(const CommandContext& ctx);

// "<project>/<target or default>" for this project.
[[nodiscard]] Result<std::string> scope_for(const CommandContext& ctx);

// The head of a scope and reading it: shared with the operator (ods/state/state_commit.h).
using state::Head;
using state::read_head;

// The scope an earlier ODS recorded this target's state in, `<project>/default` (its name for
// every run without --target), when ctx.target is the profile's default target under another
// name (resolve_target); "" otherwise.
std::string legacy_scope(const CommandContext& ctx, const std::string& project);

// `scope` when it holds state or no legacy scope does; else the legacy scope's state is taken:
// copied into `scope` when `records` (the command records there next), read where it is
// otherwise; either said on ctx.err. Returns the scope to read. Errors: the store's.
[[nodiscard]] Result<std::string> settle_scope(const CommandContext& ctx, contracts::StateStore& store,
                                               const std::string& project, const std::string& scope, bool records);

// `error` from opening the store, with what to do when it is "not_found" (no state database or
// no ODS state in it): the commands that only read recorded state have nothing to read, and say
// where they looked (the store's message names it) and how a first state is recorded.
Error without_state(Error error);

// read_head of settle_scope's scope for `project` and `target`. Errors: the store's.
[[nodiscard]] Result<std::optional<Head>> read_settled_head(const CommandContext& ctx, contracts::StateStore& store,
                                                            const std::string& project, const std::string& target,
                                                            bool records);

// Before a command that records starts its work (run and test: before any dbt call; record:
// before the run is read): the store's check_writable(), its error saying that nothing was
// started, so a store this command can't write is found before a build it could not record.
// `before_dbt`: the command runs dbt (its error then says no dbt command ran).
// Errors: check_writable()'s ("permission_denied", "unavailable").
[[nodiscard]] Result<void> check_can_record(contracts::StateStore& store, bool before_dbt);

// The line a command prints before it records the first state of `scope`: which scope and why
// this target ("target dev: the default target of profile 'shop' (...)"), so a typo or a
// forgotten --target shows before it costs a full build.
std::string first_state_line(const CommandContext& ctx, const std::string& scope);

}  // namespace ods::cli
