#include "state_access.h"

#include "ods/dbt/project_file.h"
#include "ods/planner/planner.h"
#include "ods/state/stores.h"

namespace ods::cli {

Result<std::string> project_name(const CommandContext& ctx) {
  auto file = dbt::read_project_file(ctx.project_dir);
  if (!file) return std::unexpected(file.error());
  return file->name;
}

Result<std::string> scope_for(const CommandContext& ctx) {
  auto name = project_name(ctx);
  if (!name) return std::unexpected(name.error());
  return planner::scope_of(*name, ctx.target);
}

std::string legacy_scope(const CommandContext& ctx, const std::string& project) {
  if (ctx.target.empty() || ctx.target == "default" || ctx.target != ctx.profile_default) return "";
  return planner::scope_of(project, "");
}

Result<std::string> settle_scope(const CommandContext& ctx, contracts::StateStore& store, const std::string& project,
                                 const std::string& scope, bool records) {
  const std::string legacy = legacy_scope(ctx, project);
  if (legacy.empty() || legacy == scope) return scope;
  ODS_TRY(const bool held, state::holds_state(store, scope));
  if (held) return scope;
  ODS_TRY(const bool old_held, state::holds_state(store, legacy));
  if (!old_held) return scope;
  if (!records) {
    *ctx.err << "ods: reading " << legacy << ": an earlier ODS recorded target '" << ctx.target
             << "' (the profile's default) under that scope; the next run that records copies it to " << scope << "\n";
    return legacy;
  }
  auto copied = state::copy_scope_as(store, store, legacy, scope);
  if (!copied) return std::unexpected(copied.error());
  *ctx.err << "ods: copied " << legacy << " to " << scope << " (" << copied->snapshots << " snapshots, " << copied->runs
           << " runs): an earlier ODS recorded target '" << ctx.target << "' (the profile's default) under " << legacy
           << "; " << scope << " is its scope from now on\n";
  return scope;
}

Error without_state(Error error) {
  if (error.code == "not_found")
    error.message +=
        " Nothing is recorded there: `ods state run` records a first state (--state or $ODS_STATE names "
        "another store; the default is .ods/state.db in the project).";
  return error;
}

Result<std::optional<Head>> read_settled_head(const CommandContext& ctx, contracts::StateStore& store,
                                              const std::string& project, const std::string& target, bool records) {
  ODS_TRY(const std::string scope, settle_scope(ctx, store, project, planner::scope_of(project, target), records));
  return read_head(store, scope);
}

Result<void> check_can_record(contracts::StateStore& store, bool before_dbt) {
  auto writable = store.check_writable();
  if (writable) return {};
  Error error = writable.error();
  error.message += before_dbt ? " Nothing was started: no dbt command ran." : " Nothing was written.";
  return std::unexpected(error);
}

std::string first_state_line(const CommandContext& ctx, const std::string& scope) {
  std::string why = ctx.target.empty()       ? "dbt's default target (not known before dbt runs)"
                    : ctx.target_how.empty() ? "target " + ctx.target
                                             : "target " + ctx.target + ": " + ctx.target_how;
  return "no state recorded yet for " + scope + " (" + why + "): this run records its first state";
}

}  // namespace ods::cli
