#pragma once
// BigQueryVersions (ADR-0022 §1): a ChangeProvider for BigQuery sources and built nodes.
//
// Each source that the probe lists as a table gets, in one RelationProbe call:
//   metadata: one row aggregating the table's rows of <project>.<dataset>.INFORMATION_SCHEMA.PARTITIONS
//             (partitions, partitions that hold streamed rows, total rows and logical bytes, the
//             newest last_modified_time);
//   content:  count(*), bit_xor(farm_fingerprint(to_json_string(t))) and a sum of the fingerprints'
//             top bits (bit_xor alone cancels a pair of equal rows), only when a content limit is
//             set and the metadata's bytes are no more than it (the statement scans the table).
// A content answer is an exact version "rows=<n>;hash=<h>;sum=<s>" (origin "bigquery_content").
// Else the metadata is semantic evidence "partitions=<n>;rows=<n>;last_modified=<t>" (origin
// "bigquery_last_modified"): BigQuery sets a partition's last_modified_time when data is written
// to it; a partition removed whole changes the count. Unknown, with the reason: a view (its time
// moves when it is redefined, not when the tables it reads change), no metadata row (no
// permission to list the table's partitions, an external table), a streaming buffer (rows in
// the __STREAMING_UNPARTITIONED__ or __UNPARTITIONED__ partition: streamed rows are readable
// before the time moves), an empty time.
// content_request() (early cutoff's built nodes): the content statement alone, on every table.
// Built over any RelationProbe: it says what to run and reads the answers, never how.
#include <memory>
#include <optional>

#include "ods/contracts/change_provider.h"

namespace ods::bigquery {

inline constexpr const char* kBigQueryOrigin = "bigquery";
inline constexpr const char* kContentOrigin = "bigquery_content";
inline constexpr const char* kLastModifiedOrigin = "bigquery_last_modified";

struct BigQueryOptions {
  // Sources whose logical bytes are at most this are fingerprinted by content; unset: none is.
  std::optional<unsigned long long> content_max_bytes;
};

std::unique_ptr<contracts::ChangeProvider> make_bigquery_versions(BigQueryOptions options = {});

}  // namespace ods::bigquery
