#include <algorithm>
#include <fstream>
#include <iterator>
#include <system_error>
#include <vector>

#include "parse_inputs_parts.h"

namespace ods::dbt::parse_inputs {
namespace {

namespace fs = std::filesystem;

bool is_distribution(const std::string& name) { return name.ends_with(".dist-info") || name.ends_with(".egg-info"); }

// True when `dist` (a *.dist-info folder) records an editable install: its code is a source tree
// whose edits no distribution name shows.
bool editable(const fs::path& dist) {
  std::error_code ec;
  const fs::path url = dist / "direct_url.json";
  if (!fs::exists(url, ec)) return false;
  std::ifstream in(url);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text.find("\"editable\": true") != std::string::npos || text.find("\"editable\":true") != std::string::npos;
}

}  // namespace

std::expected<Distributions, std::string> read_distributions(const fs::path& python) {
  // A venv's interpreter is a link to the system's: its packages are the venv's, beside the link.
  const fs::path lib = python.parent_path().parent_path() / "lib";
  std::vector<fs::path> site_packages;
  std::error_code ec;
  for (fs::directory_iterator it(lib, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().filename().string().starts_with("python3") && fs::is_directory(it->path() / "site-packages", ec))
      site_packages.push_back(it->path() / "site-packages");
  std::sort(site_packages.begin(), site_packages.end());
  Distributions out;
  for (const auto& dir : site_packages) {
    std::vector<std::string> names;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (!is_distribution(name) && !name.ends_with(".pth") && !name.ends_with(".egg-link")) continue;
      names.push_back(name);
      if (name.starts_with("dbt_core-") && name.ends_with(".dist-info")) {
        if (editable(it->path()))
          return std::unexpected("dbt-core is an editable install (" + it->path().string() + ")");
        out.dbt_version = name.substr(9, name.size() - 9 - 10);
      }
    }
    std::sort(names.begin(), names.end());
    out.text += "site-packages " + dir.string() + "\n";
    for (const auto& n : names) out.text += "  " + n + "\n";
  }
  if (out.dbt_version.empty())
    return std::unexpected("dbt-core's dist-info was not found in " + (lib / "python3*/site-packages").string());
  return out;
}

}  // namespace ods::dbt::parse_inputs
