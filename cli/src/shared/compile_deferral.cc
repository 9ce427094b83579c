#include "compile_deferral.h"

#include <algorithm>

#include "dbt_steps.h"
#include "exit_codes.h"
#include "flag_names.h"

namespace ods::cli {

namespace {

bool deferrable(const dbt::CompileFailure& f) { return f.resource_type == "model" || f.resource_type == "snapshot"; }

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace

int compile_project(const CommandContext& ctx, DbtSession& dbt, const std::vector<std::string>& target_path,
                    CompileDeferral deferral, std::vector<DeferredCompile>* deferred,
                    const std::vector<std::string>& select, const std::vector<std::string>& extra) {
  step(ctx, select.empty() ? std::string("compiling the project (dbt compile)")
                           : "compiling " + std::to_string(select.size()) +
                                 (select.size() == 1 ? " node whose compile key changed or can't be keyed"
                                                     : " nodes whose compile key changed or can't be keyed") +
                                 " (dbt compile --select)");
  std::vector<std::string> left_out;
  for (;;) {
    std::vector<std::string> compile{"compile"};
    compile.insert(compile.end(), target_path.begin(), target_path.end());
    if (!select.empty()) {
      compile.emplace_back(kFlagSelect);
      compile.insert(compile.end(), select.begin(), select.end());
    }
    if (!left_out.empty()) {
      compile.emplace_back(kFlagExclude);
      compile.insert(compile.end(), left_out.begin(), left_out.end());
    }
    compile.insert(compile.end(), extra.begin(), extra.end());
    auto compiled = dbt.run(compile);
    if (!compiled) return report(ctx, compiled.error());
    if (compiled->interrupted) return report(ctx, {"interrupted", "interrupted while compiling; nothing recorded"});
    if (compiled->exit_code == 0) return kExitOk;
    if (deferral == CompileDeferral::never || deferred == nullptr || deferred->size() >= kMaxDeferredCompiles)
      return report_dbt_failure(ctx, "dbt compile", *compiled);
    std::vector<dbt::CompileFailure> fresh;
    for (auto& f : dbt::compile_failures(compiled->error_text)) {
      if (!deferrable(f) || std::find(left_out.begin(), left_out.end(), f.name) != left_out.end()) continue;
      fresh.push_back(std::move(f));
    }
    if (fresh.empty()) return report_dbt_failure(ctx, "dbt compile", *compiled);
    for (auto& f : fresh) {
      step(ctx, "dbt compile stopped on " + f.resource_type + " " + f.name + " (" + first_line(f.message) +
                    "); compiling the rest without it, dbt build compiles it in its turn if it reads a relation "
                    "not built yet");
      left_out.push_back(f.name);
      deferred->push_back({std::move(f), compiled->exit_code, compiled->error_text});
    }
  }
}

int settle_deferred_compiles(const CommandContext& ctx, const std::vector<DeferredCompile>& deferred,
                             LoadedProject& project, const GatheredEvidence& evidence) {
  static const std::map<std::string, bool> kNothingChecked;
  const auto& exist = evidence.relations_exist ? *evidence.relations_exist : kNothingChecked;
  for (const auto& d : deferred) {
    std::vector<planner::NodeInput*> nodes;
    std::string upstream;
    for (auto& node : project.inputs.nodes) {
      if (node.name != d.failure.name || node.resource_type != d.failure.resource_type) continue;
      nodes.push_back(&node);
      if (upstream.empty())
        upstream = dbt::missing_upstream_named(project.inputs, node.id, d.failure.message, exist).value_or("");
    }
    if (upstream.empty()) {
      *ctx.err << "ods: " << d.failure.resource_type << " " << d.failure.name
               << " can't be compiled, and its error names no upstream relation that the warehouse lacks and this "
                  "run builds first; failing as dbt compile did\n";
      dbt::DbtCommandResult failed;
      failed.exit_code = d.exit_code;
      failed.error_text = d.error_text;
      return report_dbt_failure(ctx, "dbt compile", failed);
    }
    for (planner::NodeInput* node : nodes) {
      node->compile_needs_upstream =
          "its compile queries " + upstream +
          ", which doesn't exist yet: dbt build compiles it after building it (dbt compile: " +
          first_line(d.failure.message) + ")";
    }
  }
  return kExitOk;
}

}  // namespace ods::cli
