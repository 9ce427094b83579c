#pragma once
// Names for the reason codes of the table in ods/planner/reason_catalog.h, where each code's
// action, rule and meaning live: the planner's rules write them, and run/ (early cutoff's waves,
// PR environments) reads and writes them by these names, never as literals. A name for a code
// the table lacks does not compile.
#include <string_view>

#include "ods/planner/reason_catalog.h"

namespace ods::planner::reason {

// `code`, checked at compile time to be in kReasonCodes.
consteval std::string_view listed(std::string_view code) {
  const ReasonCode* r = find_reason_code(code);
  if (r == nullptr) throw "a reason code missing from kReasonCodes (ods/planner/reason_catalog.h)";
  return r->code;
}

inline constexpr std::string_view kNeverBuilt = listed("never_built");
inline constexpr std::string_view kIncompleteFingerprint = listed("incomplete_fingerprint");
inline constexpr std::string_view kCompileNeedsUpstream = listed("compile_needs_upstream");
inline constexpr std::string_view kFingerprintChanged = listed("fingerprint_changed");
inline constexpr std::string_view kReadsRunContext = listed("reads_run_context");
inline constexpr std::string_view kUpstreamCodeChanged = listed("upstream_code_changed");
inline constexpr std::string_view kUnknownParent = listed("unknown_parent");
inline constexpr std::string_view kNoDeclaredInputs = listed("no_declared_inputs");
inline constexpr std::string_view kPolicyUnusable = listed("policy_unusable");
inline constexpr std::string_view kMissingDataEvidence = listed("missing_data_evidence");
inline constexpr std::string_view kEvidenceCostsMore = listed("evidence_costs_more");
inline constexpr std::string_view kNewUpstreamData = listed("new_upstream_data");
inline constexpr std::string_view kWaitingForAllParents = listed("waiting_for_all_inputs");
inline constexpr std::string_view kWithinLagTolerance = listed("within_lag_tolerance");
inline constexpr std::string_view kUnchanged = listed("unchanged");
inline constexpr std::string_view kEarlyCutoff = listed("early_cutoff");
inline constexpr std::string_view kFormattingOnly = listed("formatting_only");
inline constexpr std::string_view kCheaperEvidence = listed("cheaper_evidence");
inline constexpr std::string_view kRelationMissing = listed("relation_missing");
inline constexpr std::string_view kRelationUnverified = listed("relation_unverified");
inline constexpr std::string_view kRelationChangedOutside = listed("relation_changed_outside");
inline constexpr std::string_view kDroppedWithUpstream = listed("dropped_with_upstream");
inline constexpr std::string_view kChecksNotPassed = listed("checks_not_passed");
// Check plans (`ods state test`).
inline constexpr std::string_view kNotTested = listed("not_tested");
inline constexpr std::string_view kChecksChanged = listed("checks_changed");

}  // namespace ods::planner::reason
