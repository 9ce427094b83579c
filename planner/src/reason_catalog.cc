#include "ods/planner/reason_catalog.h"

#include "reason_codes.h"

namespace ods::planner {

namespace {

using namespace reason;

constexpr std::string_view kBuildReasons[] = {kNeverBuilt,       kIncompleteFingerprint, kFingerprintChanged,
                                              kReadsRunContext,  kUpstreamCodeChanged,   kUnknownParent,
                                              kNoDeclaredInputs, kPolicyUnusable,        kMissingDataEvidence,
                                              kNewUpstreamData,  kRelationMissing,       kRelationUnverified};
constexpr std::string_view kReuseReasons[] = {kUnchanged, kEarlyCutoff, kWithinLagTolerance, kWaitingForAllParents};

}  // namespace

std::span<const std::string_view> build_reason_codes() { return kBuildReasons; }
std::span<const std::string_view> reuse_reason_codes() { return kReuseReasons; }

}  // namespace ods::planner
