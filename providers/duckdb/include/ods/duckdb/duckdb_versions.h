#pragma once
// DuckDB sources by their storage identity (docs/warehouses.md "DuckDB", "Storage identity";
// opt-in: $ODS_DUCKDB_STORAGE=on): a ChangeProvider whose request runs, on each source table,
// the storage statement (storage_identity.h) and, only where it says the table's storage can't
// prove anything (changes in the WAL, in-memory updates, deleted rows), DuckDB's content
// fingerprint (ods::content); on a view, the content fingerprint alone.
//
// A table whose storage identity ODS could read: exact version "storage:<identity>", origin
// "duckdb_storage", covering the schema (the identity holds the row type's digest). Else its
// content version ("duckdb_content", as without this provider), with the reason the storage
// identity was not taken as evidence; else unknown, with both reasons. Since the origin is part
// of a version, a source read one way after being recorded the other way counts as changed once.
// Built nodes' content (early cutoff) is read by content, as before. Thread-safe.
#include <filesystem>
#include <memory>

#include "ods/contracts/change_provider.h"

namespace ods::duckdb {

// `working_dir`: where the dbt process ran (a database path DuckDB gives as relative is taken
// from there; DuckDB gives it absolute as measured).
std::unique_ptr<contracts::ChangeProvider> make_duckdb_storage_versions(std::filesystem::path working_dir);

}  // namespace ods::duckdb
