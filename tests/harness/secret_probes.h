#pragma once
// Test harness: dbt code that tries every way a project's code can read a secret of the
// environment dbt runs in (issue 26: no secret of ODS reaches a process it starts; issue 40),
// planted into a copy of examples/shop (DuckDB):
// - a SQL model reading each variable with env_var() directly and through a macro, logging them
//   with log(), its rows holding them (the warehouse file);
// - a post-hook reading one with env_var() (a literal hook: the keyed-digest path), and one that
//   writes them into a file with run_query (DuckDB's COPY ... TO);
// - a Python model (dbt-duckdb runs it) reading os.environ, printing, and writing into a file the
//   whole environment, the contents of every file a probed variable names (a token file) or holds
//   (a Secret's folder), and what every process from its own up to PID 1 was started with
//   (/proc/<pid>/environ and cmdline: ods, and whatever ods or dbt started between, readable by a
//   process of the same user);
// - the same model reading the Secret mount paths the run has (in a pod: the token and git
//   Secrets' folders) at their paths, variables or not, into a file of their own.
// What they read lands in dbt's log, its artifacts, the DuckDB file and files in the project
// folder; a SecretSearch over the folder (and the run's home and temporary directory,
// RunPlaces) then finds any secret they saw.
#include <filesystem>
#include <string>
#include <vector>

#include "harness/dbt_project.h"
#include "harness/temp_dir.h"

namespace ods::testing {

// A variable the tests set beside the secrets, which dbt must see ("visible"): proof the
// probes ran and the user's own environment still reaches dbt.
inline constexpr const char* kProbeMarkerVariable = "ODS_SECRET_PROBE_MARKER";

// Writes the probes into `p` for the variables `names` (and kProbeMarkerVariable), and for the
// files and folders `mounts` (read at their paths; secret_probe_mounts_file()).
void plant_secret_probes(const DbtProject& p, const std::vector<std::string>& names,
                         const std::vector<std::filesystem::path>& mounts = {});

// The file the Python model wrote its whole environment into, then every process's it walked
// up to (lines "process <n> pid <pid> exe <path> environ|cmdline: ..."): it rightly holds what the
// user gives dbt (warehouse passwords), so a search for those must skip it.
std::filesystem::path secret_probe_environment_file(const DbtProject& p);
// That file's part before the processes: the model's own environment and the files it followed.
std::string secret_probe_own_environment(const DbtProject& p);
// That file up to the entries of the first process that is `ods` (the model's own process, what
// ods started between, and ods): the processes above ods (a CI job's shell and step script) are
// not ODS's to clean (docs/security.md).
std::string secret_probe_environment_through_ods(const DbtProject& p);
// What the Python model read at the mount paths: a line "<path>: <contents>" per file.
std::filesystem::path secret_probe_mounts_file(const DbtProject& p);

// Fails the test unless the probes ran: both files exist, each holds the marker's value, the
// Python model walked up to ods and read its environment (the marker in it), and it read every
// mount path it was given.
void expect_secret_probes_ran(const DbtProject& p);

// The run's own home and temporary directory ($HOME and $TMPDIR of every command of the
// project), outside its folder, searched beside it: what ods, dbt or a probe leaves there.
class RunPlaces {
 public:
  explicit RunPlaces(DbtProject& p);
  // The folder holding both, to search.
  const std::filesystem::path& path() const { return root_.path(); }

 private:
  TempDir root_{"run-places"};
};

}  // namespace ods::testing
