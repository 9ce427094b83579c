#pragma once
// One persistent dbt process for a whole ods command: the ods dbt driver
// (providers/dbt/cli/python/ods_dbt_driver.py, embedded in ods) imports dbt once and runs each dbt
// command ods sends it through dbt's own CLI entry point, reusing the manifest the first
// command parsed. It saves dbt's start-up (Python imports, ~1.5–2 s) and the project parse
// for every command after the first.
//
// It is a process::ProcessLauncher: DbtInvocation, run_dbt_command and the signal forwarding work on
// it unchanged. start() does not start a process but sends the command to the driver
// (starting the driver on the first call); the process::RunningProcess it returns delivers the
// command's output lines and ends with the command's exit code, as a dbt process would.
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "ods/process/child_process.h"

namespace ods::dbt {

// The Python interpreter of `dbt` when `dbt` is dbt-core's console script as pip installs it
// (first line `#!<absolute path of an executable named python...>`, then
// `from dbt.cli.main import cli`); nullopt for anything else (a shell or Python wrapper, a
// binary, an unreadable file), which ods then runs as a process per command.
std::optional<std::filesystem::path> console_script_python(const std::filesystem::path& dbt);

// Not a dbt command but a request of the driver: `{kDriverWriteManifest, DIR}` as a command's
// arguments writes the manifest the driver keeps into DIR (ods_dbt_driver.py, write_kept); exit
// code 2 with the reason when it keeps none. Only for a launcher that keeps_manifest().
inline constexpr const char* kDriverWriteManifest = "ods-write-manifest";

// An argument of a dbt command for the driver, not for dbt (the driver removes it): the command
// runs with dbt's manifest writer off, so it writes run_results.json and its other artifacts but
// neither manifest.json nor semantic_manifest.json (ods_dbt_driver.py, manifest_writer_off). Only
// for a launcher that keeps_manifest(): a dbt process would refuse the argument.
inline constexpr const char* kDriverNoManifest = "ods-no-manifest";

// Not a dbt command but a request of the driver: `{kDriverWriteCompiled, FILE}` writes the nodes
// the last command compiled, each as manifest.json writes it, into FILE
// ({"ods_compiled_nodes": 1, "invocation_id": ..., "nodes": {id: node}}; ods_dbt_driver.py,
// write_compiled); exit code 2 with the reason when it keeps no manifest or the write fails.
// Only for a launcher that keeps_manifest().
inline constexpr const char* kDriverWriteCompiled = "ods-write-compiled";

// The driver's Python source, as ods embeds it.
std::string_view dbt_driver_source();

// Called once, with one line, when the driver declines to keep the manifest (see below).
using DriverNotice = std::function<void(const std::string&)>;

// `real` starts the driver (`<python> -c <source>`) and must outlive the returned launcher.
// The driver is started with the first command's working directory, environment and
// interrupt grace periods; each command carries its own working directory and environment.
//
// A command's process::RunningProcess: wait() returns when the driver reported the command's end
// ({"ods_driver": {"exit_code": N}}), with that exit code; if the driver exits instead, with
// the driver's own exit status (a crash shows as a failed command with the driver's stderr
// among its lines). interrupt() sends the driver's process group SIGINT, escalating like a
// dbt process (SIGTERM, SIGKILL); an interrupted command ends the driver. pid() is the driver's.
// start() errors: the real launcher's (e.g. "not_found" for a missing interpreter), and
// "spawn_failed" once the driver has ended (after an interruption or a crash) or while
// another command of it is still running (one at a time).
//
// What dbt offers: the first start() waits for the driver's first line, which says what the
// running dbt offers (ods_dbt_driver.py, inspect_dbt). A dbt the driver refuses (older than
// 1.8, or writing a manifest schema newer than v12) fails that start() with
// "unsupported_dbt" and the driver's message (the version and the supported range), and
// every later start() the same way. A dbt whose
// parsed manifest the driver cannot keep safely (an interface it uses is missing, or nodes
// carry compiled state it does not know how to reset) makes the launcher run this and every
// later command as a dbt process of its own through `real` (`spec` unchanged), after one
// call of `notice` saying why.
//
// Destroying the launcher closes the driver's stdin and waits for it to exit (it does at
// once when idle); a driver still running a command after a few seconds is killed.
class DbtDriverLauncher : public process::ProcessLauncher {
 public:
  // True once the driver has started and said it keeps the manifest its first command parsed:
  // each later command with the same parse arguments (--project-dir, --profiles-dir, --target,
  // --vars) runs on that parse, so its artifacts describe the code the first command read.
  // False before the first command, and when the driver declined (a process per command) or
  // refused the dbt.
  virtual bool keeps_manifest() const = 0;
};

std::unique_ptr<DbtDriverLauncher> make_dbt_driver_launcher(process::ProcessLauncher& real,
                                                            std::filesystem::path python, DriverNotice notice = {});

}  // namespace ods::dbt
