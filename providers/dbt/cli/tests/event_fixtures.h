#pragma once
// The recorded dbt output lines in providers/dbt/cli/tests/fixtures/ (README.md there says how
// each was made).
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "harness/source_paths.h"

namespace ods::dbt::testing {

inline std::filesystem::path fixture_path(const std::string& name) {
  return ods::testing::source_dir() / "providers/dbt/cli/tests/fixtures" / name;
}

// The file's lines, without their '\n'; none when it does not exist.
inline std::vector<std::string> fixture_lines(const std::string& name) {
  std::ifstream in(fixture_path(name));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace ods::dbt::testing
