#include "command_summary.h"

#include <fstream>
#include <iostream>
#include <string_view>

#include "flag_names.h"
#include "ods/planner/json_io.h"
#include "ods/run/build_seconds.h"
#include "ods/state/store_url.h"
#include "plan_markdown.h"

namespace ods::cli {

using nlohmann::json;

namespace {

bool write_file(const CommandContext& ctx, const std::filesystem::path& path, const std::string& flag,
                const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (out) return true;
  *ctx.err << "ods: cannot write " << flag << " " << path.string() << "\n";
  return false;
}

}  // namespace

StoreDescription describe_store(const std::string& url) {
  const state::StoreUrl parsed = state::parse_store_url(url);
  switch (parsed.kind) {
    case state::StoreUrl::Kind::sqlite:
      return {"sqlite", parsed.path};
    case state::StoreUrl::Kind::memory:
      return {"memory", ""};
    case state::StoreUrl::Kind::postgresql: {
      const auto server = state::parse_postgres_conninfo(url);
      return {"postgresql", server ? server->location() : ""};
    }
    case state::StoreUrl::Kind::unknown:
      break;
  }
  return {"unknown", ""};
}

json to_json(const CommandSummary& s) {
  return {{"command", s.command},
          {"dry_run", s.dry_run},
          {"scope", s.scope},
          {"state", {{"kind", s.state.kind}, {"location", s.state.location}}},
          {"built", s.built},
          {"reused", s.reused},
          {"failed", s.failed},
          {"skipped", s.skipped},
          {"time_saved_seconds", s.time_saved_seconds},
          {"selection", s.selection},
          {"outcome", s.outcome}};
}

std::vector<FlagSpec> summary_flags() {
  return {{kFlagSummary, true, "also write the Markdown summary to FILE (replacing it), e.g. a CI step summary"},
          {kFlagJsonFile, true, "also write the --format json document to FILE (replacing it)"}};
}

double time_saved_seconds(const CommandContext& ctx, const planner::ExecutionPlan& plan) {
  if (plan.count(planner::Action::reuse) == 0) return 0;
  auto store = open_store(ctx, false, /*read_only=*/true);
  return store ? run::time_saved_seconds(**store, plan.scope, plan) : 0;
}

CommandSummary planned_summary(const CommandContext& ctx, const planner::ExecutionPlan& plan, std::string command,
                               bool dry_run, double time_saved) {
  CommandSummary s;
  s.command = std::move(command);
  s.dry_run = dry_run;
  s.scope = plan.scope;
  s.state = describe_store(ctx.state_url);
  s.built = plan.count(planner::Action::build);
  s.reused = plan.count(planner::Action::reuse);
  s.time_saved_seconds = time_saved;
  s.selection = plan.select;
  return s;
}

bool report_wanted(const CommandContext& ctx) {
  return ctx.format != "text" || !ctx.summary_file.empty() || !ctx.json_file.empty();
}

std::string plan_document(const planner::ExecutionPlan& plan, const CommandSummary& summary) {
  std::string doc = planner::to_json(plan, true);
  // The planner writes its summary as the top-level member `  "summary": {…}` (two spaces:
  // a string value cannot hold a raw newline, so this is the member, not text in a name).
  constexpr std::string_view kMember = "\n  \"summary\": {";
  const auto begin = doc.rfind(kMember);
  const auto end = begin == std::string::npos ? std::string::npos : doc.find("\n  }", begin + kMember.size());
  json merged = to_json(summary);
  if (begin == std::string::npos || end == std::string::npos) {  // not the planner's layout: go through a DOM
    json dom = json::parse(doc);
    merged.update(dom["summary"]);
    dom["summary"] = merged;
    return dom.dump(2);
  }
  merged.update(json::parse(doc.substr(begin + kMember.size() - 1, end + 4 - (begin + kMember.size() - 1))));
  std::string text = merged.dump(2), indented;
  for (char c : text) {
    indented += c;
    if (c == '\n') indented += "  ";
  }
  doc.replace(begin, end + 4 - begin, "\n  \"summary\": " + indented);  // in place: a large plan is copied once
  return doc;
}

std::string document_of_members(const std::vector<std::pair<std::string, std::string>>& members) {
  std::string doc = "{";
  for (std::size_t i = 0; i < members.size(); ++i) {
    doc += (i == 0 ? "\n  \"" : ",\n  \"") + members[i].first + "\": ";
    for (char c : members[i].second) {  // one level deeper: a JSON string holds no raw newline
      doc += c;
      if (c == '\n') doc += "  ";
    }
  }
  return doc + (members.empty() ? "}" : "\n}");
}

bool deliver_report(const CommandContext& ctx, const std::function<std::string()>& json_document,
                    const std::function<MarkdownInput()>& markdown) {
  std::string json_text, markdown_text;
  if (ctx.format == "json" || !ctx.json_file.empty()) json_text = json_document();
  if (ctx.format == "markdown" || !ctx.summary_file.empty()) markdown_text = render_markdown(markdown());
  if (ctx.format == "json") *ctx.out << json_text << "\n";
  if (ctx.format == "markdown") *ctx.out << markdown_text;
  ctx.out->flush();
  bool written = true;
  if (!ctx.json_file.empty()) written = write_file(ctx, ctx.json_file, kFlagJsonFile, json_text + "\n") && written;
  if (!ctx.summary_file.empty()) written = write_file(ctx, ctx.summary_file, kFlagSummary, markdown_text) && written;
  return written;
}

}  // namespace ods::cli
