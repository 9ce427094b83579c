#include "pr_report.h"

#include <iostream>
#include <nlohmann/json.hpp>

#include "command_summary.h"
#include "ods/planner/json_io.h"
#include "plan_markdown.h"

namespace ods::cli {

using nlohmann::json;

namespace {

bool is_test(const std::string& id) { return id.starts_with("test.") || id.starts_with("unit_test."); }

std::vector<std::string> split(const std::string& id) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t dot = id.find('.'); dot != std::string::npos; dot = id.find('.', start)) {
    parts.push_back(id.substr(start, dot - start));
    start = dot + 1;
  }
  parts.push_back(id.substr(start));
  return parts;
}

std::string status_of(const PrOutcome& o, const std::string& id) {
  auto it = o.results.find(id);
  return it == o.results.end() ? "" : it->second.status;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : " ") + i;
  return out;
}

CommandSummary summary_of(const CommandContext& ctx, const PrOutcome& o, const PrCounts& c) {
  CommandSummary s;
  s.command = "pr";
  s.scope = o.prod_scope;
  s.state = describe_store(ctx.state_url);
  s.built = c.built;
  s.reused = static_cast<int>(o.selection.from_production.size());
  s.failed = c.failed;
  s.skipped = c.skipped;
  s.time_saved_seconds = o.time_saved_seconds;
  s.selection = joined(o.dbt_selection);
  s.outcome = o.dbt_selection.empty() ? "nothing to build" : (o.failed ? "failure" : "success");
  return s;
}

json pr_member(const PrOutcome& o, const PrCounts& c) {
  json built = json::array(), from_production = json::array(), tests = json::array();
  for (const auto& e : o.selection.plan.entries) {
    if (e.action != planner::Action::build) continue;
    json reasons = json::array();
    for (const auto& r : e.reasons) reasons.push_back({{"code", r.code}, {"message", r.message}});
    built.push_back({{"id", e.id},
                     {"name", e.name},
                     {"resource_type", e.resource_type},
                     {"reasons", reasons},
                     {"status", status_of(o, e.id)}});
  }
  for (const auto& e : o.selection.plan.entries) {
    if (e.action != planner::Action::reuse || e.reasons.empty() || e.reasons.front().code != ods::run::kFromProduction)
      continue;
    from_production.push_back(
        {{"id", e.id}, {"name", e.name}, {"resource_type", e.resource_type}, {"how", o.upstream}});
  }
  for (const auto& [id, r] : o.results)
    if (is_test(id))
      tests.push_back({{"id", id}, {"name", test_name(id)}, {"status", r.status}, {"message", r.message}});
  return {{"production_scope", o.prod_scope},
          {"pr_target", o.pr_target},
          {"upstream", o.upstream},
          {"built", built},
          {std::string(ods::run::kFromProduction), from_production},
          {"tests", tests},
          {"counts",
           {{"built", c.built},
            {"failed", c.failed},
            {"skipped", c.skipped},
            {std::string(ods::run::kFromProduction), from_production.size()},
            {std::string(ods::run::kNotRead),
             o.selection.plan.count(planner::Action::reuse) - static_cast<int>(from_production.size())},
            {"tests_passed", c.tests_passed},
            {"tests_failed", c.tests_failed},
            {"tests_warned", c.tests_warned},
            {"tests_skipped", c.tests_skipped}}},
          {"recorded", false}};
}

MarkdownInput markdown_of(const CommandContext& ctx, const PrOutcome& o, const PrCounts& c) {
  planner::ExecutionPlan shown = o.selection.plan;
  std::erase_if(shown.entries, [](const planner::PlanEntry& e) {
    return e.action == planner::Action::reuse &&
           (e.reasons.empty() || e.reasons.front().code != ods::run::kFromProduction);
  });
  MarkdownInput in = markdown_input(shown, summary_of(ctx, o, c));
  in.acted_label = "Built in target " + o.pr_target;
  in.folded_label = std::string("Read from production (") + (o.upstream == "clone" ? "cloned" : "deferred") + ")";
  for (auto& row : in.folded) row.code = o.upstream == "clone" ? "cloned" : "deferred";
  for (const auto& e : o.selection.plan.entries) {
    const std::string status = status_of(o, e.id);
    if (e.action == planner::Action::build && (status == "error" || status == "fail" || status == "skipped"))
      in.failed_nodes.push_back(e.name + " (" + status + ")");
  }
  in.failed_label = "Failed or skipped";
  in.checks_run_label = "Tests";
  in.checks_run_code_header = "Status";
  for (const auto& [id, r] : o.results) {
    if (!is_test(id)) continue;
    in.checks_run.push_back({test_name(id), id.starts_with("unit_test.") ? "unit test" : "test", r.status, r.message});
    if (r.status == "fail" || r.status == "error") in.failed_checks.push_back(test_name(id) + " (" + r.status + ")");
  }
  in.dbt_errors = o.dbt_errors;
  return in;
}

}  // namespace

std::string test_name(const std::string& unique_id) {
  const auto parts = split(unique_id);
  if (parts.size() >= 3 && parts[0] == "test") return parts[2];
  if (parts.size() >= 4 && parts[0] == "unit_test") return parts[2] + "::" + parts[3];
  return unique_id;
}

PrCounts count_pr(const PrOutcome& o) {
  PrCounts c;
  for (const auto& e : o.selection.plan.entries) {
    if (e.action != planner::Action::build) continue;
    const std::string status = status_of(o, e.id);
    if (status == "success") ++c.built;
    if (status == "error" || status == "fail") ++c.failed;
    if (status == "skipped") ++c.skipped;
  }
  for (const auto& [id, r] : o.results) {
    if (!is_test(id)) continue;
    if (r.status == "pass")
      ++c.tests_passed;
    else if (r.status == "fail" || r.status == "error")
      ++c.tests_failed;
    else if (r.status == "warn")
      ++c.tests_warned;
    else
      ++c.tests_skipped;
  }
  return c;
}

bool deliver_pr_report(const CommandContext& ctx, const PrOutcome& o) {
  const PrCounts c = count_pr(o);
  if (ctx.format == "text") {
    *ctx.out << "ods: PR environment in target " << o.pr_target << ": built " << c.built << ", failed " << c.failed
             << ", skipped " << c.skipped << "; " << o.selection.from_production.size() << " read from production ("
             << (o.upstream == "clone" ? "cloned" : "deferred") << "); tests: " << c.tests_passed << " passed, "
             << c.tests_failed << " failed"
             << (c.tests_warned > 0 ? ", " + std::to_string(c.tests_warned) + " warned" : "")
             << (c.tests_skipped > 0 ? ", " + std::to_string(c.tests_skipped) + " skipped" : "")
             << "; nothing recorded in " << o.prod_scope << "\n";
  }
  if (!report_wanted(ctx)) return true;
  auto document = [&] {
    return document_of_members({{"plan", planner::to_json(o.selection.plan, true)},
                                {"pr", pr_member(o, c).dump(2)},
                                {"summary", to_json(summary_of(ctx, o, c)).dump(2)}});
  };
  return deliver_report(ctx, document, [&] { return markdown_of(ctx, o, c); });
}

}  // namespace ods::cli
