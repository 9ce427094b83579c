#include "ods/dbt/target_choice.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <regex>
#include <system_error>

#include "ods/dbt/project_file.h"

namespace ods::dbt {
namespace {

namespace fs = std::filesystem;
using Getenv = std::function<std::string(const std::string&)>;

// `text` with `{{ env_var('NAME') }}` / `{{ env_var('NAME', 'fallback') }}` rendered as dbt
// renders them; false when it holds other Jinja, or names an unset variable without a fallback
// (dbt refuses that itself).
bool render_env_var(const std::string& text, const Getenv& getenv, std::string& out) {
  static const std::regex kEnvVar(R"(\{\{\s*env_var\(\s*(['"])([^'"]+)\1\s*(?:,\s*(['"])([^'"]*)\3\s*)?\)\s*\}\})");
  std::string rendered;
  auto begin = text.cbegin();
  for (std::sregex_iterator it(text.begin(), text.end(), kEnvVar), end; it != end; ++it) {
    const std::smatch& m = *it;
    rendered.append(begin, m[0].first);
    std::string value = getenv(m[2].str());
    if (value.empty()) {
      if (!m[4].matched) return false;
      value = m[4].str();
    }
    rendered += value;
    begin = m[0].second;
  }
  rendered.append(begin, text.cend());
  if (rendered.find("{{") != std::string::npos || rendered.find("{%") != std::string::npos) return false;
  out = rendered;
  return true;
}

// The profiles.yml dbt reads for a project ODS runs dbt in: dbt's working directory is the
// project's, so a relative directory is the project's too.
fs::path profiles_file(const fs::path& project_dir, const std::string& flag_profiles_dir, const Getenv& getenv) {
  std::string dir = flag_profiles_dir.empty() ? getenv("DBT_PROFILES_DIR") : flag_profiles_dir;
  if (!dir.empty()) return (fs::path(dir).is_relative() ? project_dir / dir : fs::path(dir)) / "profiles.yml";
  std::error_code ec;
  if (fs::exists(project_dir / "profiles.yml", ec)) return project_dir / "profiles.yml";
  if (const std::string home = getenv("HOME"); !home.empty()) return fs::path(home) / ".dbt" / "profiles.yml";
  return {};
}

}  // namespace

Result<TargetChoice> choose_target(const fs::path& project_dir, const std::string& flag_target,
                                   const std::string& flag_profiles_dir, const Getenv& getenv) {
  TargetChoice choice;
  if (!flag_target.empty()) {
    choice.name = flag_target;
    choice.how = "--target";
  } else if (std::string env = getenv("DBT_TARGET"); !env.empty()) {
    choice.name = env;
    choice.how = "$DBT_TARGET";
  }
  auto unknown = [&](std::string why) {
    choice.unknown_why = std::move(why);
    return choice;
  };
  std::string profile = getenv("DBT_PROFILE");
  if (profile.empty()) {
    auto project = read_project_file(project_dir);
    if (!project) return unknown("dbt_project.yml could not be read");
    profile = project->profile;
  }
  if (profile.empty()) return unknown("dbt_project.yml names no profile");
  if (!render_env_var(profile, getenv, choice.profile)) return unknown("the profile's name is Jinja ODS can't render");
  const fs::path file = profiles_file(project_dir, flag_profiles_dir, getenv);
  std::error_code ec;
  if (file.empty() || !fs::exists(file, ec)) return unknown("no profiles.yml was found");
  YAML::Node root;
  try {
    root = YAML::LoadFile(file.string());
  } catch (const YAML::Exception&) {
    return unknown(file.string() + " could not be read");  // dbt says what is wrong with it
  }
  const YAML::Node entry = root.IsMap() ? root[choice.profile] : YAML::Node();
  if (!entry || !entry.IsMap()) return unknown(file.string() + " has no profile '" + choice.profile + "'");
  choice.profiles_file = file;
  const YAML::Node outputs = entry["outputs"];
  if (outputs && outputs.IsMap())
    for (const auto& output : outputs)
      if (output.first.IsScalar()) choice.targets.push_back(output.first.Scalar());
  const YAML::Node target = entry["target"];
  if (!target) {
    choice.profile_default = "default";  // dbt's own default when the profile names none
  } else if (!target.IsScalar() || !render_env_var(target.Scalar(), getenv, choice.profile_default)) {
    choice.profile_default.clear();
    if (choice.name.empty()) return unknown("the profile's `target:` is Jinja ODS can't render");
  }
  if (choice.name.empty()) {
    choice.name = choice.profile_default;
    choice.how = "the default target of profile '" + choice.profile + "' (" + file.string() + ")";
  }
  if (choice.targets.empty()) return unknown(file.string() + ": profile '" + choice.profile + "' has no outputs");
  if (std::find(choice.targets.begin(), choice.targets.end(), choice.name) == choice.targets.end()) {
    std::string valid;
    for (const auto& t : choice.targets) valid += "\n - " + t;
    return fail("usage", "The profile '" + choice.profile + "' does not have a target named '" + choice.name + "' (" +
                             choice.how + "). The valid target names for this profile (" + file.string() +
                             ") are:" + valid);
  }
  return choice;
}

}  // namespace ods::dbt
