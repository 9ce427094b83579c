#pragma once
// The Markdown summary of `ods state plan`, `ods state run` and `ods state test`, one
// renderer for the three (a CI step summary, a pull/merge request comment): a title with the
// command and scope, one line when nothing is to be done, the totals, the acted-on nodes
// (BUILD; test: RUN) grouped by reason code with each node's sentence, the others (REUSE;
// test: SKIP) folded in <details>, dbt's failures, warnings, dbt's error text quoted as code,
// the dbt selection, the scope and the state store (never a credential: describe_store).
// Large plans stay readable and within the hosts' limits: rows per group are capped with a
// count of the rest, cells and quoted text are cut, and the whole text stays under
// MarkdownLimits::max_bytes (sections that don't fit are left out, and a sentence says so).
// Every name, sentence and warning is escaped: Markdown and HTML in them show as text.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "command_summary.h"
#include "ods/planner/checks.h"
#include "ods/planner/plan.h"

namespace ods::cli {

struct MarkdownRow {
  std::string name;
  std::string resource_type;
  std::string code;      // the deciding reason's code (rows are grouped by it)
  std::string sentence;  // the deciding reason's sentence, then the others', "; "-separated
};

struct MarkdownInput {
  CommandSummary summary;
  std::string acted_label = "Build";      // the heading of `acted` ("Build", "Test")
  std::string folded_label = "Reuse";     // the heading of `folded` ("Reuse", "Skip")
  std::vector<MarkdownRow> acted;         // shown, grouped by code in order of first appearance
  std::vector<MarkdownRow> folded;        // folded away in <details>
  std::vector<std::string> failed_nodes;  // what dbt reported failed (run, test)
  std::string failed_label = "Failed";    // their heading (`ods state pr`: "Failed or skipped")
  // run: the checks run beside the build (acted) and those not re-run (folded), with why;
  // and the checks dbt reported failed (they gate their readers until they pass).
  std::vector<MarkdownRow> checks_run, checks_not_rerun;
  std::string checks_run_label = "Checks run again";  // `ods state pr`: "Tests" (code: dbt's status)
  std::string checks_run_code_header = "Reason";      // `ods state pr`: "Status"
  std::vector<std::string> failed_checks;
  std::vector<std::string> warnings;  // unknown source versions, probe failures, ...
  std::string source_evidence;        // source_evidence_line(plan): under the totals; "" for none
  std::string dbt_errors;             // dbt's error text (quoted as code)
};

struct MarkdownLimits {
  std::size_t rows_per_group = 50;
  std::size_t max_list_items = 50;        // failed nodes, warnings
  std::size_t max_cell_bytes = 400;       // a name or sentence beyond this is cut with "…"
  std::size_t max_quoted_bytes = 20'000;  // dbt's error text, the selection
  // The whole text: under GitHub's 1 MiB step summary and GitLab's 1,000,000-character note,
  // with room for what a CI wrapper adds (a marker, a heading).
  std::size_t max_bytes = 950'000;
};

// The rows of a plan (acted: BUILD, folded: REUSE) and of a check plan (RUN, SKIP), with
// their warnings; `summary` as given.
MarkdownInput markdown_input(const planner::ExecutionPlan& plan, CommandSummary summary);
MarkdownInput markdown_input(const planner::CheckPlan& plan, CommandSummary summary);
// A run's check plan (planner::plan_run_checks) as `in`'s checks_run and checks_not_rerun.
void add_check_rows(MarkdownInput& in, const planner::CheckPlan& checks);

std::string render_markdown(const MarkdownInput& input, const MarkdownLimits& limits = {});

// `text` as inline Markdown that shows literally, in a paragraph or a table cell: Markdown
// punctuation backslash-escaped, `&`, `<`, `>` as entities, line breaks as spaces; cut to
// `max_bytes` (on a UTF-8 boundary, "…" appended).
std::string escape_markdown(std::string_view text, std::size_t max_bytes = 400);

}  // namespace ods::cli
