#pragma once
// MetadataVersions (ADR-0022 §1): the shape Snowflake's and BigQuery's ChangeProviders share —
// a warehouse that records when each table last changed, but not exactly what.
//
// Each source that the probe lists as a table gets, in one RelationProbe call:
//   metadata: the warehouse's statement over its metadata view (named kMetadataStatement), whose
//             answer the warehouse's own reader turns into semantic evidence and whose `bytes`
//             column is the table's size;
//   content:  the warehouse's content statement (count(*) and an order-independent row-hash
//             aggregate), only when a content limit is set and `bytes` is no larger than it.
// A content answer is an exact version (content::content_version_of). Else the reader's semantic
// version, with a `source_content_unread` evidence line saying why the content was not read
// (above the limit, or an answer content_version_of refused). Unknown, with the reason: a view
// (spec.view_why), no answer, or what the reader refuses.
// content_request() (early cutoff's built nodes): the content statement alone, on every table;
// with spec.gate_content_request, behind the same size gate (a statement named
// kContentGateStatement, whose answer no reader reads: a node above the limit has no version, and
// its readers don't cut off on it).
// Built over any RelationProbe: it says what to run and reads the answers, never how.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ods/contracts/change_provider.h"

namespace ods::metadata {

// The name of the metadata statement's answer; its `bytes` column gates the content statement.
inline constexpr const char* kMetadataStatement = "metadata";
// The name of content_request()'s size statement (the metadata statement under another name).
inline constexpr const char* kContentGateStatement = "content_gate";

// A column of a probe row, "" when the row lacks it.
std::string column(const contracts::ProbeRow& row, const std::string& name);

// What the reader of a metadata answer returns: a semantic version, or why there is none.
struct MetadataReading {
  std::optional<planner::DataVersion> version;
  std::string why_unknown;
};

struct MetadataVersionsSpec {
  std::string origin;          // the provider's origin ("snowflake", "bigquery")
  std::string content_origin;  // the origin of its content versions
  // The metadata statement (its name is set to kMetadataStatement) and the content statement
  // (its name is set to content::kContentStatement).
  contracts::ProbeStatement metadata;
  contracts::ProbeStatement content;
  // Sources whose `bytes` is at most this are fingerprinted by content; unset: none is.
  std::optional<unsigned long long> content_max_bytes;
  // Why a view has no version, after "a view (<the probe's reason>): ".
  std::string view_why;
  // The relation kinds the statements run on (the others are skipped: unknown, spec.view_why).
  std::vector<std::string> kinds = {"table"};
  // content_covers_schema(): the content statement always answers content_schema.
  bool content_covers_schema = false;
  // content_request() gates the content statement by size as request() does (see above).
  bool gate_content_request = false;
  // Reads the metadata answer of one table (`answer.rows`/`answer.row_sets` under
  // kMetadataStatement). Pure.
  std::function<MetadataReading(const contracts::ProbeAnswer& answer, const std::string& observed_at)> read;
};

std::unique_ptr<contracts::ChangeProvider> make_metadata_versions(MetadataVersionsSpec spec);

}  // namespace ods::metadata
