#include "plan_format.h"

#include <algorithm>
#include <ostream>

#include "ods/planner/json_io.h"
#include "source_evidence_line.h"

namespace ods::cli {

using planner::Action;

namespace {

std::string pad(const std::string& s, std::size_t w) {
  return s.size() >= w ? s + " " : s + std::string(w - s.size() + 1, ' ');
}

std::size_t width_of(const auto& plan, auto field) {
  std::size_t w = 4;
  for (const auto& e : plan.entries) w = std::max(w, field(e).size());
  return std::min<std::size_t>(w, 40);
}

// One line per entry of `plan` with `action`: type, name, the deciding reason and the others.
void print_entries(std::ostream& out, const auto& plan, auto action, std::size_t name_w, std::size_t code_w) {
  for (const auto& e : plan.entries) {
    if (e.action != action) continue;
    const auto& r = e.reasons.front();
    out << "  " << pad(e.resource_type, 8) << pad(e.name, name_w) << pad(r.code, code_w) << r.message;
    for (std::size_t i = 1; i < e.reasons.size(); ++i) out << "; " << e.reasons[i].message;
    out << "\n";
  }
  out << "\n";
}

std::size_t name_width(const auto& plan) {
  return width_of(plan, [](const auto& e) -> const std::string& { return e.name; });
}
std::size_t code_width(const auto& plan) {
  return width_of(plan, [](const auto& e) -> const std::string& { return e.reasons.front().code; });
}

void print_warnings(std::ostream& out, const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) out << "warning: " << w << "\n";
  if (!warnings.empty()) out << "\n";
}

void print_group(std::ostream& out, const planner::ExecutionPlan& plan, Action action, std::size_t name_w,
                 std::size_t code_w) {
  int n = plan.count(action);
  if (n == 0) return;
  out << (action == Action::build ? "BUILD" : "REUSE") << " (" << n << ")\n";
  print_entries(out, plan, action, name_w, code_w);
}

}  // namespace

void print_plan_table(std::ostream& out, const planner::ExecutionPlan& plan, const std::string& notice) {
  const auto name_w = name_width(plan), code_w = code_width(plan);
  out << "Plan for " << plan.scope << ": " << plan.entries.size() << " nodes\n\n";
  if (!notice.empty()) out << notice << "\n\n";
  print_group(out, plan, Action::build, name_w, code_w);
  print_group(out, plan, Action::reuse, name_w, code_w);
  print_warnings(out, plan.warnings);
  if (auto sources = source_evidence_line(plan); !sources.empty()) out << sources << "\n";
  out << plan.count(Action::build) << " to build, " << plan.count(Action::reuse) << " to reuse.\n";
  if (!plan.select.empty()) out << "dbt build --select " << plan.select << "\n";
}

Result<void> print_plan_table_json(std::ostream& out, std::string_view plan_json) {
  auto plan = planner::plan_from_json(plan_json);
  if (!plan) return fail("corrupt", "the controller's plan: " + plan.error().message);
  print_plan_table(out, *plan);
  return {};
}

void print_check_table(std::ostream& out, const planner::CheckPlan& plan) {
  using planner::CheckAction;
  const auto name_w = name_width(plan), code_w = code_width(plan);
  out << "Checks for " << plan.scope << ": " << plan.entries.size() << " nodes and sources with checks\n\n";
  for (CheckAction action : {CheckAction::run, CheckAction::skip}) {
    if (plan.count(action) == 0) continue;
    out << (action == CheckAction::run ? "RUN" : "SKIP") << " (" << plan.count(action) << ")\n";
    print_entries(out, plan, action, name_w, code_w);
  }
  print_warnings(out, plan.warnings);
  out << plan.count(CheckAction::run) << " to test, " << plan.count(CheckAction::skip) << " skipped";
  if (plan.without_checks > 0) out << "; " << plan.without_checks << " nodes have no checks (nothing to run)";
  out << ".\n";
}

void print_entry_detail(std::ostream& out, const planner::PlanEntry& e) {
  out << e.id << " (" << e.resource_type << ")\n";
  out << "  action: " << planner::to_string(e.action) << "\n";
  out << "  reasons:\n";
  for (const auto& r : e.reasons) out << "    " << r.code << ": " << r.message << "\n";
  out << "  evidence:\n";
  for (const auto& ev : e.evidence) {
    out << "    " << ev.kind << " " << ev.subject << " = " << ev.value << " [" << planner::to_string(ev.exactness)
        << "; " << ev.origin << "]\n";
  }
}

}  // namespace ods::cli
