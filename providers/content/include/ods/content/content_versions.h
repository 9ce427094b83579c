#pragma once
// Content fingerprints as exact data versions (ADR-0022 §1 and §3): the row count plus an
// order-independent sum of row hashes, one statement per table, computed by the warehouse
// itself. ChangeProviders for DuckDB, PostgreSQL and Spark.
#include <memory>
#include <string>

#include "ods/contracts/change_provider.h"

namespace ods::content {

// DuckDB: count(*) and sum(hash(row)). Origin "duckdb_content".
std::unique_ptr<contracts::ChangeProvider> make_duckdb_content_versions();
// PostgreSQL: count(*) and the sum of the first 64 bits of md5(row::text). Origin "postgres_content".
std::unique_ptr<contracts::ChangeProvider> make_postgres_content_versions();
// Spark (tables that aren't Delta: parquet, csv, ...): count(*) and the sum of xxhash64 over
// each row's JSON text, as a decimal. Tables only: a view is not fingerprinted (its readers
// build). Origin "spark_content".
std::unique_ptr<contracts::ChangeProvider> make_spark_content_versions();

}  // namespace ods::content
