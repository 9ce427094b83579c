// Planning a run from the inputs its pod sent (the controller's half of `ods state run`
// before the build).
#include "ods/planner/json_io.h"
#include "ods/planner/planner.h"
#include "ods/run/build_seconds.h"
#include "ods/run/build_selection.h"
#include "ods/run/run_details.h"
#include "ods/run/run_metrics.h"
#include "ods/run/wave_plans.h"
#include "ods/state/state_commit.h"
#include "run_ledger.h"
#include "run_steps.h"
#include "run_waves.h"

namespace ods::callback::detail {

namespace {

void add_plan_to(RunSummary& s, const planner::ExecutionPlan& plan, const InputsRequest& request) {
  count_plan(s, plan);
  s.probe_seconds = request.probe.source_seconds;
  for (const auto& source : request.inputs.sources)
    if (!source.version) ++s.unknown_data_versions;
  s.sources_by_exactness.clear();
  for (const auto& [exactness, n] : run::sources_by_exactness(request.inputs))
    s.sources_by_exactness[exactness] = static_cast<int>(n);
}

// Refuses inputs of another project or target than the run's.
Answer<void> check_identity(const RunCall& call, const planner::ProjectInputs& inputs) {
  if (inputs.project != call.run.project)
    return refuse_with(400, "wrong_project", "inputs.project",
                       "is '" + inputs.project + "' but run " + call.ns + "/" + call.name + " builds project '" +
                           call.run.project + "'");
  if (inputs.target != call.run.target)
    return refuse_with(
        400, "wrong_target", "inputs.target",
        "is '" + inputs.target + "' but run " + call.ns + "/" + call.name + " builds target '" + call.run.target + "'");
  return {};
}

PlanAnswer answer_from_planned(const RunCall& call, const contracts::RunRecord& planned) {
  const RunSummary s = summary_of(planned);
  PlanAnswer a{call.run.uid, call.run.scope, planned.plan, s.selection, s.planned_build, s.planned_reuse};
  if (auto waves = wave_state_of(planned)) a.wave = wave_info_of(*waves);
  return a;
}

}  // namespace

void count_plan(RunSummary& s, const planner::ExecutionPlan& plan) {
  s.planned_build = s.planned_reuse = 0;
  s.build_reasons.clear();
  s.reuse_reasons.clear();
  for (const auto& e : plan.entries) {
    const std::string reason = e.reasons.empty() ? "unspecified" : e.reasons.front().code;
    if (e.action == planner::Action::build) {
      ++s.planned_build;
      ++s.build_reasons[reason];
    } else {
      ++s.planned_reuse;
      ++s.reuse_reasons[reason];
    }
  }
}

Answer<PlanAnswer> plan_run(const RunCall& call, const InputsRequest& request, CallbackDeps& deps) {
  const std::string& scope = call.run.scope;
  if (auto ok = check_identity(call, request.inputs); !ok) return std::unexpected(ok.error());
  const std::string digest = planner::inputs_digest(request.inputs);
  auto recorded = deps.store.has_run(scope, call.run.uid);
  if (!recorded) return store_refusal(recorded.error(), "reading the run ledger of " + scope);
  if (*recorded)
    return refuse_with(409, "already_recorded", "", "run " + call.ns + "/" + call.name + " is already recorded");
  auto planned = find_entry(deps.store, scope, planned_entry_id(call.run.uid));
  if (!planned) return store_refusal(planned.error(), "reading the run ledger of " + scope);
  if (*planned) {
    if ((*planned)->inputs_digest != digest)
      return refuse_with(409, "inputs_differ", "inputs",
                         "differ from the inputs run " + call.ns + "/" + call.name + " was planned with");
    return answer_from_planned(call, **planned);  // the pod asks again (e.g. the answer was lost)
  }

  RunSummary summary;
  summary.ns = call.ns;
  summary.name = call.name;
  summary.run_uid = call.run.uid;
  summary.scope = scope;
  deps.listener.on_phase(RunPhase::planning, summary);
  auto head = state::read_head(deps.store, scope);
  if (!head) return store_refusal(head.error(), "reading the head of " + scope);
  const planner::StateSnapshot* previous = *head ? &(*head)->snapshot : nullptr;
  planner::PlanOptions options;
  options.now = deps.now();
  options.selected = request.selected;
  options.relations_exist = request.relations_exist;
  auto plan = planner::plan(request.inputs, previous, options);
  if (!plan) return refuse_with(400, plan.error().code, "inputs", plan.error().message);
  plan->warnings.insert(plan->warnings.end(), request.probe.warnings.begin(), request.probe.warnings.end());

  add_plan_to(summary, *plan, request);
  summary.seconds_saved = run::time_saved_seconds(deps.store, scope, *plan);
  // A pod that measures content builds in waves (run_waves.h); wave 1 may hold nodes back.
  std::optional<run::WaveDetails> waves;
  if (request.cutoff && *request.cutoff != "off" && summary.planned_build > 0)
    waves = first_wave(deps.store, scope, request.inputs, *plan, *request.cutoff, request.probe.call_seconds,
                       request.relations_exist);
  if (summary.planned_build > 0)
    summary.selection = run::build_selection(
        request.inputs, waves ? run::only_building(*plan, waves->building) : *plan,
        run::check_selection(run::run_checks(request.inputs, previous, *plan, request.check_selected)));
  const std::string now = deps.now();
  run::RunDetails details;
  details.recorded_by = "ods-operator";
  details.head = *head ? std::optional<std::string>((*head)->stored.id) : std::nullopt;
  details.run_summary = summary_to_json(summary);
  details.probe = request.probe;
  details.timings = {{"compile", request.compile_seconds}, {"probe", request.probe_seconds}};
  details.waves = waves;
  contracts::RunRecord entry{
      planned_entry_id(call.run.uid), scope,       now, now, "planned", digest, planner::to_json(*plan, false),
      run::to_json(details),          std::nullopt};
  if (auto appended = deps.store.append_run(entry); !appended)
    return store_refusal(appended.error(), "keeping the plan of run " + call.ns + "/" + call.name);
  deps.listener.on_phase(RunPhase::building, summary);
  return answer_from_planned(call, entry);
}

}  // namespace ods::callback::detail
