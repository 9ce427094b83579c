#pragma once
// Test harness: dbt code that tries every way a project's code can read a variable of the
// environment dbt runs in (issue 26: no secret of ODS reaches a process it starts), planted into
// a copy of examples/shop (DuckDB):
// - a SQL model reading each variable with env_var() directly and through a macro, logging them
//   with log(), its rows holding them (the warehouse file);
// - a post-hook reading one with env_var() (a literal hook: the keyed-digest path), and one that
//   writes them into a file with run_query (DuckDB's COPY ... TO);
// - a Python model (dbt-duckdb runs it) reading os.environ, printing, and writing the whole
//   environment into a file, with the contents of every file a probed variable names (a token
//   file) or holds (a Secret's folder), and what its parent process (ods) was started with
//   (/proc/<parent>/environ and cmdline, readable by a process of the same user).
// What they read lands in dbt's log, its artifacts, the DuckDB file and two files in the
// project folder; a SecretSearch over the folder then finds any secret they saw.
#include <filesystem>
#include <string>
#include <vector>

#include "harness/dbt_project.h"

namespace ods::testing {

// A variable the tests set beside the secrets, which dbt must see ("visible"): proof the
// probes ran and the user's own environment still reaches dbt.
inline constexpr const char* kProbeMarkerVariable = "ODS_SECRET_PROBE_MARKER";

// Writes the probes into `p` for the variables `names` (and kProbeMarkerVariable).
void plant_secret_probes(const DbtProject& p, const std::vector<std::string>& names);

// The file the Python model wrote its whole environment into (and its parent's): it rightly
// holds what the user gives dbt (warehouse passwords), so a search for those must skip it.
std::filesystem::path secret_probe_environment_file(const DbtProject& p);

// Fails the test unless the probes ran: both files exist, each holds the marker's value, and
// the Python model read its parent's environment (the marker in it).
void expect_secret_probes_ran(const DbtProject& p);

}  // namespace ods::testing
