#pragma once
// The CLI's composition root for dbt: reads the project's artifacts through the dbt
// provider into the planner's inputs, and a finished run into a RunOutcome.
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "context.h"
#include "ods/planner/inputs.h"
#include "ods/planner/planner.h"

namespace ods::dbt {
struct DbtProject;    // ods/dbt/artifacts.h
struct ManifestMeta;  // ods/dbt/artifacts.h
}  // namespace ods::dbt

namespace ods::cli {

struct LoadedProject {
  planner::ProjectInputs inputs;
  std::string adapter_type;  // manifest metadata.adapter_type ("duckdb", "postgres", ...)
  // What the dbt provider read, kept to read a run (the manifest's metadata and which checks
  // read which node); null for ProjectUse::plan_only.
  std::shared_ptr<const dbt::DbtProject> dbt_project;
  // Read from the manifest an `ods state run` read, its build having written none
  // (run_manifest.h): that build's invocation id, the one its run_results.json carries. "" when
  // read from a manifest dbt wrote.
  std::string run_invocation_id;
};

// What the project is loaded for: `plan_only` (plan, explain, diff) keeps only the inputs,
// without the provider's copy that reading a run needs (on a 50k-node project that copy
// costs about a third of the memory and a tenth of the time); load_run refuses such a project.
enum class ProjectUse { plan_only, plan_and_record };

// Reads `manifest` (empty: the manifest the last dbt command left, <target-dir>/manifest.json, or,
// when that was an `ods state run` build that wrote none, the manifest the run read with the
// nodes the build compiled: last_run_manifest, run_manifest.h) and, when present,
// <target-dir>/sources.json; with `compiled_nodes` (the ods dbt driver's compiled nodes,
// dbt::ArtifactPaths::compiled_nodes) those nodes stand in for the manifest's. The target given with --target names the
// scope's environment. Errors name the file and field. `before_assembly`: see dbt::ReadOptions (called with the project
// name once the artifacts are read and accepted, before the inputs are assembled).
[[nodiscard]] Result<LoadedProject> load_project(
    const CommandContext& ctx, ProjectUse use = ProjectUse::plan_and_record,
    std::function<void(const std::string& project_name)> before_assembly = {},
    const std::filesystem::path& manifest = {}, const std::filesystem::path& compiled_nodes = {});

// After the warehouse probe: the hooks of `project.inputs` that still build on every run
// because they read the target's identity (target.schema, target.database; issue 27 item 3)
// are fingerprinted with the values the probe read (`probed_target`,
// GatheredEvidence::target), as load_project fingerprints the rest. Nothing happens for a
// plan_only project or an empty `probed_target` (the probe failed: they keep building).
// Errors: load_project's for the digest key and dbt_project.yml's vars.
[[nodiscard]] Result<void> fingerprint_target_reads(const CommandContext& ctx, LoadedProject& project,
                                                    const std::map<std::string, std::string>& probed_target);

struct LoadedRun {
  planner::RunOutcome outcome;
  std::string command;  // dbt's command ("build", "run", ...)
  std::string summary;  // "12 succeeded, 1 failed, 2 skipped"
  std::string finished_at;
  std::vector<std::string> notes;              // e.g. "sources.json was taken after the run started: not used"
  std::map<std::string, double> node_seconds;  // node id -> dbt's execution time, when reported
  std::map<std::string, int> statuses;         // dbt result status -> how many results had it
  std::vector<std::string> failed_checks;      // ids of the data and unit tests that failed or errored
};

// How many distinct checks (dbt data and unit tests) read any of `ids` (node or source ids).
std::size_t count_checks(const LoadedProject& project, const std::vector<std::string>& ids);

enum class RunKind { build, checks_only };

// Reads <target-dir>/run_results.json (`project` loaded with ProjectUse::plan_and_record) and refuses what isn't a real
// build of the manifest's code (ADR-0013): codes "not_a_build", "empty_run", "other_invocation", "no_project_name".
// RunKind::checks_only: a `dbt test` of the manifest's code instead ("not_a_test_run"), read
// as a test-only outcome (RunOutcome::checks_only).
// `written_by`: the metadata of the manifest now on disk when `project` was read before dbt ran
// (ods state run keeps the project it planned): run_results.json must come from the
// invocation that wrote that manifest; null: from the one that wrote `project`'s (or, for a
// project read from a run's manifest, project.run_invocation_id).
[[nodiscard]] Result<LoadedRun> load_run(const CommandContext& ctx, const LoadedProject& project,
                                         RunKind kind = RunKind::build, const dbt::ManifestMeta* written_by = nullptr);

}  // namespace ods::cli
