#pragma once
// Internal: the stable reason codes (docs/reason-codes.md explains each).
#include <string_view>

namespace ods::planner::reason {
inline constexpr const char* kNeverBuilt = "never_built";
inline constexpr const char* kIncompleteFingerprint = "incomplete_fingerprint";
inline constexpr const char* kFingerprintChanged = "fingerprint_changed";
inline constexpr const char* kReadsRunContext = "reads_run_context";
inline constexpr const char* kUpstreamCodeChanged = "upstream_code_changed";
inline constexpr const char* kUnknownParent = "unknown_parent";
inline constexpr const char* kNoDeclaredInputs = "no_declared_inputs";
inline constexpr const char* kPolicyUnusable = "policy_unusable";
inline constexpr const char* kMissingDataEvidence = "missing_data_evidence";
inline constexpr const char* kNewUpstreamData = "new_upstream_data";
inline constexpr const char* kWaitingForAllParents = "waiting_for_all_inputs";
inline constexpr const char* kWithinLagTolerance = "within_lag_tolerance";
inline constexpr const char* kUnchanged = "unchanged";
inline constexpr const char* kEarlyCutoff = "early_cutoff";
inline constexpr const char* kFormattingOnly = "formatting_only";
inline constexpr const char* kRelationMissing = "relation_missing";
inline constexpr const char* kRelationUnverified = "relation_unverified";
// Check plans (`ods state test`).
inline constexpr const char* kNotTested = "not_tested";
inline constexpr const char* kChecksChanged = "checks_changed";
}  // namespace ods::planner::reason
