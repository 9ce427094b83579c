// A dbt-duckdb profile output as the database the native probe opens (ods/duckdb/native_probe.h).
#include <set>

#include "ods/duckdb/native_probe.h"

namespace ods::duckdb {

namespace {

using Fields = std::map<std::string, std::string>;

// Fields that don't change what a probe reads (dbt-duckdb's DuckDBCredentials).
const std::set<std::string>& ignored_fields() {
  static const std::set<std::string> kIgnored{"type",        "path",      "database",      "schema",
                                              "threads",     "keep_open", "external_root", "disable_transactions",
                                              "is_ducklake", "retries",   "module_paths"};
  return kIgnored;
}

// A path dbt-duckdb hands to DuckDB as a file: no scheme (`md:`, `ducklake:`, `s3://`), nothing
// urlparse would read as a query or a fragment.
bool plain_file(const std::string& path) {
  if (path.empty() || path == ":memory:" || path.find_first_of("?#") != std::string::npos) return false;
  const auto colon = path.find(':');
  return colon == std::string::npos || path.find('/') < colon;
}

// dbt-duckdb's path_derived_database_name for a plain file: its name without the extension
// (os.path.splitext: leading dots are no extension).
std::string name_of(const std::string& path) {
  const auto slash = path.rfind('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const auto first = base.find_first_not_of('.');
  const auto dot = base.rfind('.');
  if (first != std::string::npos && dot != std::string::npos && dot > first) base.erase(dot);
  return base;
}

}  // namespace

std::expected<NativeDatabase, std::string> database_from_profile(const std::string& target_name, const Fields& fields,
                                                                 const std::vector<std::string>& structured) {
  auto type = fields.find("type");
  if (type == fields.end() || type->second != "duckdb")
    return std::unexpected("target '" + target_name + "' is of type '" +
                           (type == fields.end() ? std::string() : type->second) + "', not duckdb");
  for (const auto& name : structured)
    if (name != "retries" && name != "module_paths")
      return std::unexpected("target '" + target_name + "' sets '" + name +
                             "', which dbt-duckdb applies on connecting and the native probe does not");
  for (const auto& [name, value] : fields)
    if (!ignored_fields().contains(name))
      return std::unexpected("target '" + target_name + "' sets '" + name + "', which the native probe does not know");
  auto path = fields.find("path");
  if (path == fields.end() || path->second == ":memory:")
    return std::unexpected("target '" + target_name + "' has its database in memory (no path)");
  if (!plain_file(path->second))
    return std::unexpected("target '" + target_name + "': path '" + path->second +
                           "' is not a plain file (MotherDuck, DuckLake or a remote path is left to dbt)");
  if (auto lake = fields.find("is_ducklake");
      lake != fields.end() && lake->second != "false" && lake->second != "False")
    return std::unexpected("target '" + target_name + "' is a DuckLake");
  const std::string derived = name_of(path->second);
  auto database = fields.find("database");
  if (database != fields.end() && database->second != derived)
    return std::unexpected("target '" + target_name + "': database '" + database->second + "' is not the path's ('" +
                           derived + "'), which dbt-duckdb refuses without an attachment of that name");
  auto schema = fields.find("schema");
  NativeDatabase out;
  out.path = path->second;
  out.target = {{"schema", schema == fields.end() ? std::string("main") : schema->second},
                {"database", derived},
                {"name", target_name},
                {"type", "duckdb"}};
  return out;
}

}  // namespace ods::duckdb
