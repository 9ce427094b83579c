#include "plan_format.h"

#include <algorithm>
#include <ostream>

namespace ods::cli {

using planner::Action;

namespace {

std::size_t width_of(const planner::ExecutionPlan& plan, auto field) {
  std::size_t w = 4;
  for (const auto& e : plan.entries) w = std::max(w, field(e).size());
  return std::min<std::size_t>(w, 40);
}

std::string pad(const std::string& s, std::size_t w) { return s.size() >= w ? s + " " : s + std::string(w - s.size() + 1, ' '); }

void print_group(std::ostream& out, const planner::ExecutionPlan& plan, Action action, std::size_t name_w,
                 std::size_t code_w) {
  int n = plan.count(action);
  if (n == 0) return;
  out << (action == Action::build ? "BUILD" : "REUSE") << " (" << n << ")\n";
  for (const auto& e : plan.entries) {
    if (e.action != action) continue;
    const auto& r = e.reasons.front();
    out << "  " << pad(e.resource_type, 8) << pad(e.name, name_w) << pad(r.code, code_w) << r.message;
    for (std::size_t i = 1; i < e.reasons.size(); ++i) out << "; " << e.reasons[i].message;
    out << "\n";
  }
  out << "\n";
}

}  // namespace

void print_plan_table(std::ostream& out, const planner::ExecutionPlan& plan) {
  const auto name_w = width_of(plan, [](const planner::PlanEntry& e) -> const std::string& { return e.name; });
  const auto code_w = width_of(plan, [](const planner::PlanEntry& e) -> const std::string& { return e.reasons.front().code; });
  out << "Plan for " << plan.scope << ": " << plan.entries.size() << " nodes\n\n";
  print_group(out, plan, Action::build, name_w, code_w);
  print_group(out, plan, Action::reuse, name_w, code_w);
  for (const auto& w : plan.warnings) out << "warning: " << w << "\n";
  if (!plan.warnings.empty()) out << "\n";
  out << plan.count(Action::build) << " to build, " << plan.count(Action::reuse) << " to reuse.\n";
  if (!plan.select.empty()) out << "dbt build --select " << plan.select << "\n";
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
