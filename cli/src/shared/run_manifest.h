#pragma once
// The manifest an `ods state run` read, for the commands that read the project after it
// (`ods state plan`, `ods state record`) when its dbt build wrote no target/manifest.json
// (dbt::kDriverNoManifest, issue 41 item 2). Without it they would read a missing manifest, or
// an earlier command's beside the run's run_results.json.
//
// After each such build the run notes, in <target-dir>/ods-parse/run_manifest.json: the manifest
// the run's plan was read from (the parse's copy, parse_reuse.h) with its size and modification
// time, the nodes that build compiled as the ods dbt driver hands them over
// (ods-parse/run_compiled_nodes.json: what the build's manifest.json would have held compiled,
// dbt::ArtifactPaths::compiled_nodes) and the build's invocation id (its run_results.json's);
// files inside the target folder are noted relative to it, so a project copied or moved with its
// target/ reads its own.
// The note goes stale two ways: a dbt command writes target/manifest.json after it (the note is
// read only while it is newer than that file, or the file is missing), or a later parse rewrites
// the manifest it names (its size or time differ): then that manifest, the project's latest
// parse, is read alone, without the build's compiled nodes (which may be of other code).
#include <filesystem>
#include <optional>
#include <string>

#include "context.h"
#include "dbt_session.h"
#include "ods/base/result.h"

namespace ods::cli {

struct RunManifest {
  std::filesystem::path manifest;  // the manifest the run's plan was read from
  // The nodes its last build compiled (the driver's hand-over); empty when `manifest` was
  // rewritten since (then so is invocation_id).
  std::filesystem::path compiled_nodes;
  std::string invocation_id;  // that build's: its run_results.json carries it
};

// <target-dir>/ods-parse/run_manifest.json.
std::filesystem::path run_manifest_note(const CommandContext& ctx);

// After a dbt build through `session` (one_parse) that wrote no manifest, with `invocation_id`
// its own: the note is removed, the driver writes the nodes it compiled beside the parse's copy,
// then the note is written (a temporary file renamed over it). `manifest`: the manifest the
// plan was read from. Errors: write_compiled_nodes's, "io" naming the file; no note is left then.
[[nodiscard]] Result<void> note_run_manifest(const CommandContext& ctx, DbtSession& session,
                                             const std::filesystem::path& manifest, const std::string& invocation_id);

// The note's manifest when the note is there and newer than <target-dir>/manifest.json (or that
// is missing); nullopt otherwise. Errors: "invalid_artifact" naming the note when it is there
// but unreadable or names files that are gone (no stale manifest is read in its place).
[[nodiscard]] Result<std::optional<RunManifest>> last_run_manifest(const CommandContext& ctx);

}  // namespace ods::cli
