// One `dbt ls` call resolving a selection (selection.h); the refusals: selection_refusals.cc.
#include "ods/dbt/selection.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <unordered_set>

namespace ods::dbt {

std::vector<std::string> list_arguments(const SelectionFlags& flags, const std::vector<std::string>& extra) {
  std::vector<std::string> args{"ls", "--no-write-json", "--output", "json", "--output-keys", "unique_id"};
  if (!flags.select.empty()) args.insert(args.end(), {"--select", flags.select});
  if (!flags.exclude.empty()) args.insert(args.end(), {"--exclude", flags.exclude});
  if (!flags.selector.empty()) args.insert(args.end(), {"--selector", flags.selector});
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::vector<std::string> listed_ids(const std::vector<std::string>& events) {
  std::vector<std::string> ids;
  for (const auto& line : events) {
    if (line.find("unique_id") == std::string::npos) continue;
    const auto event = nlohmann::json::parse(line, nullptr, false);
    if (!event.is_object() || !event.contains("data") || !event["data"].is_object()) continue;
    const auto& data = event["data"];
    if (!data.contains("msg") || !data["msg"].is_string()) continue;
    const auto printed = nlohmann::json::parse(data["msg"].get_ref<const std::string&>(), nullptr, false);
    if (printed.is_object() && printed.contains("unique_id") && printed["unique_id"].is_string())
      ids.push_back(printed["unique_id"].get<std::string>());
  }
  return ids;
}

namespace {

std::string described(const SelectionFlags& flags) {
  std::string text;
  auto add = [&](const char* flag, const std::string& value) {
    if (!value.empty()) text += std::string(text.empty() ? "" : " ") + flag + " '" + value + "'";
  };
  add("--select", flags.select);
  add("--exclude", flags.exclude);
  add("--selector", flags.selector);
  return text;
}

// dbt's own words for the criteria that matched nothing ("The selection criterion 'x' does not
// match any enabled nodes"), joined.
std::string unmatched_criteria(const std::vector<std::string>& events) {
  std::string said;
  for (const auto& line : events) {
    if (line.find("NoNodesForSelectionCriteria") == std::string::npos) continue;
    const auto event = nlohmann::json::parse(line, nullptr, false);
    if (!event.is_object() || !event.contains("info") || !event["info"].is_object()) continue;
    const auto& info = event["info"];
    if (info.value("name", "") == "NoNodesForSelectionCriteria" && info.contains("msg") && info["msg"].is_string())
      said += (said.empty() ? "" : "; ") + info["msg"].get<std::string>();
  }
  return said;
}

}  // namespace

Result<std::vector<std::string>> list_selected(DbtCommand& dbt, const SelectionFlags& flags,
                                               const std::vector<std::string>& extra) {
  auto listed = dbt.run(list_arguments(flags, extra));
  if (!listed) return std::unexpected(listed.error());
  if (listed->interrupted) return fail("interrupted", "Interrupted while dbt resolved the selection; nothing ran.");
  if (listed->exit_code != 0) {
    std::string why = listed->error_text;
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    return fail("usage", "dbt could not resolve the selection " + described(flags) + " (dbt ls exit code " +
                             std::to_string(listed->exit_code) + ")" + (why.empty() ? "." : ": " + why));
  }
  auto ids = listed_ids(listed->events);
  if (ids.empty()) {
    const std::string said = unmatched_criteria(listed->events);
    return fail("usage", "The selection " + described(flags) + " selects nothing in the project (dbt ls lists no node" +
                             (said.empty() ? "" : ": " + said) + ").");
  }
  return ids;
}

ResolvedSelection selection_among(const planner::ProjectInputs& inputs, const std::vector<std::string>& ids) {
  const std::unordered_set<std::string> listed(ids.begin(), ids.end());
  ResolvedSelection out;
  for (const auto& node : inputs.nodes) {
    if (!listed.contains(node.id)) continue;
    out.nodes.push_back(node.id);
    out.checks.push_back(node.id);
  }
  for (const auto& source : inputs.sources)
    if (listed.contains(source.id)) out.checks.push_back(source.id);
  std::sort(out.nodes.begin(), out.nodes.end());
  std::sort(out.checks.begin(), out.checks.end());
  return out;
}

}  // namespace ods::dbt
