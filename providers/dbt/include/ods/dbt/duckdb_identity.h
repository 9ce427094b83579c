#pragma once
// DuckDB's relation identity (relation_probe 0.9, docs/warehouses.md "DuckDB", "Relation
// identity"): the statements that read a built node's relation's identity in the probe's relation
// check (dbt-duckdb's listing kinds "table" and "view").
//
// DuckDB's catalog gives nothing that survives a restart and moves with every write (measured on
// DuckDB 2.0: duckdb_tables()'s table_oid is renumbered each time the file is opened, so it
// differs between two dbt calls; estimated_size moves with an INSERT but not with a DELETE or an
// UPDATE; the CREATE statement only with the columns). So a table's identity is its content:
// "rows=..;hash=<sum of hash(row)>;columns=<md5 of the row type>", the statement DuckDB's content
// fingerprint runs (DuckDB hashes some 50 million rows in a third of a second here). Any write
// that changes a row, the columns or their order shows; a table replaced by one with the same rows
// and columns is the same content and is reused (it holds what ODS built).
// A view: "definition=<md5 of its CREATE VIEW text>" from duckdb_views().
// Pure data; thread-safe.
#include <map>
#include <string>

namespace ods::dbt {

// Relation kind as the probe lists it ("table", "view") -> the statement.
std::map<std::string, std::string> duckdb_identity_statements();

}  // namespace ods::dbt
