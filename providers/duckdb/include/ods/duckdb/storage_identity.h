#pragma once
// A DuckDB table's storage identity (docs/warehouses.md "DuckDB", "Storage identity"): what the
// table's stored bytes are, read without reading its rows. One statement in the warehouse (its
// segments as pragma_storage_info lists them, aggregated to one row) and, in ODS, a digest of the
// whole bytes of every block those segments use (storage_file.h).
//
// Two tables with equal identities hold the same rows in the same columns: the same segments
// (row group, column, path, segment id, type, first row, count, compression, statistics, which
// hold a constant segment's value, block and offset) over the same bytes decode to the same
// values, and with no deleted row on either side and the same row count no row is hidden on one
// side only. The converse does not hold: the same rows written again (a reload, `create or
// replace`, a checkpoint that rewrites a row group) may land elsewhere, a new identity, read as
// changed. Pure statement text and parsing, plus the block reads of storage_file.h; thread-safe.
#include <expected>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace ods::duckdb {

// The name of the storage statement's answer.
inline constexpr const char* kStorageStatement = "storage";

// The statement, one row, with placeholders {database}, {schema} and {identifier} (single quotes
// doubled) and {relation} (the quoted relation). Its columns, each as text:
//   storage_layout  md5 of every segment's fields above, in order
//   storage_blocks  the blocks the segments use (their own and their overflow blocks), ascending,
//                   comma-separated; empty when every segment is a constant
//   storage_rows    count(*)
//   storage_usable  1 when every segment is on disk (persistent), none carries in-memory updates,
//                   and count(*) equals the rows stored (no deleted row); else 0
//   storage_schema  md5 of the row's type (column names and types, in order)
//   storage_file    the database's file as DuckDB opened it (duckdb_databases().path)
//   storage_bytes   the bytes of the blocks it uses (their count times the database's block size)
//   storage_taken   1 when the identity is to be read: storage_usable is 1 and, with
//                   `content_max_bytes` set, storage_bytes is above it (a smaller table is read
//                   by content: as cheap, and it reuses the same rows written again); else 0
std::string storage_statement(std::optional<unsigned long long> content_max_bytes = std::nullopt);

// The identity "layout=<md5>;rows=<n>;schema=<md5>;blocks=<sha256>" of one table's answer to
// storage_statement(), its blocks read from storage_file (a relative path taken from
// `working_dir`, where the warehouse process ran); or why there is none (a missing or malformed
// column, storage_usable not 1, an in-memory database, or what digest_blocks says).
std::expected<std::string, std::string> storage_identity_of(const std::map<std::string, std::string>& answer,
                                                            const std::filesystem::path& working_dir);

}  // namespace ods::duckdb
