#include "plan_markdown.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "source_evidence_line.h"
#include "wording.h"

namespace ods::cli {

namespace {

// `text` cut to at most `max_bytes` bytes on a UTF-8 character boundary; `cut` says whether it was.
std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes, bool& cut) {
  cut = text.size() > max_bytes;
  if (!cut) return text;
  std::size_t end = max_bytes;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

std::string duration(double seconds) {
  char buf[64];
  if (seconds < 60) {
    std::snprintf(buf, sizeof buf, "%.1f s", seconds);
  } else if (seconds < 3600) {
    const long s = std::lround(seconds);
    std::snprintf(buf, sizeof buf, "%ld min %02ld s", s / 60, s % 60);
  } else {
    const long m = std::lround(seconds / 60);
    std::snprintf(buf, sizeof buf, "%ld h %02ld min", m / 60, m % 60);
  }
  return buf;
}

// A fenced code block holding `text` as is: the fence is longer than any run of backticks in it.
std::string code_block(std::string_view text, std::string_view info) {
  std::size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(std::max<std::size_t>(3, longest + 1), '`');
  std::string out = fence + std::string(info) + "\n" + std::string(text);
  if (!text.empty() && text.back() != '\n') out += "\n";
  return out + fence + "\n\n";
}

std::string quoted(std::string_view text, std::size_t max_bytes, std::string_view info) {
  bool cut = false;
  std::string_view shown = utf8_prefix(text, max_bytes, cut);
  std::string out = code_block(shown, info);
  if (cut) out += "_(cut at " + std::to_string(shown.size()) + " of " + std::to_string(text.size()) + " bytes)_\n\n";
  return out;
}

std::string title(const CommandSummary& s) {
  std::string what, command = "ods state " + s.command + (s.dry_run ? " --dry-run" : "");
  if (s.command == "test") {
    what = s.dry_run ? "ODS check plan" : "ODS checks";
  } else if (s.command == "pr") {
    what = "ODS PR environment";
  } else if (s.command == "run" && !s.dry_run) {
    what = "ODS run";
  } else {
    what = "ODS plan";
  }
  std::string line = "## " + what + " for " + escape_markdown(s.scope) + " (`" + command + "`)";
  if (!s.outcome.empty()) line += ": " + escape_markdown(s.outcome);
  return line + "\n\n";
}

// The one line a reader needs when there is nothing to do; "" otherwise.
std::string nothing_to_do(const MarkdownInput& in) {
  const auto& s = in.summary;
  if (!in.acted.empty() || s.failed > 0 || s.built > 0) return "";
  const std::size_t total = in.folded.size();
  if (s.command == "test") {
    if (total == 0) return "**Nothing to test: no selected node or source has checks.**\n\n";
    return "**Nothing to test: all " + count_of(total, "node") + " and sources with checks skipped.**\n\n";
  }
  if (s.command == "pr") return "**Nothing to build: no node's code differs from production's recorded state.**\n\n";
  if (total == 0) return "**Nothing to build: the plan has no nodes.**\n\n";
  return "**Nothing to build: all " + count_of(total, "node") + " reused.**\n\n";
}

std::string totals(const CommandSummary& s) {
  const bool planned = (s.command != "run" && s.command != "pr") || s.dry_run;
  std::string built_label = s.command == "test" ? (s.dry_run ? "To test" : "Passed") : (planned ? "To build" : "Built");
  std::string reused_label =
      s.command == "test" ? "Not re-run (passed before)" : (s.command == "pr" ? "Read from production" : "Reused");
  return "| " + built_label + " | " + reused_label + " | Failed | Skipped | Time saved |\n" +
         "|---:|---:|---:|---:|---:|\n| " + std::to_string(s.built) + " | " + std::to_string(s.reused) + " | " +
         std::to_string(s.failed) + " | " + std::to_string(s.skipped) + " | " + duration(s.time_saved_seconds) +
         " |\n\n";
}

// `code_header`: the heading of the column of each row's code ("Reason", "Status"); "": no such column.
std::string table(const std::vector<const MarkdownRow*>& rows, const MarkdownLimits& limits,
                  const std::string& code_header) {
  const bool with_reason = !code_header.empty();
  std::string out = with_reason ? "| Node | Type | " + code_header + " | Why |\n|---|---|---|---|\n"
                                : std::string("| Node | Type | Why |\n|---|---|---|\n");
  const std::size_t shown = std::min(rows.size(), limits.rows_per_group);
  for (std::size_t i = 0; i < shown; ++i) {
    const MarkdownRow& r = *rows[i];
    out += "| " + escape_markdown(r.name, limits.max_cell_bytes) + " | " + escape_markdown(r.resource_type, 40) + " | ";
    if (with_reason) out += escape_markdown(r.code, 80) + " | ";
    out += escape_markdown(r.sentence, limits.max_cell_bytes) + " |\n";
  }
  if (rows.size() > shown) out += "\n… and " + std::to_string(rows.size() - shown) + " more.\n";
  return out + "\n";
}

// One section per reason code of the acted-on rows, in order of first appearance.
std::vector<std::string> acted_sections(const MarkdownInput& in, const MarkdownLimits& limits) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const MarkdownRow*>> groups;
  for (const auto& r : in.acted) {
    auto [it, added] = groups.try_emplace(r.code);
    if (added) order.push_back(r.code);
    it->second.push_back(&r);
  }
  std::vector<std::string> out;
  if (in.acted.empty()) return out;
  out.push_back("### " + escape_markdown(in.acted_label) + " (" + std::to_string(in.acted.size()) + ")\n\n");
  for (const auto& code : order) {
    const auto& rows = groups[code];
    out.back() += "#### " + escape_markdown(code, 80) + " (" + std::to_string(rows.size()) + ")\n\n";
    out.back() += table(rows, limits, "");
    out.emplace_back();
  }
  out.pop_back();
  return out;
}

std::string folded_section(const MarkdownInput& in, const MarkdownLimits& limits) {
  if (in.folded.empty()) return "";
  std::vector<const MarkdownRow*> rows;
  rows.reserve(in.folded.size());
  for (const auto& r : in.folded) rows.push_back(&r);
  return "<details><summary>" + escape_markdown(in.folded_label) + " (" + std::to_string(rows.size()) +
         ")</summary>\n\n" + table(rows, limits, "Reason") + "</details>\n\n";
}

std::string list_section(const std::string& heading, const std::vector<std::string>& items,
                         const MarkdownLimits& limits) {
  if (items.empty()) return "";
  std::string out = "### " + heading + " (" + std::to_string(items.size()) + ")\n\n";
  const std::size_t shown = std::min(items.size(), limits.max_list_items);
  for (std::size_t i = 0; i < shown; ++i) out += "- " + escape_markdown(items[i], limits.max_cell_bytes) + "\n";
  if (items.size() > shown) out += "- … and " + std::to_string(items.size() - shown) + " more.\n";
  return out + "\n";
}

// A run's checks: those run again beside the build, then those not re-run, with why.
std::string checks_section(const MarkdownInput& in, const MarkdownLimits& limits) {
  if (in.checks_run.empty() && in.checks_not_rerun.empty()) return "";
  auto rows_of = [](const std::vector<MarkdownRow>& rows) {
    std::vector<const MarkdownRow*> out;
    for (const auto& r : rows) out.push_back(&r);
    return out;
  };
  std::string out;
  if (!in.checks_run.empty())
    out += "### " + escape_markdown(in.checks_run_label) + " (" + std::to_string(in.checks_run.size()) + ")\n\n" +
           table(rows_of(in.checks_run), limits, in.checks_run_code_header);
  if (!in.checks_not_rerun.empty())
    out += "<details><summary>Checks not re-run (" + std::to_string(in.checks_not_rerun.size()) + ")</summary>\n\n" +
           table(rows_of(in.checks_not_rerun), limits, "Reason") + "</details>\n\n";
  return out;
}

std::string selection_section(const CommandSummary& s, const MarkdownLimits& limits) {
  if (s.selection.empty()) return "";
  const std::string verb = s.command == "test" ? "dbt test --select " : "dbt build --select ";
  return "### dbt selection\n\n" + quoted(verb + s.selection, limits.max_quoted_bytes, "text");
}

std::string footer(const CommandSummary& s) {
  std::string store = escape_markdown(s.state.kind);
  if (!s.state.location.empty()) store += " " + escape_markdown(s.state.location);
  std::string line = "Scope " + escape_markdown(s.scope) + " · state store: " + store;
  if (s.dry_run || s.command == "plan") line += " · nothing was built or recorded";
  if (s.command == "pr") line += " · production's state read only: nothing recorded";
  return "---\n" + line + "\n";
}

}  // namespace

std::string escape_markdown(std::string_view text, std::size_t max_bytes) {
  bool cut = false;
  std::string_view shown = utf8_prefix(text, max_bytes, cut);
  std::string out;
  out.reserve(shown.size() + 8);
  for (char c : shown) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '\n':
      case '\r':
      case '\t':
        out += ' ';
        break;
      // Inline markup (emphasis, code, links, strikethrough, math), table cells, and what
      // starts a block when it comes first (headings, lists, quotes).
      case '\\':
      case '`':
      case '*':
      case '_':
      case '[':
      case ']':
      case '|':
      case '~':
      case '$':
        out += '\\';
        out += c;
        break;
      case '#':
      case '+':
      case '-':
      case '=':
        if (out.empty()) out += '\\';
        out += c;
        break;
      default:
        out += c;
    }
  }
  if (cut) out += "…";
  return out;
}

namespace {

// `plan`'s entries as rows (the first reason's code, every reason's sentence) into `in`: those
// whose action is `acting` in the acted table, the others folded; and its warnings.
template <class Plan, class Action>
void add_rows(MarkdownInput& in, const Plan& plan, Action acting) {
  for (const auto& e : plan.entries) {
    MarkdownRow row{e.name, e.resource_type, e.reasons.empty() ? "" : e.reasons.front().code, ""};
    for (const auto& r : e.reasons) row.sentence += (row.sentence.empty() ? "" : "; ") + r.message;
    (e.action == acting ? in.acted : in.folded).push_back(std::move(row));
  }
  in.warnings = plan.warnings;
}

}  // namespace

MarkdownInput markdown_input(const planner::ExecutionPlan& plan, CommandSummary summary) {
  MarkdownInput in;
  in.summary = std::move(summary);
  add_rows(in, plan, planner::Action::build);
  in.source_evidence = source_evidence_line(plan);
  return in;
}

void add_check_rows(MarkdownInput& in, const planner::CheckPlan& checks) {
  MarkdownInput rows;
  add_rows(rows, checks, planner::CheckAction::run);
  in.checks_run = std::move(rows.acted);
  in.checks_not_rerun = std::move(rows.folded);
}

MarkdownInput markdown_input(const planner::CheckPlan& plan, CommandSummary summary) {
  MarkdownInput in;
  in.summary = std::move(summary);
  in.acted_label = "Test";
  in.folded_label = "Skip";
  add_rows(in, plan, planner::CheckAction::run);
  return in;
}

std::string render_markdown(const MarkdownInput& in, const MarkdownLimits& limits) {
  const std::string head = title(in.summary) + nothing_to_do(in) + totals(in.summary) +
                           (in.source_evidence.empty() ? "" : escape_markdown(in.source_evidence, 200) + "\n\n");
  // What a reader must see is small (each part capped) and always kept; the node tables
  // fill the rest of the budget, the BUILD groups first.
  const std::string kept =
      list_section(in.failed_label, in.failed_nodes, limits) + list_section("Failed checks", in.failed_checks, limits) +
      (in.dbt_errors.empty() ? std::string()
                             : "### dbt errors\n\n" + quoted(in.dbt_errors, limits.max_quoted_bytes, "text")) +
      list_section("Warnings", in.warnings, limits);
  const std::string selection = selection_section(in.summary, limits), end = footer(in.summary);
  constexpr std::size_t kCutNoteBytes = 300;
  const std::size_t fixed = head.size() + kept.size() + selection.size() + end.size() + kCutNoteBytes;
  const std::size_t budget = limits.max_bytes - std::min(limits.max_bytes, fixed);
  std::string tables;
  std::size_t left_out = 0;
  for (const auto& group : acted_sections(in, limits)) {
    if (left_out == 0 && tables.size() + group.size() <= budget)
      tables += group;
    else
      ++left_out;
  }
  std::string folded = folded_section(in, limits) + checks_section(in, limits);
  if (!folded.empty() && (left_out > 0 || tables.size() + folded.size() > budget)) {
    folded.clear();
    ++left_out;
  }
  if (left_out > 0) {
    tables += "_This summary was cut here to stay under the size a CI summary or comment may have: " +
              count_of(left_out, "table") +
              " left out. The JSON document (`--format json`, `--json-file`) has "
              "every node._\n\n";
  }
  return head + tables + kept + folded + selection + end;
}

}  // namespace ods::cli
