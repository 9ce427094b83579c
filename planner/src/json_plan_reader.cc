// Plans from JSON: the `ods state plan --format json` document (json_plan.cc writes it) read
// back, so a runner pod that receives the controller's plan prints it as `ods state run` does.
#include "json_values.h"
#include "ods/planner/json_io.h"

namespace ods::planner {

namespace {

using namespace internal;

Action action_field(const nlohmann::json& j, const std::string& path) {
  const std::string word = string_at(j, path, "action");
  if (word == to_string(Action::build)) return Action::build;
  if (word == to_string(Action::reuse)) return Action::reuse;
  throw FieldError(member_path(path, "action"), "unknown action '" + word + "'");
}

PlanEntry entry_from_json(const nlohmann::json& j, const std::string& path) {
  PlanEntry e;
  e.id = string_at(j, path, "id");
  e.name = string_at(j, path, "name");
  e.resource_type = string_at(j, path, "resource_type");
  e.action = action_field(j, path);
  e.depth = member_as(j, path, "depth", Kind::integer)->get<int>();
  const auto& reasons = array_at(j, path, "reasons");
  if (reasons.empty()) throw FieldError(member_path(path, "reasons"), "empty (every decision says why)");
  for (std::size_t i = 0; i < reasons.size(); ++i) {
    const std::string at = path + ".reasons[" + std::to_string(i) + "]";
    e.reasons.push_back(Reason{string_at(reasons[i], at, "code"), string_at(reasons[i], at, "message")});
  }
  const auto& evidence = array_at(j, path, "evidence");
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
    plan.scope = string_at(doc, "plan", "scope");
    plan.select = string_at(doc, "plan", "select");
    const auto& entries = array_at(doc, "plan", "entries");
    plan.entries.reserve(entries.size());
    for (std::size_t i = 0; i < entries.size(); ++i)
      plan.entries.push_back(entry_from_json(entries[i], "plan.entries[" + std::to_string(i) + "]"));
    const auto& warnings = array_at(doc, "plan", "warnings");
    for (std::size_t i = 0; i < warnings.size(); ++i) {
      plan.warnings.push_back(value_as(warnings[i], element_path("plan.warnings", i), Kind::string).get<std::string>());
    }
    return plan;
  } catch (const FieldError& e) {
    return fail("corrupt", e.what());
  }
}

}  // namespace ods::planner
