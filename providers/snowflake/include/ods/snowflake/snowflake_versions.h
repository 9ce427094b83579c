#pragma once
// SnowflakeVersions (ADR-0022 §1): a ChangeProvider for Snowflake sources and built nodes.
//
// Each source that the probe lists as a table gets, in one RelationProbe call:
//   metadata: one row of {database}.INFORMATION_SCHEMA.TABLES (table_type, last_altered, created,
//             row_count, bytes) for the table;
//   content:  count(*) and an order-independent hash aggregate of the rows (hash_agg(*) unless
//             configured), only when a content limit is set and the metadata's `bytes` is no
//             larger than it (the statement scans the table).
// A content answer is an exact version "rows=<n>;hash=<h>" (origin "snowflake_content"). Else
// the metadata is semantic evidence "created=<t>;last_altered=<t>" (origin
// "snowflake_last_altered"): Snowflake moves last_altered on every DML and DDL and on background
// metadata operations (reclustering, for one), so it may move without a data change (an extra
// build) but never stays put when rows change; a table dropped and created again gets a new
// `created`. Unknown, with the reason: a view (its last_altered moves when it is redefined, not
// when the tables it reads change), a table type other than BASE TABLE (an external table's
// files change without it), no metadata row (the role can't see the table), two rows (names
// that differ only in case), an empty last_altered.
// content_request() (early cutoff's built nodes): the content statement alone, on every table.
// Built over any RelationProbe: it says what to run and reads the answers, never how.
#include <memory>
#include <optional>
#include <string>

#include "ods/contracts/change_provider.h"

namespace ods::snowflake {

inline constexpr const char* kSnowflakeOrigin = "snowflake";
inline constexpr const char* kContentOrigin = "snowflake_content";
inline constexpr const char* kLastAlteredOrigin = "snowflake_last_altered";
inline constexpr const char* kDefaultContentHash = "hash_agg(*)";

struct SnowflakeOptions {
  // Sources whose `bytes` is at most this are fingerprinted by content; unset: none is.
  std::optional<unsigned long long> content_max_bytes;
  // The aggregate over the rows of {relation} that the content statement returns as text; any
  // order-independent expression the warehouse has (an emulator without hash_agg needs another).
  std::string content_hash = kDefaultContentHash;
};

std::unique_ptr<contracts::ChangeProvider> make_snowflake_versions(const SnowflakeOptions& options = {});

}  // namespace ods::snowflake
