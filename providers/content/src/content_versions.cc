#include "ods/content/content_versions.h"

namespace ods::content {

namespace {

bool is_number(const std::string& s) {
  if (s.empty()) return false;
  std::size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  for (; i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

bool is_hex_digest(const std::string& s) {
  if (s.size() != 32) return false;  // md5, as both dialects' SQL give it
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// One implementation, two dialects: only the statement and the origin differ.
class ContentVersions final : public contracts::ChangeProvider {
 public:
  ContentVersions(std::string origin, std::string sql, std::vector<std::string> kinds, bool covers_schema)
      : origin_(std::move(origin)), sql_(std::move(sql)), kinds_(std::move(kinds)), covers_schema_(covers_schema) {}

  std::string origin() const override { return origin_; }

  bool content_covers_schema() const override { return covers_schema_; }

  contracts::ProbeRequest request() const override {
    contracts::ProbeRequest r;
    r.sources = true;
    r.nodes = true;
    r.filter.kinds = kinds_;
    r.statements = {{kContentStatement, sql_}};
    return r;
  }

  std::vector<contracts::SourceVersion> versions(const contracts::ProbeReport& report,
                                                 const std::string& observed_at) const override {
    std::vector<contracts::SourceVersion> out;
    for (const auto& [id, answer] : report.sources) {
      contracts::SourceVersion v;
      v.source_id = id;
      v.probe_seconds = answer.seconds;
      if (answer.status != contracts::ProbeAnswer::Status::ok)
        v.why_unknown = answer.why.empty() ? "the probe had no answer" : answer.why;
      else
        v.version = content_version_of(answer, origin_, observed_at, v.why_unknown);
      out.push_back(std::move(v));
    }
    return out;
  }

 private:
  std::string origin_;
  std::string sql_;
  std::vector<std::string> kinds_;
  bool covers_schema_ = false;
};

}  // namespace

std::optional<planner::DataVersion> content_version_of(const contracts::ProbeAnswer& answer, const std::string& origin,
                                                       const std::string& observed_at, std::string& why) {
  auto row = answer.rows.find(kContentStatement);
  if (row == answer.rows.end() || !row->second.contains("row_count") || !row->second.contains("content_hash") ||
      !is_number(row->second.at("row_count")) || !is_number(row->second.at("content_hash"))) {
    why = "the content fingerprint statement gave no usable row_count and content_hash";
    return std::nullopt;
  }
  std::string value = "rows=" + row->second.at("row_count") + ";hash=" + row->second.at("content_hash");
  if (auto sum = row->second.find("content_sum"); sum != row->second.end()) {
    if (!is_number(sum->second)) {
      why = "the content fingerprint statement gave a content_sum that is no number";
      return std::nullopt;
    }
    value += ";sum=" + sum->second;
  }
  // The relation's columns (names and types, in order) as a digest: only then does an equal
  // content prove an equal relation whatever changed in the code that built it.
  bool covers_schema = false;
  if (auto schema = row->second.find("content_schema"); schema != row->second.end()) {
    if (!is_hex_digest(schema->second)) {
      why = "the content fingerprint statement gave a content_schema that is no digest";
      return std::nullopt;
    }
    value += ";schema=" + schema->second;
    covers_schema = true;
  }
  return planner::DataVersion{std::move(value), planner::Exactness::exact, origin, observed_at, covers_schema};
}

std::unique_ptr<contracts::ChangeProvider> make_content_versions(std::string origin, std::string sql,
                                                                 std::vector<std::string> kinds, bool covers_schema) {
  return std::make_unique<ContentVersions>(std::move(origin), std::move(sql), std::move(kinds), covers_schema);
}

std::unique_ptr<contracts::ChangeProvider> make_duckdb_content_versions() {
  return std::make_unique<ContentVersions>(
      "duckdb_content",
      // typeof() of the row is its static type, STRUCT(name TYPE, ...) in column order, even
      // over no rows (the scalar subquery is then a typed NULL). hash(row) itself ignores column
      // names and integer widths. The aliases name the whole row only while no column has
      // their name (a column wins over a table alias), hence names no model would use.
      "select count(*)::varchar as row_count, coalesce(sum(hash(ods_row__)), 0)::varchar as content_hash, "
      "md5(typeof((select ods_columns__ from {relation} as ods_columns__ limit 1))) as content_schema "
      "from {relation} as ods_row__",
      std::vector<std::string>{"table", "view"}, true);
}

std::unique_ptr<contracts::ChangeProvider> make_spark_content_versions() {
  // to_json(struct(*)) first: Spark's hash functions refuse map columns. The sum is a decimal,
  // so it can't overflow (Spark 4 raises on a bigint overflow under ANSI mode).
  return std::make_unique<ContentVersions>(
      "spark_content",
      "select cast(count(*) as string) as row_count, cast(coalesce(sum(cast(xxhash64(to_json(struct(*))) as "
      "decimal(38, 0))), 0) as string) as content_hash from {relation}",
      std::vector<std::string>{"table"}, false);
}

}  // namespace ods::content
