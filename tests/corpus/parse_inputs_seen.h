#pragma once
// What the reuse corpus knows of the parse's fast path (issue 41 item 3, docs/cli.md "The
// parse's fast path"), from outside ods: which files dbt's parse reads a corpus step changed,
// and what the first command after the step said of the fast path. The corpus uses them to
// fail a step whose change touched a parse input while the fast path stood (a wrong fast path
// would plan on a stale parse), and to count the reasons the fast path declined.
#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace ods::testing {

// Relative path -> digest of the content, of every file under `dir` dbt's parse can read (SQL,
// YAML, seeds, docs, Python models; packages installed under the project included), leaving
// out dbt's own output (target/, logs/) and the warehouse's and ods's files.
std::map<std::string, std::size_t> parse_input_files(const std::filesystem::path& dir);

// The paths added, removed or changed between two parse_input_files() of one project, sorted.
std::vector<std::string> changed_parse_inputs(const std::map<std::string, std::size_t>& before,
                                              const std::map<std::string, std::size_t>& after);

// What an ods command's stderr says of the parse's fast path: "taken" when it stood for dbt
// parse, the reason it gave when it declined, "" when it said neither.
std::string fast_path_outcome(const std::string& command_stderr);

}  // namespace ods::testing
