#pragma once
// <project-dir>/dbt_project.yml, read with yaml-cpp: what ODS needs of it before dbt runs.
#include <filesystem>
#include <optional>
#include <string>

#include "ods/base/result.h"

namespace ods::dbt {

struct ProjectFile {
  std::string name;     // top-level `name:`, a dbt identifier ([A-Za-z_][A-Za-z0-9_]*)
  std::string profile;  // top-level `profile:` as written (Jinja not rendered); "" when absent
  // `quoting:` (database, schema, identifier), each true or false as written; nullopt when not
  // set (the adapter's default then applies). A value that is not a YAML boolean (Jinja, a
  // string) leaves it to dbt: quoting_unknown says why, and the three are unset.
  std::optional<bool> quote_database{}, quote_schema{}, quote_identifier{};
  std::string quoting_unknown{};  // "" when `quoting:` is absent or plain
};

// Reads `<project_dir>/dbt_project.yml`. Errors, all "usage" and naming the file (and the line
// and column for YAML that does not parse): the file missing or unreadable ("is --project-dir a
// dbt project?"), malformed YAML, a top level that is not a mapping, no top-level `name:`, a
// `name:` that is not a string or not a dbt identifier.
[[nodiscard]] Result<ProjectFile> read_project_file(const std::filesystem::path& project_dir);

}  // namespace ods::dbt
