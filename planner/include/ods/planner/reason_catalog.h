#pragma once
// The reason codes a plan entry can start with, per action (docs/reason-codes.md): what the
// operator's ods_nodes_total{action,reason} can count, so its series exist (at 0) before the
// first node of a project is counted.
#include <span>
#include <string_view>

namespace ods::planner {

// First reasons of BUILD entries.
std::span<const std::string_view> build_reason_codes();
// First reasons of REUSE entries (formatting_only only ever follows unchanged).
std::span<const std::string_view> reuse_reason_codes();

}  // namespace ods::planner
