#pragma once
// Test harness: a private copy of an example dbt project, real dbt from ./.venv (or another
// venv: use_venv), and the built `ods` executable, each run as a child process with its
// output captured.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/source_paths.h"  // source_dir(), bin_dir()

namespace ods::testing {

struct ProcessResult {
  int exit_code = -1;
  std::string output;  // stdout
  std::string errors;  // stderr
};

// Runs `argv` in `cwd` with extra environment entries ("NAME=value"); waits for it.
ProcessResult run_process(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                          const std::vector<std::string>& env = {});

class DbtProject {
 public:
  // Copies examples/<name> (without target/, logs/, .ods/, *.duckdb) into a fresh temp dir.
  explicit DbtProject(const std::string& example);
  // Copies an existing project directory (everything, state included) into a fresh temp dir.
  static DbtProject copy_of(const DbtProject& other);
  // The same of a project directory no DbtProject owns (e.g. a ctest fixture's), with ./.venv,
  // no extra environment and shop.duckdb.
  static DbtProject copy_of_directory(const std::filesystem::path& dir);
  // A fresh empty temp dir `<tmp>/<name>`, for a generator (e.g. bench/gen_project.py) to fill.
  static DbtProject empty(const std::string& name);
  ~DbtProject();
  DbtProject(DbtProject&&) noexcept;
  DbtProject& operator=(DbtProject&&) = delete;

  const std::filesystem::path& dir() const { return dir_; }
  // Extra environment entries ("NAME=value") for every dbt, ods, python and SQL command run
  // for this project (e.g. the PostgreSQL connection of the `pg` target); copy_of keeps them.
  void add_env(const std::vector<std::string>& entries);
  const std::vector<std::string>& env() const { return env_; }
  // The bin directory of the Python venv whose dbt (dbt(), ods()'s $ODS_DBT) and python
  // (generate_data(), sql()) this project uses: ./.venv/bin unless set, e.g. to a cached venv
  // of scripts/dbt-venv.sh (the dbt compatibility matrix). copy_of keeps it.
  void use_venv(std::filesystem::path bin) { bin_ = std::move(bin); }
  std::filesystem::path venv() const;
  // The DuckDB file (relative to dir()) that sql() opens: shop.duckdb unless set; copy_of keeps it.
  void use_duckdb_file(std::string relative) { duckdb_file_ = std::move(relative); }
  const std::string& duckdb_file() const { return duckdb_file_; }
  // `dbt <args...> --profiles-dir <dir>` with the project's DuckDB file inside dir().
  ProcessResult dbt(std::vector<std::string> args) const;
  // `ods <args...> --project-dir <dir>`.
  ProcessResult ods(std::vector<std::string> args) const;
  // `python scripts/generate_data.py` with the venv's python.
  ProcessResult generate_data(const std::vector<std::string>& args = {}) const;
  // `ods state plan --format json` parsed; fails the test on a non-zero exit.
  nlohmann::json plan_json(std::vector<std::string> extra = {}) const;
  // Runs SQL against the project's DuckDB file (use_duckdb_file) through the venv's python duckdb module.
  ProcessResult sql(const std::string& statement) const;

  std::string read(const std::string& relative) const;
  void write(const std::string& relative, const std::string& content) const;
  // Replaces the first occurrence of `from` with `to` in a file; fails the test if absent.
  void replace_in(const std::string& relative, const std::string& from, const std::string& to) const;

 private:
  DbtProject() = default;
  // `entries` followed by env_.
  std::vector<std::string> env_with(std::vector<std::string> entries) const;
  std::filesystem::path dir_;
  std::vector<std::string> env_;
  std::filesystem::path bin_;  // "" -> venv_bin()
  std::string duckdb_file_ = "shop.duckdb";
};

std::filesystem::path venv_bin();
std::filesystem::path ods_binary();
// The whole content of a file; "" when it can't be read.
std::string read_text_file(const std::filesystem::path& path);

// A command's stdout parsed as JSON; when it is not JSON, fails the test (printing stdout and
// stderr) and returns an empty object.
nlohmann::json output_json(const ProcessResult& r);
// Entry of a plan JSON document by node name; fails the test when absent.
const nlohmann::json& entry(const nlohmann::json& plan, const std::string& name);
// Every reason code of an entry.
std::vector<std::string> reason_codes(const nlohmann::json& entry);
// "<action>:<first reason code>" of an entry, e.g. "reuse:unchanged".
std::string decision(const nlohmann::json& entry);
// The message of an entry's first reason.
std::string first_reason_message(const nlohmann::json& entry);
// The first evidence of `kind` about `subject` on an entry, or null.
const nlohmann::json* evidence_about(const nlohmann::json& entry, const std::string& kind, const std::string& subject);
// The values of every evidence of `kind` on an entry, one per line.
std::string all_evidence_of(const nlohmann::json& entry, const std::string& kind);

}  // namespace ods::testing
