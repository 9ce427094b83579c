// `ods state record`: commit a finished dbt run as the next snapshot, or refuse and write nothing.
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "commit_retry.h"
#include "ods/base/sha256.h"
#include "ods/planner/json_io.h"
#include "ods/run/run_details.h"
#include "project_loader.h"
#include "state_access.h"

namespace ods::cli {

int cmd_record(const ParsedArgs&, CommandContext& ctx) {
  ctx.hook_values_visible = false;
  auto project = load_project(ctx);
  if (!project) return report(ctx, project.error());
  auto run = load_run(ctx, *project);
  if (!run) return report(ctx, run.error());
  const std::string scope = planner::scope_of(project->inputs.project, project->inputs.target);
  auto store = open_store(ctx, true);
  if (!store) return report(ctx, store.error());
  if (auto writable = check_can_record(**store, /*before_dbt=*/false); !writable) return report(ctx, writable.error());
  auto recorded = (*store)->has_run(scope, run->outcome.run_id);
  if (!recorded) return report(ctx, recorded.error());
  if (*recorded)
    return report(ctx, {"already_recorded",
                        "run " + run->outcome.run_id + " is already recorded in " + scope + "; nothing written"});
  auto head = read_head(**store, scope);
  if (!head) return report(ctx, head.error());
  auto committed = commit_outcome(**store, scope, project->inputs, std::move(*head), run->outcome, *ctx.err);
  if (!committed) return report(ctx, {committed.error().code, committed.error().message + "; nothing written"});
  const planner::StateSnapshot* next = &committed->snapshot;
  run::RunDetails details;
  details.recorded_by = "ods state record";
  details.summary = run->summary;
  details.command = run->command;
  contracts::RunRecord ledger{run->outcome.run_id,
                              scope,
                              run->outcome.started_at,
                              run->finished_at,
                              run->summary.find("failed") == std::string::npos ? "success" : "partial",
                              ods::sha256_hex(planner::to_json(project->inputs)),
                              "",
                              run::to_json(details),
                              committed->stored.id};
  if (auto appended = (*store)->append_run(ledger); !appended)
    *ctx.err << "ods: warning: the run ledger entry wasn't written: " << appended.error().message << "\n";
  for (const auto& note : run->notes) *ctx.err << "ods: note: " << note << "\n";
  std::size_t advanced = 0;
  for (const auto& [id, n] : next->nodes) advanced += n.run_id == run->outcome.run_id ? 1 : 0;
  *ctx.out << "Recorded run " << run->outcome.run_id << " (dbt " << run->command << ": " << run->summary << ") as "
           << scope << " snapshot " << committed->stored.id << "; " << advanced << " nodes advanced, "
           << next->nodes.size() << " nodes in the state.\n";
  return kExitOk;
}

}  // namespace ods::cli
