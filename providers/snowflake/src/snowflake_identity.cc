#include "ods/snowflake/snowflake_identity.h"

namespace ods::snowflake {

namespace {

// Times as ISO 8601 text with nanoseconds and the zone, as the source versions write them.
constexpr const char* kFields =
    "'created=' || to_varchar(created, 'YYYY-MM-DD\"T\"HH24:MI:SS.FF9TZH:TZM') || ';last_altered=' || "
    "to_varchar(last_altered, 'YYYY-MM-DD\"T\"HH24:MI:SS.FF9TZH:TZM')";

// The relation's row: Snowflake upper-cases unquoted schema names; the identifier is as listed.
constexpr const char* kWhere = " where upper(table_schema) = upper('{schema}') and table_name = '{identifier}'";

}  // namespace

std::map<std::string, std::string> identity_statements(metadata::IdentityRead read) {
  const std::string identity = read == metadata::IdentityRead::recording
                                   ? std::string(
                                         "case when last_altered >= dateadd('day', -1, current_timestamp()) "
                                         "then ") +
                                         kFields + " end"
                                   : std::string(kFields);
  return {{"table", "select " + identity + " as identity from {metadata_view:TABLES}" + kWhere +
                        " and table_type = 'BASE TABLE'"},
          {"view", std::string("select 'definition=' || md5(view_definition) as identity from {metadata_view:VIEWS}") +
                       kWhere}};
}

}  // namespace ods::snowflake
