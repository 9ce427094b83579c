#include "project_loader.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <stdexcept>

#include "child_environment.h"
#include "evidence_gathering.h"
#include "hook_digest.h"
#include "ods/base/sha256.h"
#include "ods/dbt/artifacts.h"
#include "ods/dbt/run_results.h"
#include "run_manifest.h"

namespace ods::cli {

namespace fs = std::filesystem;

namespace {

dbt::ArtifactPaths artifact_paths(const CommandContext& ctx, const fs::path& manifest) {
  dbt::ArtifactPaths paths;
  paths.manifest = manifest.empty() ? ctx.target_dir / "manifest.json" : manifest;
  if (fs::exists(ctx.target_dir / "sources.json")) paths.sources = ctx.target_dir / "sources.json";
  return paths;
}

std::map<std::string, int> status_counts(const dbt::RunResults& run) {
  std::map<std::string, int> counts;
  for (const auto& r : run.results) ++counts[r.status];
  return counts;
}

std::string summarise(const std::map<std::string, int>& counts) {
  std::string out;
  for (const auto& [status, n] : counts) out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + status;
  return out.empty() ? "no results" : out;
}

bool reads_vars(const std::map<std::string, std::vector<dbt::LiteralHook>>& hooks) {
  for (const auto& [id, node_hooks] : hooks)
    for (const auto& hook : node_hooks)
      for (const auto& read : hook.reads)
        if (read.kind == planner::ContextRead::Kind::var) return true;
  return false;
}

// Issue #14: the literal hooks' reads become keyed-digest components (hook_digest.h), in
// `inputs` (the provider's copy at load time, so what is recorded is what was planned; the
// evidenced copy after the probe, with `probed_target` the target identity it read).
Result<void> fingerprint_hook_reads(const CommandContext& ctx, const dbt::DbtProject& project,
                                    planner::ProjectInputs& inputs,
                                    const std::map<std::string, std::string>& probed_target = {}) {
  if (project.literal_hooks.empty()) return {};
  if (!ctx.hook_values_visible) {
    // The values dbt's hooks read are in the environment dbt ran in, not necessarily this
    // one: a digest of this one could record a value dbt never saw and reuse wrongly.
    RunContextValues values;
    values.not_visible =
        "ods state record sees not the environment dbt ran in but its own, so it records no digest of "
        "what the hook reads; the next ods state run builds the node once and records it";
    apply_hook_digests(inputs, project.literal_hooks, std::nullopt, values);
    return {};
  }
  auto key = load_digest_key(ctx.env);
  if (!key) return std::unexpected(key.error());
  RunContextValues values;
  const Environment dbt_sees = child_view(ctx.env);  // dbt runs without ODS's secrets
  values.env = &dbt_sees;
  if (*key && reads_vars(project.literal_hooks)) {
    auto vars = read_project_vars(ctx.project_dir / "dbt_project.yml");
    if (!vars) return std::unexpected(vars.error());
    values.vars = std::move(*vars);
  }
  if (!ctx.target.empty()) values.target["name"] = ctx.target;
  if (!project.meta.adapter_type.empty()) values.target["type"] = project.meta.adapter_type;
  for (const auto& [field, value] : probed_target) values.target[field] = value;
  apply_hook_digests(inputs, project.literal_hooks, *key, values);
  return {};
}

// The warehouse's part of which relations a run's builds drop (docs/warehouses.md, PostgreSQL):
// where a rebuild drops the views bound to the old relation, the project's views are marked
// dropped_when_parent_replaced; with $DBT_FULL_REFRESH set every build replaces its relation
// (incremental models and seeds included).
void mark_dropped_views(const CommandContext& ctx, dbt::DbtProject& project) {
  if (!rebuild_drops_bound_views(project.meta.adapter_type)) return;
  const bool full_refresh = !ctx.env.getenv("DBT_FULL_REFRESH").empty();
  for (auto& node : project.inputs.nodes) {
    if (full_refresh) node.build_replaces_relation = true;
    node.dropped_when_parent_replaced =
        std::binary_search(project.view_models.begin(), project.view_models.end(), node.id);
  }
}

}  // namespace

Result<LoadedProject> load_project(const CommandContext& ctx, ProjectUse use,
                                   std::function<void(const std::string& project_name)> before_assembly,
                                   const fs::path& manifest, const fs::path& compiled_nodes) {
  dbt::ArtifactPaths paths = artifact_paths(ctx, manifest);
  if (!compiled_nodes.empty()) paths.compiled_nodes = compiled_nodes;
  std::string run_invocation_id;
  if (manifest.empty()) {
    ODS_TRY(auto left_by_run, last_run_manifest(ctx));
    if (left_by_run) {
      paths.manifest = left_by_run->manifest;
      if (!left_by_run->compiled_nodes.empty()) paths.compiled_nodes = left_by_run->compiled_nodes;
      run_invocation_id = left_by_run->invocation_id;
    }
  }
  if (!fs::exists(paths.manifest)) {
    return fail("missing_artifact",
                paths.manifest.string() + ": not found; run `dbt compile` (or `dbt build`) in the project first");
  }
  dbt::ReadOptions options{ctx.target, std::move(before_assembly)};
  // The vars a compile key may hold (docs/compile-key.md); unreadable: no var-reading node is keyed.
  const fs::path project_file = ctx.project_dir / "dbt_project.yml";
  std::ifstream in(project_file, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (auto vars = read_project_vars(project_file); vars && in) {
    options.project_file_digest = ods::sha256_hex(text);
    auto& keyed = options.project_vars.emplace();
    for (const auto& [name, value] : vars->values) keyed.emplace(name, value);
    for (const auto& [name, why] : vars->unresolvable) keyed.emplace(name, std::nullopt);
  }
  auto project = dbt::read_dbt_project(paths, options);
  if (!project) return std::unexpected(project.error());
  if (auto hooks = fingerprint_hook_reads(ctx, *project, project->inputs); !hooks)
    return std::unexpected(hooks.error());
  mark_dropped_views(ctx, *project);
  LoadedProject loaded;
  loaded.adapter_type = project->meta.adapter_type;
  loaded.run_invocation_id = std::move(run_invocation_id);
  if (use == ProjectUse::plan_only) {
    loaded.inputs = std::move(project->inputs);
    return loaded;
  }
  loaded.inputs = project->inputs;  // the evidence gathered later goes into this copy only
  loaded.dbt_project = std::make_shared<const dbt::DbtProject>(std::move(*project));
  return loaded;
}

Result<void> fingerprint_target_reads(const CommandContext& ctx, LoadedProject& project,
                                      const std::map<std::string, std::string>& probed_target) {
  if (!project.dbt_project || probed_target.empty()) return {};
  return fingerprint_hook_reads(ctx, *project.dbt_project, project.inputs, probed_target);
}

std::size_t count_checks(const LoadedProject& project, const std::vector<std::string>& ids) {
  const auto& tests_of = project.dbt_project->tests_of;
  std::set<std::string> checks;
  for (const auto& id : ids) {
    if (auto it = tests_of.find(id); it != tests_of.end()) checks.insert(it->second.begin(), it->second.end());
  }
  return checks.size();
}

Result<LoadedRun> load_run(const CommandContext& ctx, const LoadedProject& project, RunKind kind,
                           const dbt::ManifestMeta* written_by) {
  if (!project.dbt_project) throw std::logic_error("load_run: the project was loaded with ProjectUse::plan_only");
  const dbt::DbtProject& dbt_project = *project.dbt_project;
  fs::path path = ctx.target_dir / "run_results.json";
  if (!fs::exists(path))
    return fail("missing_artifact", path.string() + ": not found; run `dbt build` before `ods state record`");
  auto run = dbt::read_run_results(path);
  if (!run) return std::unexpected(run.error());
  dbt::ManifestMeta meta = dbt_project.meta;
  if (written_by != nullptr) {
    meta.invocation_id = written_by->invocation_id;
  } else if (!project.run_invocation_id.empty()) {
    meta.invocation_id = project.run_invocation_id;
  }
  auto ok = kind == RunKind::build ? dbt::check_recordable(*run, meta) : dbt::check_test_run(*run, meta);
  if (!ok) {
    Error e = ok.error();
    e.message = "not recorded: " + e.message;
    return std::unexpected(e);
  }
  auto outcome = dbt::to_run_outcome(*run, dbt_project);
  if (!outcome) return std::unexpected(outcome.error());
  outcome->checks_only = kind == RunKind::checks_only;
  const auto statuses = status_counts(*run);
  LoadedRun loaded{*outcome, run->command, summarise(statuses), run->generated_at, {}, {}, statuses, {}};
  for (const auto& r : run->results) {
    if (r.status == "success" && r.execution_seconds > 0) loaded.node_seconds[r.unique_id] = r.execution_seconds;
    const bool check = r.unique_id.starts_with("test.") || r.unique_id.starts_with("unit_test.");
    if (check && (r.status == "fail" || r.status == "error")) loaded.failed_checks.push_back(r.unique_id);
  }
  if (fs::exists(ctx.target_dir / "sources.json") && outcome->source_versions.empty() &&
      !dbt_project.inputs.sources.empty()) {
    loaded.notes.push_back(
        "sources.json was not taken strictly before the run started, so no source versions "
        "were recorded; run `dbt source freshness` before `dbt build` to record them");
  }
  return loaded;
}

}  // namespace ods::cli
