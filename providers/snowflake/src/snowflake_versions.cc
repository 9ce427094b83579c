#include "ods/snowflake/snowflake_versions.h"

#include "ods/content/content_versions.h"

namespace ods::snowflake {

namespace {

using contracts::ProbeAnswer;

constexpr const char* kMetadata = "metadata";

// Quoted lower-case aliases: Snowflake upper-cases unquoted names in a result's columns.
constexpr const char* kMetadataSql =
    "select table_type as \"table_type\", "
    "to_varchar(last_altered, 'YYYY-MM-DD\"T\"HH24:MI:SS.FF9TZH:TZM') as \"last_altered\", "
    "to_varchar(created, 'YYYY-MM-DD\"T\"HH24:MI:SS.FF9TZH:TZM') as \"created\", "
    "to_varchar(row_count) as \"row_count\", to_varchar(bytes) as \"bytes\" "
    "from {metadata_view} where upper(table_schema) = upper('{schema}') and table_name = '{identifier}'";

std::string column(const contracts::ProbeRow& row, const std::string& name) {
  auto it = row.find(name);
  return it == row.end() ? "" : it->second;
}

class SnowflakeVersions final : public contracts::ChangeProvider {
 public:
  explicit SnowflakeVersions(SnowflakeOptions options) : options_(std::move(options)) {}

  std::string origin() const override { return kSnowflakeOrigin; }

  contracts::ProbeRequest request() const override {
    contracts::ProbeRequest r;
    r.filter.kinds = {"table"};
    contracts::ProbeStatement metadata{kMetadata, kMetadataSql, 2};
    metadata.metadata_view = "TABLES";
    r.statements = {metadata};
    if (options_.content_max_bytes) {
      contracts::ProbeStatement content = content_statement();
      content.only_if = contracts::ProbeCondition{kMetadata, "bytes", *options_.content_max_bytes};
      r.statements.push_back(std::move(content));
    }
    return r;
  }

  contracts::ProbeRequest content_request() const override {
    contracts::ProbeRequest r;
    r.filter.kinds = {"table"};
    r.statements = {content_statement()};
    return r;
  }

  std::vector<contracts::SourceVersion> versions(const contracts::ProbeReport& report,
                                                 const std::string& observed_at) const override {
    std::vector<contracts::SourceVersion> out;
    for (const auto& [id, answer] : report.sources) out.push_back(one(id, answer, observed_at));
    return out;
  }

 private:
  contracts::ProbeStatement content_statement() const {
    return {content::kContentStatement, "select to_varchar(count(*)) as \"row_count\", to_varchar(" +
                                            options_.content_hash + ") as \"content_hash\" from {relation}"};
  }

  contracts::SourceVersion one(const std::string& id, const ProbeAnswer& answer, const std::string& observed_at) const {
    contracts::SourceVersion v;
    v.source_id = id;
    v.probe_seconds = answer.seconds;
    switch (answer.status) {
      case ProbeAnswer::Status::skipped:
        v.why_unknown = "a view (" + answer.why +
                        "): Snowflake's last_altered of a view moves when it is redefined, not when the tables "
                        "it reads change";
        return v;
      case ProbeAnswer::Status::missing:
      case ProbeAnswer::Status::unknown:
        v.why_unknown = answer.why.empty() ? "the probe had no answer" : answer.why;
        return v;
      case ProbeAnswer::Status::ok:
        break;
    }
    std::string content_why;
    if (answer.rows.contains(content::kContentStatement)) {
      v.version = content::content_version_of(answer, kContentOrigin, observed_at, content_why);
      if (v.version) return v;
    }
    auto rows = answer.row_sets.find(kMetadata);
    if (rows == answer.row_sets.end() || rows->second.empty()) {
      v.why_unknown =
          "INFORMATION_SCHEMA.TABLES shows no row for it (Snowflake shows only the tables the role has "
          "privileges on)";
      return v;
    }
    if (rows->second.size() > 1) {
      v.why_unknown =
          "INFORMATION_SCHEMA.TABLES shows more than one table of this name (names that differ only in "
          "case), so which one dbt reads is uncertain";
      return v;
    }
    const auto& row = rows->second.front();
    const std::string type = column(row, "table_type");
    if (type != "BASE TABLE") {
      v.why_unknown = "its table_type is '" + type +
                      "', and only a BASE TABLE's last_altered is known to move with every change of its rows";
      return v;
    }
    const std::string last_altered = column(row, "last_altered");
    if (last_altered.empty()) {
      v.why_unknown = "INFORMATION_SCHEMA.TABLES gave no last_altered";
      return v;
    }
    v.version = planner::DataVersion{"created=" + column(row, "created") + ";last_altered=" + last_altered,
                                     planner::Exactness::semantic, kLastAlteredOrigin, observed_at};
    if (!content_why.empty()) {
      v.evidence.push_back({"source_content_unread", id, content_why, planner::Exactness::none, kContentOrigin});
    } else if (options_.content_max_bytes) {
      v.evidence.push_back(
          {"source_content_unread", id,
           "not fingerprinted: its size (" +
               (column(row, "bytes").empty() ? std::string("unknown") : column(row, "bytes") + " bytes") +
               ") is above the content limit of " + std::to_string(*options_.content_max_bytes) + " bytes",
           planner::Exactness::none, kContentOrigin});
    }
    return v;
  }

  SnowflakeOptions options_;
};

}  // namespace

std::unique_ptr<contracts::ChangeProvider> make_snowflake_versions(SnowflakeOptions options) {
  return std::make_unique<SnowflakeVersions>(std::move(options));
}

}  // namespace ods::snowflake
