#include "ods/dbt/project_file.h"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <regex>
#include <sstream>

namespace ods::dbt {
namespace {

// "<file>:<line>" of the top-level key `key` (an empty value has no position of its own).
std::string where(const std::filesystem::path& path, const YAML::Node& root, const std::string& key) {
  for (const auto& entry : root) {
    if (entry.first.IsScalar() && entry.first.Scalar() == key && !entry.first.Mark().is_null()) {
      return path.string() + ":" + std::to_string(entry.first.Mark().line + 1);
    }
  }
  return path.string();
}

// `quoting:`'s three parts into `file`, or why they can't be read before dbt runs.
void read_quoting(const YAML::Node& quoting, ProjectFile& file) {
  if (!quoting || quoting.IsNull()) return;
  if (!quoting.IsMap()) {
    file.quoting_unknown = "dbt_project.yml's `quoting:` is not a mapping";
    return;
  }
  const std::pair<const char*, std::optional<bool>*> parts[] = {
      {"database", &file.quote_database}, {"schema", &file.quote_schema}, {"identifier", &file.quote_identifier}};
  for (const auto& [key, target] : parts) {
    const YAML::Node value = quoting[key];
    if (!value || value.IsNull()) continue;
    const std::string text = value.IsScalar() ? value.Scalar() : "";
    if (text == "true" || text == "True" || text == "false" || text == "False") {
      *target = text == "true" || text == "True";
      continue;
    }
    file.quoting_unknown = std::string("dbt_project.yml's `quoting: ") + key + "` is not true or false";
    file.quote_database = file.quote_schema = file.quote_identifier = std::nullopt;
    return;
  }
}

}  // namespace

Result<ProjectFile> read_project_file(const std::filesystem::path& project_dir) {
  const std::filesystem::path path = project_dir / "dbt_project.yml";
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("usage", path.string() + ": not found; is --project-dir a dbt project?");
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) return fail("usage", path.string() + ": cannot be read");

  YAML::Node root;
  try {
    root = YAML::Load(text.str());
  } catch (const YAML::Exception& e) {
    return fail("usage", path.string() + ":" + std::to_string(e.mark.line + 1) + ":" +
                             std::to_string(e.mark.column + 1) + ": not valid YAML: " + e.msg);
  }
  if (!root.IsMap()) return fail("usage", path.string() + ": the top level is not a mapping of keys to values");
  const YAML::Node name = root["name"];
  if (!name) return fail("usage", path.string() + ": no top-level `name:`");
  if (!name.IsScalar()) {
    return fail("usage", where(path, root, "name") + ": `name:` is not a string (dbt's project name)");
  }
  static const std::regex kIdentifier("[A-Za-z_][A-Za-z0-9_]*");
  if (!std::regex_match(name.Scalar(), kIdentifier)) {
    return fail("usage",
                where(path, root, "name") + ": `name: " + name.Scalar() +
                    "` is not a dbt project name (letters, digits and underscores, not starting with a digit)");
  }
  const YAML::Node profile = root["profile"];
  ProjectFile file{.name = name.Scalar(), .profile = profile && profile.IsScalar() ? profile.Scalar() : ""};
  read_quoting(root["quoting"], file);
  return file;
}

}  // namespace ods::dbt
