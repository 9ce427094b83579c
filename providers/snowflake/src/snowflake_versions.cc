#include "ods/snowflake/snowflake_versions.h"

#include "ods/content/content_versions.h"
#include "ods/metadata/metadata_versions.h"

namespace ods::snowflake {

namespace {

// Quoted lower-case aliases: Snowflake upper-cases unquoted names in a result's columns.
constexpr const char* kMetadataSql =
    "select table_type as \"table_type\", "
    "to_varchar(last_altered, 'YYYY-MM-DD\"T\"HH24:MI:SS.FF9TZH:TZM') as \"last_altered\", "
    "to_varchar(created, 'YYYY-MM-DD\"T\"HH24:MI:SS.FF9TZH:TZM') as \"created\", "
    "to_varchar(row_count) as \"row_count\", to_varchar(bytes) as \"bytes\" "
    "from {metadata_view} where upper(table_schema) = upper('{schema}') and table_name = '{identifier}'";

using metadata::column;
using metadata::MetadataReading;

// INFORMATION_SCHEMA.TABLES' row of the table (row_sets: names that differ only in case give two).
MetadataReading read_tables_row(const contracts::ProbeAnswer& answer, const std::string& observed_at) {
  auto rows = answer.row_sets.find(metadata::kMetadataStatement);
  if (rows == answer.row_sets.end() || rows->second.empty())
    return {{},
            "INFORMATION_SCHEMA.TABLES shows no row for it (Snowflake shows only the tables the role has "
            "privileges on)"};
  if (rows->second.size() > 1)
    return {{},
            "INFORMATION_SCHEMA.TABLES shows more than one table of this name (names that differ only in "
            "case), so which one dbt reads is uncertain"};
  const auto& row = rows->second.front();
  const std::string type = column(row, "table_type");
  if (type != "BASE TABLE")
    return {{},
            "its table_type is '" + type +
                "', and only a BASE TABLE's last_altered is known to move with every change of its rows"};
  const std::string last_altered = column(row, "last_altered");
  if (last_altered.empty()) return {{}, "INFORMATION_SCHEMA.TABLES gave no last_altered"};
  return {planner::DataVersion{"created=" + column(row, "created") + ";last_altered=" + last_altered,
                               planner::Exactness::semantic, kLastAlteredOrigin, observed_at},
          ""};
}

}  // namespace

std::unique_ptr<contracts::ChangeProvider> make_snowflake_versions(const SnowflakeOptions& options) {
  metadata::MetadataVersionsSpec spec;
  spec.origin = kSnowflakeOrigin;
  spec.content_origin = kContentOrigin;
  spec.metadata = {metadata::kMetadataStatement, kMetadataSql, 2, "TABLES"};
  spec.content = {content::kContentStatement, "select to_varchar(count(*)) as \"row_count\", to_varchar(" +
                                                  options.content_hash + ") as \"content_hash\" from {relation}"};
  spec.content_max_bytes = options.content_max_bytes;
  spec.view_why = "Snowflake's last_altered of a view moves when it is redefined, not when the tables it reads change";
  spec.read = read_tables_row;
  return metadata::make_metadata_versions(std::move(spec));
}

}  // namespace ods::snowflake
