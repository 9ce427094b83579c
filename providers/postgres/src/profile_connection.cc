#include "ods/postgres/profile_connection.h"

#include <utility>
#include <vector>

namespace ods::postgres {

namespace {

using Fields = std::map<std::string, std::string>;

// The first of `names` the output has.
const std::string* field(const Fields& fields, std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (auto it = fields.find(name); it != fields.end()) return &it->second;
  return nullptr;
}

bool whole_number(const std::string& text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
}

// libpq's key/value syntax: a value in single quotes, its quotes and backslashes escaped.
std::string conninfo_value(const std::string& value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "'";
}

}  // namespace

std::expected<NativeConnection, std::string> connection_from_profile(const std::string& target_name,
                                                                     const Fields& fields) {
  const std::string* type = field(fields, {"type"});
  if (type == nullptr || *type != "postgres")
    return std::unexpected("target '" + target_name + "' is of type '" + (type ? *type : "") + "', not postgres");
  const std::string* host = field(fields, {"host"});
  const std::string* port = field(fields, {"port"});
  const std::string* user = field(fields, {"user"});
  const std::string* password = field(fields, {"password", "pass"});
  const std::string* dbname = field(fields, {"dbname", "database"});
  const std::string* schema = field(fields, {"schema"});
  for (const auto& [name, value] : std::vector<std::pair<const char*, const std::string*>>{{"host", host},
                                                                                           {"port", port},
                                                                                           {"user", user},
                                                                                           {"password", password},
                                                                                           {"dbname", dbname},
                                                                                           {"schema", schema}})
    if (value == nullptr) return std::unexpected("target '" + target_name + "' has no '" + name + "'");
  if (!whole_number(*port)) return std::unexpected("target '" + target_name + "': port is not a whole number");
  const std::string* timeout = field(fields, {"connect_timeout"});
  if (timeout && !whole_number(*timeout))
    return std::unexpected("target '" + target_name + "': connect_timeout is not a whole number");

  std::vector<std::pair<std::string, std::string>> keys{
      {"host", *host},         {"port", *port},     {"user", *user},
      {"password", *password}, {"dbname", *dbname}, {"connect_timeout", timeout ? *timeout : "10"}};
  for (const char* name : {"sslmode", "sslcert", "sslkey", "sslrootcert"})
    if (const std::string* value = field(fields, {name}); value && !value->empty()) keys.emplace_back(name, *value);
  const std::string* application = field(fields, {"application_name"});
  keys.emplace_back("application_name", application ? *application : "dbt");
  if (const std::string* idle = field(fields, {"keepalives_idle"}); idle && !idle->empty() && *idle != "0")
    keys.emplace_back("keepalives_idle", *idle);
  if (const std::string* path = field(fields, {"search_path"}); path && !path->empty()) {
    std::string escaped;  // dbt-postgres escapes the path's spaces for libpq's options
    for (char c : *path) escaped += c == ' ' ? std::string("\\ ") : std::string(1, c);
    keys.emplace_back("options", "-c search_path=" + escaped);
  }
  NativeConnection out;
  for (const auto& [key, value] : keys)
    out.conninfo += (out.conninfo.empty() ? "" : " ") + key + "=" + conninfo_value(value);
  if (const std::string* role = field(fields, {"role"})) out.role = *role;
  out.target = {{"schema", *schema}, {"database", *dbname}, {"name", target_name}, {"type", "postgres"}};
  return out;
}

}  // namespace ods::postgres
