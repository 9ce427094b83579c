#include "next_run_plan.h"

#include <chrono>
#include <future>

#include "evidence_budget.h"
#include "exit_codes.h"
#include "flag_names.h"
#include "metrics_delivery.h"
#include "ods/base/elapsed.h"
#include "ods/planner/json_io.h"

namespace ods::cli {

std::expected<NextRunPlan, int> plan_next_run(const ParsedArgs& args, CommandContext& ctx, NextRunUse use) {
  using Clock = std::chrono::steady_clock;
  const bool records = use == NextRunUse::run;
  NextRunPlan next;
  // The store is opened first: the compile reads the recorded compile keys (keyed_compile.h).
  auto store = open_store(ctx, records, /*read_only=*/!records);
  if (store) {
    next.store = std::move(*store);
  } else if (use == NextRunUse::inspect) {
    return std::unexpected(report(ctx, without_state(store.error())));
  } else if (!(use == NextRunUse::dry_run && store.error().code == "not_found")) {
    return std::unexpected(report(ctx, store.error()));
  }
  if (records) {
    if (auto writable = check_can_record(*next.store, /*before_dbt=*/true); !writable)
      return std::unexpected(report(ctx, writable.error()));
  }
  contracts::StateStore* const state = next.store.get();
  std::optional<Head> early_head;
  bool head_read_early = false;
  const RecordedSnapshot recorded = [&](const planner::ProjectInputs& parsed) -> Result<const planner::StateSnapshot*> {
    if (state == nullptr) return nullptr;
    auto h = read_settled_head(ctx, *state, parsed.project, parsed.target, records);
    if (!h) return std::unexpected(h.error());
    early_head = std::move(*h);
    head_read_early = true;
    return early_head ? &early_head->snapshot : nullptr;
  };
  auto prepared = prepare_run(args, ctx, DeclaredPackages::leave, CompileDeferral::until_build, recorded);
  if (!prepared) return std::unexpected(prepared.error());
  next.prepared = std::move(*prepared);
  LoadedProject& project = next.prepared.project;
  next.timings.compile = next.prepared.compile_seconds;

  auto t = Clock::now();
  next.options.now = ctx.env.now();
  if (next.prepared.selection) {
    next.options.selected = std::move(next.prepared.selection->nodes);
    next.checks_selected = std::move(next.prepared.selection->checks);
  }
  next.scope = planner::scope_of(project.inputs.project, project.inputs.target);
  // The recorded state (tens of MB to parse at 10k nodes) is read on a thread while the probe's
  // dbt call runs; the store is thread-safe, and planning waits for it below.
  std::future<Result<std::optional<Head>>> head_read;
  if (state != nullptr && records && args.has(kFlagPushgateway))
    announce_scope(ctx, *state, next.scope, args.get(kFlagPushgateway));
  if (state != nullptr && !head_read_early)
    head_read = std::async(std::launch::async, [&ctx, state, &project, records] {
      return read_settled_head(ctx, *state, project.inputs.project, project.inputs.target, records);
    });
  next.timings.load = next.prepared.load_seconds + seconds_since(t);

  // The cost rule (evidence_budget.h): the sources whose fingerprint cost more than building
  // what reads them, by the ledger, are not fingerprinted.
  if (state != nullptr && next.prepared.warehouse.evidence_cost)
    next.prepared.too_costly_sources = sources_too_costly(*state, next.scope, project.inputs);
  next.evidence = next.prepared.probe(ctx, next.options.now);
  next.timings.probe = next.prepared.probe_seconds;
  next.options.relations_exist = next.evidence.relations_exist;
  next.options.relation_identities = next.evidence.relation_identities;
  if (int code = next.prepared.settle_compiles(ctx, next.evidence); code != kExitOk) return std::unexpected(code);

  t = Clock::now();
  if (head_read_early) {
    next.head = std::move(early_head);
  } else if (state != nullptr) {
    auto h = head_read.get();
    if (!h) return std::unexpected(report(ctx, h.error()));
    next.head = std::move(*h);
  }
  auto plan = planner::plan(project.inputs, next.head ? &next.head->snapshot : nullptr, next.options);
  if (!plan) return std::unexpected(report(ctx, plan.error()));
  for (const auto& w : next.evidence.warnings) plan->warnings.push_back(w);
  next.plan = std::move(*plan);
  next.timings.plan = seconds_since(t);
  return next;
}

}  // namespace ods::cli
