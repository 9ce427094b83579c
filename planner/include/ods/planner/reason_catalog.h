#pragma once
// Every reason code a plan or a check plan can carry, as one table: docs/reason-codes.md
// explains each (planner_tests checks that it lists exactly these). Everything else derives
// from it: the codes the planner's rules write (reason_codes.h names them, and naming a code
// not in the table does not compile), whether a build was for code (built_for_code()), and the
// operator's ods_nodes_total{action,reason} series, made at 0 for every code an entry can
// start with before the first node of a project is counted.
#include <optional>
#include <string_view>

#include "ods/planner/plan.h"

namespace ods::planner {

// What an entry whose reasons start with the code does.
enum class ReasonAction {
  build_for_code,  // BUILD for its code: its output may change shape (readers: rule 5, no lag tolerance)
  build_for_data,  // BUILD for data: its readers see new data (rule 10)
  reuse,           // REUSE
  reuse_detail,    // REUSE, and never first: added after another reuse reason (formatting_only, cheaper_evidence)
  check_run,       // only in check plans (`ods state test`): RUN the checks
};

struct ReasonCode {
  std::string_view code;      // stable snake_case, never changes meaning
  ReasonAction action;        // in a plan (check plans also use some plan codes; their action is the check rule's)
  std::string_view rule;      // docs/reason-codes.md's rule column: ADR-0013's rule(s), "hooks", "ADR-0016"; "checks"
  std::string_view sentence;  // what it means, in one sentence (the doc says more)
};

// In docs/reason-codes.md's order: its plan table, then the codes only check plans use.
inline constexpr ReasonCode kReasonCodes[] = {
    {"never_built", ReasonAction::build_for_code, "2", "No successful build of the node is recorded in this scope."},
    {"incomplete_fingerprint", ReasonAction::build_for_code, "3", "The node's code can't be fingerprinted completely."},
    {"compile_needs_upstream", ReasonAction::build_for_code, "3",
     "The node's compile reads a relation not built yet; dbt build compiles it in its turn."},
    {"fingerprint_changed", ReasonAction::build_for_code, "4", "The node's code changed since its last build."},
    {"reads_run_context", ReasonAction::build_for_data, "hooks",
     "A hook or macro of the node reads run-time context that isn't fingerprinted."},
    {"upstream_code_changed", ReasonAction::build_for_code, "5", "A parent is built for a code change."},
    {"unknown_parent", ReasonAction::build_for_code, "6", "The node reads something ODS doesn't know."},
    {"no_declared_inputs", ReasonAction::build_for_data, "7", "The node declares no inputs and isn't self-contained."},
    {"policy_unusable", ReasonAction::build_for_data, "8", "The node's freshness policy can't be read or honoured."},
    {"missing_data_evidence", ReasonAction::build_for_data, "9", "An input has no data version good enough for reuse."},
    {"evidence_costs_more", ReasonAction::build_for_data, "9",
     "A source it reads was not fingerprinted: that cost more than building what reads it, and no cheaper evidence "
     "stood in."},
    {"new_upstream_data", ReasonAction::build_for_data, "10, 13", "An input has new data."},
    {"waiting_for_all_inputs", ReasonAction::reuse, "11", "Some inputs have new data, but not all that it waits for."},
    {"within_lag_tolerance", ReasonAction::reuse, "12", "New data upstream, within the node's lag tolerance."},
    {"unchanged", ReasonAction::reuse, "14", "Code and inputs unchanged since the last build."},
    {"early_cutoff", ReasonAction::reuse, "14", "A rebuilt parent came out with the content the node read."},
    {"formatting_only", ReasonAction::reuse_detail, "14", "Only comments or whitespace of the code changed."},
    {"cheaper_evidence", ReasonAction::reuse_detail, "14",
     "A source it reads was judged by cheaper evidence: its fingerprint cost more than building what reads it."},
    {"relation_missing", ReasonAction::build_for_data, "ADR-0016", "The node's relation no longer exists."},
    {"relation_unverified", ReasonAction::build_for_data, "ADR-0016", "The node's relation couldn't be checked."},
    {"relation_changed_outside", ReasonAction::build_for_data, "ADR-0016",
     "The node's relation is not the one ODS recorded at its last build."},
    {"dropped_with_upstream", ReasonAction::build_for_data, "ADR-0016",
     "The warehouse drops the node's relation when a parent it reads is rebuilt, and one is rebuilt in this run."},
    {"checks_not_passed", ReasonAction::build_for_data, "checks",
     "Checks that run only with the node's build have not passed on its current build."},
    {"not_tested", ReasonAction::check_run, "checks", "No pass of the checks is recorded on what they vouch for."},
    {"checks_changed", ReasonAction::check_run, "checks", "The checks passed, but against other checks."},
};

// The entry of `code`; nullptr when the table has none.
constexpr const ReasonCode* find_reason_code(std::string_view code) {
  for (const ReasonCode& r : kReasonCodes) {
    if (r.code == code) return &r;
  }
  return nullptr;
}

// The action of a plan entry whose first reason is `reason`; nullopt for a code that never
// comes first in a plan (reuse_detail, check_run).
constexpr std::optional<Action> first_reason_action(const ReasonCode& reason) {
  switch (reason.action) {
    case ReasonAction::build_for_code:
    case ReasonAction::build_for_data:
      return Action::build;
    case ReasonAction::reuse:
      return Action::reuse;
    case ReasonAction::reuse_detail:
    case ReasonAction::check_run:
      return std::nullopt;
  }
  return std::nullopt;
}

// True when `code` is in the table as build_for_code.
constexpr bool is_build_for_code(std::string_view code) {
  const ReasonCode* r = find_reason_code(code);
  return r != nullptr && r->action == ReasonAction::build_for_code;
}

}  // namespace ods::planner
