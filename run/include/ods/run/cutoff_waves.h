#pragma once
// Early cutoff's waves (docs/early-cutoff.md): which of a plan's BUILD nodes one dbt call
// builds now, and which wait for the content of the nodes built now. A node built only for
// new upstream data may come out with the content its readers already read; its BUILD
// descendants are then held back to a later wave, re-planned with that content as evidence.
// A boundary costs one more dbt call (and the content probe), so the cost model draws one
// only where the descendants it could spare took longer, by their recorded build times, than
// that extra call. Pure: the durations and the call's cost are arguments. The operator's pod
// can take one selection per wave the same way (`now` is a wave's selection).
#include <map>
#include <string>
#include <vector>

#include "ods/base/result.h"
#include "ods/planner/inputs.h"
#include "ods/planner/plan.h"

namespace ods::run {

// `auto`: the cost model decides; `always`: a boundary wherever a node could cut off
// (tests, small projects); `off`: one wave, as before early cutoff.
enum class CutoffMode { automatic, always, off };

// "auto" | "always" | "off"; errors "usage" naming the value.
[[nodiscard]] Result<CutoffMode> cutoff_mode_from_string(const std::string& text);

struct Wave {
  std::vector<std::string> now;         // BUILD node ids this wave builds (in plan order)
  std::vector<std::string> later;       // BUILD node ids held back to be re-planned (in plan order)
  std::vector<std::string> candidates;  // the nodes built now whose content decides `later`
  double spare_seconds = 0;             // the recorded build seconds of `later`
  std::string why;                      // one sentence: the boundary, or why there is none
};

// The next wave of `plan` (its BUILD entries; reuses are ignored). Candidates: BUILD models
// built only for new upstream data (first reason new_upstream_data) that have BUILD
// descendants, and with `code_cutoff` also those built for a code change (their own or a
// parent's: fingerprint_changed, upstream_code_changed, incomplete_fingerprint,
// compile_needs_upstream; not never_built: nothing read them before; in `auto` not
// fingerprint_changed, see own_edit_defers_to_readers); `later` is those
// descendants. `node_seconds`: each node's recorded build time (absent: unknown, counted as 0,
// so unknown durations never pay for a call); `extra_call_seconds`: what one more dbt call and
// content probe cost. `content_measurable`: whether the warehouse's content can be
// fingerprinted at all (false: one wave); `code_cutoff`: whether that content covers the
// relations' columns too (ChangeProvider::content_covers_schema), which alone lets an output
// be proven unchanged after a code change. `unmeasured`: the nodes whose content won't be
// measured after this wave (evidence_cost.h's choose_exact: measuring it costs more than
// building what lies below it), which are no candidates: nothing would decide their descendants.
Wave next_wave(const planner::ProjectInputs& inputs, const planner::ExecutionPlan& plan,
               const std::map<std::string, double>& node_seconds, double extra_call_seconds, CutoffMode mode,
               bool content_measurable, bool code_cutoff = false,
               const std::map<std::string, std::string>& unmeasured = {});

// Whether a BUILD entry whose first reason is `code` may be a wave boundary's candidate.
bool cutoff_candidate_reason(const std::string& code, bool code_cutoff);

// `auto` only: whether a candidate with this first reason is passed over for its readers. A
// model whose own code was edited (fingerprint_changed) is expected to come out different: a
// boundary right after it would cost a dbt call and a content probe to spare nothing (measured:
// 0 of 540 spared at 5,000 nodes, docs/benchmarks.md). It builds in the same wave as its BUILD
// readers, which become the candidates (built for upstream_code_changed), so their content
// decides what lies below them. What this gives up: when the edit left the model's output as it
// was, its readers are built needlessly (their readers are still spared). `always` keeps the
// boundary right after the edited model.
bool own_edit_defers_to_readers(const std::string& code);

// What one more wave costs (next_wave's extra_call_seconds), from the wave just built: its build
// call's own cost (`build_seconds` of wall time less `node_seconds`, the span from its first
// node's start to its last node's result: dbt's start, parse, hooks and artifacts) plus its
// content call (`content_seconds`). When the build ran no node (`node_seconds` 0) there is no
// measure of the call's own cost, and `estimate` (the cost used before the first wave) stands.
double measured_wave_seconds(double build_seconds, double node_seconds, double content_seconds, double estimate);

}  // namespace ods::run
