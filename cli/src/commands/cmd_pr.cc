// `ods state pr`: a pull request's environment (docs/cli.md, "PR environments"). The PR's code is
// parsed with production's target, the nodes whose compile key differs from production's record
// compiled (the others take production's recorded SQL), and planned against production's
// recorded state (read only: nothing is ever recorded, in production's scope or any other); the
// nodes whose code differs, and their readers, are built with dbt into the PR's own target, and
// every other node they read is taken from production: deferred (`dbt build --defer --state
// --favor-state`, the state being the manifest the project was read from) or cloned (`dbt clone`:
// zero-copy where the warehouse has it, a view over production elsewhere). Every dbt call runs in
// one dbt session (one process in the ods dbt driver), production's target first.
#include <algorithm>
#include <chrono>
#include <iostream>

#include "commands.h"
#include "dbt_steps.h"
#include "flag_names.h"
#include "ods/dbt/artifacts.h"
#include "ods/dbt/cli/dbt_driver.h"
#include "ods/dbt/run_results.h"
#include "ods/dbt/target_choice.h"
#include "ods/planner/planner.h"
#include "ods/run/build_seconds.h"
#include "ods/run/build_selection.h"
#include "ods/run/pr_environment.h"
#include "plan_format.h"
#include "pr_report.h"
#include "run_preparation.h"
#include "state_access.h"
#include "wording.h"

namespace ods::cli {

namespace {

// How the PR reads production's relations: --upstream defer|clone, or auto: clone where `dbt
// clone` is a zero-copy clone (Snowflake, BigQuery, Databricks: the PR's schema is then complete
// at no storage cost), defer elsewhere (DuckDB, PostgreSQL, Spark: dbt clone would make a view
// per node; deferring reads production's relations with no object made at all).
Result<std::string> upstream_mode(const std::string& requested, const std::string& adapter_type) {
  if (requested == "defer" || requested == "clone") return requested;
  if (!requested.empty() && requested != "auto")
    return std::unexpected(Error{"usage", "--upstream must be defer, clone or auto, not '" + requested + "'"});
  if (adapter_type == "snowflake" || adapter_type == "bigquery" || adapter_type == "databricks") return "clone";
  return "defer";
}

// Adds the results of `run_results.json` under `dir` to `out`; false (and why on ctx.err) when it can't be read.
bool read_results(const CommandContext& ctx, const std::filesystem::path& dir,
                  std::map<std::string, dbt::NodeResult>& out) {
  auto results = dbt::read_run_results(dir / "run_results.json");
  if (!results) {
    *ctx.err << "ods: dbt's results could not be read: " << results.error().message << "\n";
    return false;
  }
  for (auto& r : results->results) out[r.unique_id] = std::move(r);
  return true;
}

// Parses the project with the PR's target (the session's) into `pr_dir` and refuses a PR
// environment that would write a relation of production's (run::first_production_relation),
// naming it, before anything is built or cloned. kExitOk when none; an exit code after saying
// why otherwise.
int refuse_production_relations(const CommandContext& ctx, DbtSession& session, const LoadedProject& production,
                                const PrOutcome& outcome, const std::filesystem::path& pr_dir) {
  auto parsed = session.run({"parse", kFlagTargetPath, pr_dir.string()});
  if (!parsed) return report(ctx, parsed.error());
  if (parsed->exit_code != 0)
    return report_dbt_failure(ctx, "dbt parse with --pr-target " + outcome.pr_target, *parsed);
  auto pr_inputs = dbt::read_project_inputs(dbt::ArtifactPaths{pr_dir / "manifest.json", std::nullopt},
                                            dbt::ReadOptions{outcome.pr_target, {}});
  if (!pr_inputs) return report(ctx, pr_inputs.error());
  const auto shared =
      run::first_production_relation(production.inputs, *pr_inputs, outcome.selection, outcome.upstream == "clone");
  if (!shared) return kExitOk;
  return report(ctx, {"usage", "--pr-target " + outcome.pr_target + " writes into production's relations (target " +
                                   (ctx.target.empty() ? std::string("dbt's default") : "'" + ctx.target + "'") +
                                   "): " + *shared +
                                   " is the same relation in both; a PR environment must build elsewhere (a target "
                                   "with its own schema or database); nothing was built"});
}

// Refuses a --pr-target that is missing, names production's target, or is not in the profile:
// kExitOk when it names another target of the profile; an exit code after saying why otherwise.
int refuse_bad_pr_target(const ParsedArgs& args, const CommandContext& ctx, const std::string& pr_target) {
  if (pr_target.empty())
    return report(ctx, {"usage", std::string(kFlagPrTarget) +
                                     " is required: the dbt target of the PR's own schema (the --target is "
                                     "production's, whose recorded state is read)"});
  if (pr_target == ctx.target)  // ctx.target is resolved: without --target, the profile's default (resolve_target)
    return report(ctx, {"usage", std::string(kFlagPrTarget) + " names production's target '" + ctx.target + "'" +
                                     (ctx.target_how.empty() ? "" : " (" + ctx.target_how + ")") +
                                     ": a PR environment must build elsewhere"});
  if (auto known = dbt::choose_target(ctx.project_dir, pr_target, args.get(kFlagProfilesDir), ctx.env.getenv); !known)
    return report(ctx, {"usage", std::string(kFlagPrTarget) + ": " + known.error().message});
  return kExitOk;
}

// Production's recorded state of one scope, read only (a PR never records, and --read-only-state
// proves it can't): read before the PR's code is compiled, so that only the nodes whose compile
// key differs from production's record compile (prepare_run's `recorded`), then planned against.
struct ProductionState {
  std::unique_ptr<contracts::StateStore> store;  // null: no state store at all
  std::optional<Head> head;                      // nullopt: nothing recorded in the scope
  std::string scope;
};

// Opens the store read only (none: no state); the head is read by `recorded_snapshot` once the
// parse names the scope.
Result<ProductionState> open_production_state(const CommandContext& ctx) {
  ProductionState out;
  auto store = open_store(ctx, /*create=*/false, /*read_only=*/true);
  if (!store && store.error().code != "not_found") return std::unexpected(store.error());
  if (store) out.store = std::move(*store);
  return out;
}

// prepare_run's `recorded`: production's head of the parsed project's scope, read into `production`.
RecordedSnapshot recorded_snapshot(ProductionState& production) {
  return [&production](const planner::ProjectInputs& parsed) -> Result<const planner::StateSnapshot*> {
    production.scope = planner::scope_of(parsed.project, parsed.target);
    if (!production.store) return nullptr;
    auto head = read_head(*production.store, production.scope);
    if (!head) return std::unexpected(head.error());
    production.head = std::move(*head);
    return production.head ? &production.head->snapshot : nullptr;
  };
}

// The PR's selection planned without the warehouse, when it builds nothing: no node's code
// differs from production's record and no relation is checked. nullopt when something would
// build: then the probe runs and the plan is made again with its evidence. Without the probe, a
// plan only builds more (unknown evidence builds), so an empty one stands. An incremental model
// whose compile key equals production's keeps the recorded SQL here: the key holds every input of
// its code, so its code is production's, and whether production's relation is still a table (what
// is_incremental() asks, the probe's question in a run) decides nothing in a PR that builds
// nothing, as no other relation of production is checked then either.
std::optional<run::PrSelection> selection_without_probe(const LoadedProject& project,
                                                        const planner::StateSnapshot* recorded,
                                                        const planner::PlanOptions& options) {
  auto plan = planner::plan(project.inputs, recorded, options);
  if (!plan) return std::nullopt;  // planned again below, where its error is reported
  auto selection = run::pr_selection(project.inputs, *plan, std::nullopt);
  if (selection.plan.count(planner::Action::build) != 0) return std::nullopt;
  return selection;
}

// Plans the PR's code (compiled by `prepared`) against production's recorded state (none
// recorded: every node differs), and sets `outcome`'s selection, warnings and time saved; prints
// the plan in text format. The warehouse is probed (production's relations exist?) only when
// something builds. kExitOk, or an exit code after saying why.
int plan_against_production(const CommandContext& ctx, PreparedRun& prepared, const ProductionState& production,
                            PrOutcome& outcome) {
  const std::string& scope = outcome.prod_scope;
  const planner::StateSnapshot* recorded = production.head ? &production.head->snapshot : nullptr;
  if (!recorded) step(ctx, "no recorded state for " + scope + ": every node differs from production and builds");

  planner::PlanOptions options;
  options.now = ctx.env.now();
  const LoadedProject& project = prepared.project;
  if (auto unprobed = selection_without_probe(project, recorded, options)) {
    step(ctx, "no node's code differs from production's recorded state: the warehouse is not probed");
    outcome.selection = std::move(*unprobed);
  } else {
    // Production's relations are read by name: whether each exists decides, their identity (a
    // scan of each relation on some warehouses) nothing here, so none is read.
    prepared.warehouse.relation_identity = false;
    GatheredEvidence evidence = prepared.probe(ctx, options.now);  // production's relations exist?
    if (int code = prepared.settle_compiles(ctx, evidence); code != kExitOk) return code;
    options.relations_exist = evidence.relations_exist;
    auto prod_plan = planner::plan(project.inputs, recorded, options);
    if (!prod_plan) return report(ctx, prod_plan.error());
    outcome.selection = run::pr_selection(project.inputs, *prod_plan, evidence.relations_exist);
    for (const auto& w : evidence.warnings) outcome.selection.plan.warnings.push_back(w);
  }
  if (production.store)
    outcome.time_saved_seconds = run::time_saved_seconds(*production.store, scope, outcome.selection.plan);
  if (ctx.format == "text")
    print_plan_table(*ctx.out, outcome.selection.plan,
                     "PR environment: BUILD nodes build in target " + outcome.pr_target +
                         ", REUSE nodes stay production's (" + scope + ")");
  *ctx.out << std::flush;  // the plan shows before the PR's dbt calls
  return kExitOk;
}

// Where the PR's dbt calls write (`pr_dir`: their own artifacts) and what they defer to or
// clone from (`state_dir`: the manifest.json of the PR's code parsed or compiled with
// production's target, whose relations are production's).
struct PrDirs {
  std::filesystem::path pr_dir;
  std::filesystem::path state_dir;
};

// One dbt call of the PR (`dbt_args`, with dirs' artifacts and state), its results added to `outcome` (failed, with
// dbt's error text, when dbt failed or its results can't be read). kExitOk, or an exit code when dbt could not run or
// was interrupted.
int run_pr_dbt(const CommandContext& ctx, DbtSession& session, std::vector<std::string> dbt_args,
               const std::string& what, const PrDirs& dirs, PrOutcome& outcome) {
  const std::filesystem::path& pr_dir = dirs.pr_dir;
  for (const auto& a : {std::string(kFlagTargetPath), pr_dir.string(), std::string("--state"), dirs.state_dir.string()})
    dbt_args.push_back(a);
  std::error_code ignored;  // an earlier push's results must not pass for this call's
  std::filesystem::remove(pr_dir / "run_results.json", ignored);
  auto ran = session.run_with_progress(dbt_args, what);
  if (!ran) return report(ctx, ran.error());
  if (ran->interrupted) {
    *ctx.err << "ods: interrupted: dbt stopped; nothing recorded\n";
    return kExitInterrupted;
  }
  if (!read_results(ctx, pr_dir, outcome.results)) outcome.failed = true;
  if (ran->exit_code != 0) {
    outcome.failed = true;
    outcome.dbt_errors = ran->error_text;
  }
  return kExitOk;
}

// Builds the PR's selection into outcome.pr_target: first, under clone, `dbt clone` of the
// nodes read from production; then (unless that failed) `dbt build --defer` of the selection,
// favouring production's relations under defer. kExitOk (outcome.failed says whether dbt
// failed), or an exit code when dbt could not run or was interrupted.
int build_pr_environment(const CommandContext& ctx, DbtSession& session, const PrDirs& dirs, PrOutcome& outcome) {
  const auto& from_production = outcome.selection.from_production;
  if (outcome.upstream == "clone" && !from_production.empty()) {
    std::vector<std::string> clone{"clone", "--full-refresh", kFlagSelect};
    for (const auto& e : outcome.selection.plan.entries)
      if (std::find(from_production.begin(), from_production.end(), e.id) != from_production.end())
        clone.push_back(e.name);
    step(ctx, "cloning " + count_of(clone.size() - 3, "node") + " from production into target " + outcome.pr_target);
    if (int code = run_pr_dbt(ctx, session, std::move(clone), "dbt clone", dirs, outcome); code != kExitOk) return code;
  }
  if (outcome.failed) return kExitOk;
  std::vector<std::string> build{"build", kFlagSelect};
  build.insert(build.end(), outcome.dbt_selection.begin(), outcome.dbt_selection.end());
  build.push_back("--defer");
  // Deferring: production's relation even where the PR's schema has one (an earlier push's).
  // Cloned: the clones in the PR's schema, production's for anything else (a test's other parent).
  if (outcome.upstream == "defer") build.push_back("--favor-state");
  // On the PR's parse the driver keeps, the build writes no manifest: the parse's, in the same
  // folder, is the same project, and ODS reads only the build's results.
  if (session.one_parse()) build.emplace_back(dbt::kDriverNoManifest);
  step(ctx, "building " + count_of(outcome.selection.plan.count(planner::Action::build), "node") + " in target " +
                outcome.pr_target + ", reading " + std::to_string(from_production.size()) + " from production (" +
                outcome.upstream + ")");
  return run_pr_dbt(ctx, session, std::move(build), "dbt build", dirs, outcome);
}

}  // namespace

int cmd_pr(const ParsedArgs& args, CommandContext& ctx) {
  const std::string pr_target = args.get(kFlagPrTarget);
  if (int code = refuse_bad_pr_target(args, ctx, pr_target); code != kExitOk) return code;
  auto production = open_production_state(ctx);
  if (!production) return report(ctx, production.error());
  // One dbt session (one dbt process, in the ods dbt driver) for the whole job: production's
  // target first (the PR's code parsed, compiled where its compile key differs from production's
  // record, the probe), then the PR's target. The session reads the target of `session_ctx` on
  // every call; the driver parses again when the target changes (it is part of its parse key).
  CommandContext session_ctx = ctx;
  auto prepared =
      prepare_run(args, session_ctx, DeclaredPackages::leave, CompileDeferral::never, recorded_snapshot(*production));
  if (!prepared) return prepared.error();
  LoadedProject& project = prepared->project;
  auto upstream = upstream_mode(args.get(kFlagUpstream), project.adapter_type);
  if (!upstream) return report(ctx, upstream.error());
  PrOutcome outcome;
  outcome.prod_scope = planner::scope_of(project.inputs.project, project.inputs.target);
  outcome.pr_target = pr_target;
  outcome.upstream = *upstream;
  if (int code = plan_against_production(ctx, *prepared, *production, outcome); code != kExitOk) return code;

  outcome.dbt_selection = run::build_selection(project.inputs, outcome.selection.plan, {});
  if (outcome.dbt_selection.empty()) {
    step(ctx, "no node's code differs from production's recorded state: nothing to build");
    return deliver_pr_report(ctx, outcome) ? kExitOk : kExitFailed;
  }
  // The PR's dbt calls: its own target, its own artifacts; production's manifest (the one the
  // project above was read from) as the state they defer to or clone from.
  session_ctx.target = pr_target;
  DbtSession& session = *prepared->session;
  const PrDirs dirs{ctx.target_dir / "ods-pr", prepared->manifest.parent_path()};
  if (int code = refuse_production_relations(ctx, session, project, outcome, dirs.pr_dir); code != kExitOk) return code;
  if (int code = build_pr_environment(ctx, session, dirs, outcome); code != kExitOk) return code;
  const bool delivered = deliver_pr_report(ctx, outcome);
  if (outcome.failed) {
    // dbt's error text says its exit code and "dbt reported:" itself: said once.
    *ctx.err << "ods: the PR environment's dbt build failed"
             << (outcome.dbt_errors.empty() ? std::string(" (see dbt's output above)\n")
                                            : ":\n" + outcome.dbt_errors + "\n");
    return kExitFailed;
  }
  return delivered ? kExitOk : kExitFailed;
}

}  // namespace ods::cli
