#pragma once
// Running dbt for a command: which binary (--dbt, $ODS_DBT, or `dbt` on PATH), the flags
// every call shares (--project-dir, --target, --profiles-dir), progress lines while dbt
// builds, and Ctrl-C forwarded to dbt. Implements the dbt provider's DbtCommand.
// All commands of one session run in one persistent dbt process (the ods dbt driver,
// ods/dbt/cli/dbt_driver.h) when dbt is a Python console script and $ODS_DBT_DRIVER is not
// "off" (or "0"); otherwise each command starts its own dbt process.
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "context.h"
#include "ods/dbt/cli/dbt_invocation.h"
#include "ods/dbt/dbt_command.h"

namespace ods::cli {

class DbtSession : public dbt::DbtCommand {
 public:
  // `dbt <args> <shared flags>`; quiet. See DbtCommand::run.
  [[nodiscard]] ods::Result<dbt::DbtCommandResult> run(const std::vector<std::string>& args) override = 0;
  // The same, printing a live progress line ("node n of m, elapsed") to the context's error
  // stream while dbt works.
  [[nodiscard]] virtual ods::Result<dbt::DbtCommandResult> run_with_progress(const std::vector<std::string>& args,
                                                                             const std::string& what) = 0;
  // The flags run() appends to every call: --project-dir, and --target when given.
  virtual std::vector<std::string> shared_flags() const = 0;
  // True when every dbt command this session ran so far ran on one parse of the project: the
  // ods dbt driver kept the manifest its first command parsed (every command of a session has
  // the same parse arguments). Then what a command built or tested is the code the session's
  // first command compiled. False for a dbt process per command: each parsed the project
  // again, from the files as they were when it started.
  virtual bool one_parse() const = 0;
  // True when this session's commands run in the ods dbt driver (dbt is a Python console
  // script and $ODS_DBT_DRIVER is not "off"), decided as the first command decides it, so it
  // can be asked before any command ran. The driver may still decline to keep the manifest on
  // its first command (dbt lacks an interface it uses): then one_parse() stays false.
  virtual bool runs_in_driver() = 0;
  // True when a dbt process of this session stays alive between its commands (the ods dbt driver
  // that keeps the parse) and one of them may have connected to the warehouse (any command but a
  // parse): dbt-duckdb then keeps its database file open, and locked, until the process ends, so
  // a probe without dbt can't open the file beside it. Starts nothing.
  virtual bool may_hold_warehouse() const = 0;
  // Writes the manifest the driver keeps, as the session's last command left it, into `dir`
  // (manifest.json and semantic_manifest.json, with dbt's own writer, as `dbt parse` writes
  // them). Errors: "unsupported" when one_parse() is false (a dbt process per command keeps
  // nothing), "dbt_failed" with the driver's reason when it could not write.
  [[nodiscard]] virtual ods::Result<void> write_kept_manifest(const std::filesystem::path& dir) = 0;
  // Writes the nodes the session's last dbt command compiled, each as manifest.json writes it,
  // into `file` (dbt::ArtifactPaths::compiled_nodes reads it beside the parse's manifest), so a
  // `dbt compile` run with dbt::kDriverNoManifest (only when one_parse()) need not write the whole
  // manifest to hand over a few nodes. Errors: "unsupported" when one_parse() is false,
  // "dbt_failed" with the driver's reason when it could not write.
  [[nodiscard]] virtual ods::Result<void> write_compiled_nodes(const std::filesystem::path& file) = 0;
  // Another session with the same binary and flags and a dbt process of its own, to run at
  // the same time as this one (a parallel probe's parts). It forwards no interrupts (one
  // forwarder per process: this session's): on Ctrl-C its dbt call runs to its end.
  virtual std::unique_ptr<DbtSession> sibling() const = 0;
};

// `options`: how every call runs dbt (dbt_options, dbt_steps.h): `dbt` as given (--dbt, else
// $ODS_DBT; empty: `dbt` on PATH), resolved on each run (dbt::resolve_dbt_binary);
// profiles_dir ("" -> dbt's default), forward_interrupts. The session sets project_dir
// (ctx.project_dir) and args itself. `ctx` must outlive the session.
// Errors: none at creation; a missing binary shows on the first run ("dbt_not_found").
std::unique_ptr<DbtSession> make_dbt_session(const CommandContext& ctx, dbt::DbtInvocationOptions options);

}  // namespace ods::cli
