#pragma once
// Content fingerprints as exact data versions (ADR-0022 §1 and §3): the row count plus an
// order-independent sum of row hashes, one statement per table, computed by the warehouse
// itself. ChangeProviders for DuckDB and Spark (PostgreSQL's: providers/postgres).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ods/contracts/change_provider.h"

namespace ods::content {

// The name of the content statement's answer (its columns: row_count, content_hash and, where a
// dialect adds a second aggregate, content_sum; each a whole number as text; and where a dialect
// can give it, content_schema: an md5 (32 lowercase hex digits) of the relation's column names
// and types in order).
inline constexpr const char* kContentStatement = "content";

// One relation's content answer as an exact version "rows=<n>;hash=<h>" (";sum=<s>" when the
// statement gave content_sum; ";schema=<md5>" and covers_schema when it gave content_schema),
// origin `origin`; nullopt with `why` set when the answer has no usable row (or a content_schema
// that is no md5: never a version without the schema it was asked for). Pure; thread-safe.
std::optional<planner::DataVersion> content_version_of(const contracts::ProbeAnswer& answer, const std::string& origin,
                                                       const std::string& observed_at, std::string& why);

// A content ChangeProvider of any dialect: `sql` (one statement with {relation}, answering the
// columns above) run on each relation of `kinds`, read by content_version_of. `covers_schema`:
// the statement always answers content_schema (content_covers_schema()).
std::unique_ptr<contracts::ChangeProvider> make_content_versions(std::string origin, std::string sql,
                                                                 std::vector<std::string> kinds,
                                                                 bool covers_schema = false);

// DuckDB: count(*), sum(hash(row)) and the md5 of the row's type (column names and types, in
// order). Origin "duckdb_content"; covers the schema.
std::unique_ptr<contracts::ChangeProvider> make_duckdb_content_versions();
// Spark (tables that aren't Delta: parquet, csv, ...): count(*) and the sum of xxhash64 over
// each row's JSON text, as a decimal. Tables only: a view is not fingerprinted (its readers
// build). Origin "spark_content".
std::unique_ptr<contracts::ChangeProvider> make_spark_content_versions();

}  // namespace ods::content
