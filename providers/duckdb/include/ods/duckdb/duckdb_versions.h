#pragma once
// DuckDB sources by their storage identity (docs/warehouses.md "DuckDB", "Storage identity";
// the default for tables above $ODS_CONTENT_MAX_BYTES, every table with $ODS_DUCKDB_STORAGE=on):
// a ChangeProvider whose request runs, on each source table, the storage statement
// (storage_identity.h) and, only where it says the table is small or its storage can't prove
// anything (changes in the WAL, in-memory updates, deleted rows), DuckDB's content fingerprint
// (ods::content); on a view, the content fingerprint alone.
//
// A table whose storage identity ODS could read: exact version "storage:<identity>", origin
// "duckdb_storage", covering the schema (the identity holds the row type's digest). Else its
// content version ("duckdb_content", as without this provider), with the reason the storage
// identity was not taken as evidence; else unknown, with both reasons. Since the origin is part
// of a version, a source read one way after being recorded the other way counts as changed once.
// Built nodes' content (early cutoff) is read by content, as before. Thread-safe.
#include <filesystem>
#include <memory>
#include <optional>

#include "ods/contracts/change_provider.h"

namespace ods::duckdb {

// `working_dir`: where the dbt process ran (a database path DuckDB gives as relative is taken
// from there; DuckDB gives it absolute as measured). `content_max_bytes`: a table whose blocks
// take at most this many bytes is read by content (an evidence line says why), a larger one by
// its storage identity; unset: every table by its storage identity where it proves something.
std::unique_ptr<contracts::ChangeProvider> make_duckdb_storage_versions(
    std::filesystem::path working_dir, std::optional<unsigned long long> content_max_bytes = std::nullopt);

}  // namespace ods::duckdb
