// Plans from JSON: the `ods state plan --format json` document (json_plan.cc writes it) read
// back, so a runner pod that receives the controller's plan prints it as `ods state run` does.
#include "json_values.h"
#include "ods/planner/json_io.h"

namespace ods::planner {

namespace {

using internal::FieldError;
using internal::get_array;
using internal::get_string;

Action action_field(const nlohmann::json& j, const std::string& path) {
  const std::string word = get_string(j, path, "action");
  if (word == to_string(Action::build)) return Action::build;
  if (word == to_string(Action::reuse)) return Action::reuse;
  throw FieldError(path + ".action: unknown action '" + word + "'");
}

PlanEntry entry_from_json(const nlohmann::json& j, const std::string& path) {
  PlanEntry e;
  e.id = get_string(j, path, "id");
  e.name = get_string(j, path, "name");
  e.resource_type = get_string(j, path, "resource_type");
  e.action = action_field(j, path);
  const auto& depth = internal::field(j, path, "depth");
  if (!depth.is_number_integer()) throw FieldError(path + ".depth: expected an integer");
  e.depth = depth.get<int>();
  const auto& reasons = get_array(j, path, "reasons");
  if (reasons.empty()) throw FieldError(path + ".reasons: empty (every decision says why)");
  for (std::size_t i = 0; i < reasons.size(); ++i) {
    const std::string at = path + ".reasons[" + std::to_string(i) + "]";
    e.reasons.push_back(Reason{get_string(reasons[i], at, "code"), get_string(reasons[i], at, "message")});
  }
  const auto& evidence = get_array(j, path, "evidence");
  for (std::size_t i = 0; i < evidence.size(); ++i)
    e.evidence.push_back(internal::evidence_from_json(evidence[i], path + ".evidence[" + std::to_string(i) + "]"));
  return e;
}

}  // namespace

Result<ExecutionPlan> plan_from_json(std::string_view text) {
  auto doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded()) return fail("corrupt", "plan: not a JSON document");
  try {
    ExecutionPlan plan;
    plan.scope = get_string(doc, "plan", "scope");
    plan.select = get_string(doc, "plan", "select");
    const auto& entries = get_array(doc, "plan", "entries");
    plan.entries.reserve(entries.size());
    for (std::size_t i = 0; i < entries.size(); ++i)
      plan.entries.push_back(entry_from_json(entries[i], "plan.entries[" + std::to_string(i) + "]"));
    const auto& warnings = get_array(doc, "plan", "warnings");
    for (std::size_t i = 0; i < warnings.size(); ++i) {
      if (!warnings[i].is_string()) throw FieldError("plan.warnings[" + std::to_string(i) + "]: expected a string");
      plan.warnings.push_back(warnings[i].get<std::string>());
    }
    return plan;
  } catch (const FieldError& e) {
    return fail("corrupt", e.what());
  }
}

}  // namespace ods::planner
