// The controller's half of early cutoff's waves (run_waves.h).
#include "run_waves.h"

#include <sstream>

#include "ods/planner/json_io.h"
#include "ods/planner/planner.h"
#include "ods/run/build_seconds.h"
#include "ods/run/build_selection.h"
#include "ods/run/cutoff_waves.h"
#include "ods/run/run_details.h"
#include "ods/run/wave_plans.h"
#include "ods/run/wave_record.h"
#include "ods/state/state_commit.h"
#include "run_ledger.h"
#include "run_steps.h"

namespace ods::callback::detail {

namespace {

// The wave after `built_earlier` of `plan` (a plan or a re-plan of the nodes held back).
run::WaveDetails wave_of(contracts::StateStore& store, const std::string& scope, const planner::ProjectInputs& inputs,
                         const planner::ExecutionPlan& plan, run::WaveDetails state) {
  const auto seconds = run::last_build_seconds(store, scope, run::building_ids(plan));
  // The pod asked for "auto" or "always" (the protocol refuses other words; "off" asks for no waves).
  const run::CutoffMode mode = run::cutoff_mode_from_string(state.mode).value_or(run::CutoffMode::automatic);
  const run::Wave wave = run::next_wave(inputs, plan, seconds, state.extra_call_seconds, mode, true);
  state.building = wave.now;
  state.held_back = wave.later;
  state.last = wave.later.empty();
  state.why = wave.why;
  return state;
}

Answer<planner::ExecutionPlan> plan_of(const contracts::RunRecord& entry) {
  auto plan = planner::plan_from_json(entry.plan);
  if (!plan)
    return refuse_with(500, "corrupt", "",
                       "the plan kept in ledger entry " + entry.run_id + ": " + plan.error().message);
  return std::move(*plan);
}

// The entry of the wave before `number` (the planned entry for wave 1) and its state, when the
// run expects wave `number` to be reported.
Answer<std::pair<contracts::RunRecord, run::WaveDetails>> expecting(const RunCall& call, int number,
                                                                    CallbackDeps& deps) {
  const std::string run = call.ns + "/" + call.name;
  const std::string id = number == 1 ? planned_entry_id(call.run.uid) : wave_entry_id(call.run.uid, number - 1);
  auto before = find_entry(deps.store, call.run.scope, id);
  if (!before) return store_refusal(before.error(), "reading the run ledger of " + call.run.scope);
  if (!*before) {
    if (number == 1)
      return refuse_with(409, "not_planned", "",
                         "a wave before inputs: run " + run + " has no plan; post its inputs first");
    return refuse_with(
        409, "wave_out_of_order", "wave",
        "is " + std::to_string(number) + " but run " + run + " has not recorded wave " + std::to_string(number - 1));
  }
  auto state = wave_state_of(**before);
  if (!state)
    return refuse_with(409, "not_in_waves", "wave",
                       "run " + run + " was planned in one wave: post its build to results");
  if (state->number != number)
    return refuse_with(
        409, "wave_out_of_order", "wave",
        "is " + std::to_string(number) + " but run " + run + " builds wave " + std::to_string(state->number));
  if (state->last)
    return refuse_with(409, "last_wave", "wave",
                       "wave " + std::to_string(number) + " of run " + run + " is its last: post its build to results");
  return std::pair{std::move(**before), std::move(*state)};
}

WaveAnswer answer_from(const RunCall& call, const contracts::RunRecord& entry) {
  const RunSummary s = summary_of(entry);
  WaveAnswer a;
  a.run_id = call.run.uid;
  if (auto state = wave_state_of(entry)) a.wave = wave_info_of(*state);
  a.select = s.selection;
  a.plan_json = entry.plan;
  a.build = s.planned_build;
  a.reuse = s.planned_reuse;
  if (auto waves = wave_state_of(entry)) a.cut_off = waves->cut_off.value_or(0);
  a.snapshot_id = entry.snapshot_id;
  return a;
}

// Commits the wave through run::commit_wave, once: a snapshot committed before a restart is found
// again. Returns the state it leaves.
Answer<state::Head> commit_wave_once(const RunCall& call, const WaveReport& report,
                                     const planner::ExecutionPlan& wave_plan, CallbackDeps& deps) {
  const std::string& scope = call.run.scope;
  const std::string run_id = wave_entry_id(call.run.uid, report.wave);
  auto before = find_snapshot(deps.store, scope, run_id);
  if (!before) return store_refusal(before.error(), "reading the history of " + scope);
  auto head = state::read_head(deps.store, scope);
  if (!head) return store_refusal(head.error(), "reading the head of " + scope);
  if (*before && *head)  // committed before a restart: re-plan on the head, which holds it
    return state::Head{std::move(**before), std::move((*head)->snapshot)};
  planner::RunOutcome outcome = outcome_of(run_id, *report.build.results);
  std::ostringstream retries;
  // The pod measures contents but reports no relation identities (the protocol carries none).
  auto committed = run::commit_wave(deps.store, scope, report.inputs, report.inputs, std::move(*head), wave_plan,
                                    outcome, {report.node_contents, {}}, retries);
  if (!committed && committed.error().code == "stale_run")
    return refuse_with(409, "stale_run", "build.results.started_at", committed.error().message);
  if (!committed) return store_refusal(committed.error(), "recording wave " + std::to_string(report.wave));
  return state::Head{committed->stored, std::move(committed->snapshot)};
}

}  // namespace

std::optional<run::WaveDetails> wave_state_of(const contracts::RunRecord& entry) {
  return run::details_from_json(entry.details).waves;
}

WaveInfo wave_info_of(const run::WaveDetails& s) { return WaveInfo{s.number, s.last, s.why}; }

std::string wave_entry_id(const std::string& run_uid, int number) { return run_uid + ".wave" + std::to_string(number); }

run::WaveDetails first_wave(contracts::StateStore& store, const std::string& scope,
                            const planner::ProjectInputs& inputs, const planner::ExecutionPlan& plan,
                            const std::string& mode, double call_seconds,
                            std::optional<std::map<std::string, bool>> relations_exist) {
  run::WaveDetails state;
  state.mode = mode;
  state.extra_call_seconds = 2 * call_seconds;
  state.relations_exist = std::move(relations_exist);
  return wave_of(store, scope, inputs, plan, std::move(state));
}

Result<contracts::RunRecord> newest_entry_of(contracts::StateStore& store, const std::string& scope,
                                             const std::string& run_uid, contracts::RunRecord planned) {
  contracts::RunRecord newest = std::move(planned);
  for (int number = 1; wave_state_of(newest) && !wave_state_of(newest)->last; ++number) {
    auto wave = find_entry(store, scope, wave_entry_id(run_uid, number));
    if (!wave) return std::unexpected(wave.error());
    if (!*wave) break;
    newest = std::move(**wave);
  }
  return newest;
}

Answer<WaveAnswer> record_wave(const RunCall& call, const WaveReport& report, CallbackDeps& deps) {
  const std::string& scope = call.run.scope;
  const std::string run = call.ns + "/" + call.name;
  auto recorded = deps.store.has_run(scope, call.run.uid);
  if (!recorded) return store_refusal(recorded.error(), "reading the run ledger of " + scope);
  if (*recorded) return refuse_with(409, "already_recorded", "", "run " + run + " is already recorded");
  const std::string entry_id = wave_entry_id(call.run.uid, report.wave);
  auto again = find_entry(deps.store, scope, entry_id);
  if (!again) return store_refusal(again.error(), "reading the run ledger of " + scope);
  if (*again) {  // reported again: the first answer stands
    if ((*again)->inputs_digest != planner::inputs_digest(report.inputs))
      return refuse_with(409, "inputs_differ", "inputs", "differ from the inputs run " + run + " was planned with");
    return answer_from(call, **again);
  }
  auto expected = expecting(call, report.wave, deps);
  if (!expected) return std::unexpected(expected.error());
  auto& [before, state] = *expected;
  if (planner::inputs_digest(report.inputs) != before.inputs_digest)
    return refuse_with(409, "inputs_differ", "inputs", "differ from the inputs run " + run + " was planned with");
  if (report.build.exit_code != 0)
    return refuse_with(400, "failed_wave", "build.exit_code",
                       "is " + std::to_string(report.build.exit_code) +
                           ": a failed wave is the run's last; post it to results (the nodes held back are not built)");
  auto whole = plan_of(before);
  if (!whole) return std::unexpected(whole.error());
  const planner::ExecutionPlan wave_plan = run::only_building(*whole, state.building);

  auto head = commit_wave_once(call, report, wave_plan, deps);
  if (!head) return std::unexpected(head.error());

  // Re-plan the held-back nodes against what the wave recorded: a failed wave was refused above,
  // so every node held back still builds (the CLI, which builds on after a failed wave, skips
  // those below a failure first: run::split_held_back). The re-plan's time is the wave's report,
  // not the plan's (the wave state keeps no `now`); it keeps no relation identities (the
  // protocol carries none).
  planner::PlanOptions options;
  options.now = deps.now();
  options.relations_exist = state.relations_exist;
  options.built_earlier = std::move(state.built_earlier);
  auto replan = run::replan_held_back(report.inputs, &head->snapshot, wave_plan, state.held_back, options, *whole);
  state.built_earlier = std::move(options.built_earlier);
  if (!replan) return refuse_with(400, replan.error().code, "inputs", replan.error().message);
  const int cut_off = replan->count(planner::Action::reuse);

  run::WaveDetails next = state;
  next.number = report.wave + 1;
  std::vector<std::string> select;
  if (replan->count(planner::Action::build) == 0) {
    next.building.clear();
    next.held_back.clear();
    next.last = true;
    next.why = "every node held back is reused: nothing left to build";
  } else {
    next = wave_of(deps.store, scope, report.inputs, *replan, next);
    select = run::build_selection(report.inputs, run::only_building(*replan, next.building), {});
  }

  RunSummary s = summary_of(before);
  add_node_counts(s, report.build.results->node_status);
  for (const auto& [id, seconds] : report.build.results->node_seconds) s.build_seconds += seconds;
  count_plan(s, *whole);
  s.selection = select;
  s.seconds_saved = run::time_saved_seconds(deps.store, scope, *whole);
  s.message = "wave " + std::to_string(report.wave) + ": " + report.build.results->summary + "; " +
              std::to_string(cut_off) + " of " + std::to_string(state.held_back.size()) +
              " held-back nodes reused (early cutoff)";

  run::RunDetails details = run::details_from_json(before.details);
  details.run_summary = summary_to_json(s);
  details.planned_entry = planned_entry_id(call.run.uid);
  details.node_seconds = report.build.results->node_seconds;
  details.dbt_invocation_id = report.build.results->invocation_id;
  details.timings["build"] = report.build.seconds;
  next.cut_off = cut_off;
  details.waves = std::move(next);
  contracts::RunRecord entry{entry_id,
                             scope,
                             report.build.results->started_at,
                             report.build.results->finished_at.empty() ? deps.now() : report.build.results->finished_at,
                             "success",
                             before.inputs_digest,
                             planner::to_json(*whole, false),
                             run::to_json(details),
                             head->stored.id};
  if (auto appended = deps.store.append_run(entry); !appended)
    return store_refusal(appended.error(), "writing the ledger entry of wave " + std::to_string(report.wave));
  deps.listener.on_phase(RunPhase::building, s);
  return answer_from(call, entry);
}

}  // namespace ods::callback::detail
