#pragma once
// BigQuery's relation identity (relation_probe 0.11, docs/warehouses.md "BigQuery", "Relation
// identity"): the statements that read a built node's relation's identity in the probe's relation
// check, so a relation written or replaced outside ODS is not reused as ODS's build.
//
// A table (its rows of INFORMATION_SCHEMA.PARTITIONS, aggregated):
// "partitions=<n>;rows=<total rows>;last_modified=<newest last_modified_time>". BigQuery sets a
// partition's last_modified_time when rows are inserted, loaded, streamed or modified in it, and a
// table replaced (CREATE OR REPLACE, WRITE_TRUNCATE) is written anew; a DELETE, which that time
// may not show, changes the rows (a partition emptied or dropped: the rows or the partitions).
// NULL (no identity) while rows sit in a streaming buffer (the __STREAMING_UNPARTITIONED__ or
// __UNPARTITIONED__ partition: readable before the time moves) and for a table without partitions
// listed (an external table, no permission).
// Recording (right after ODS's build): also NULL where a partition holds rows but no logical
// bytes: metadata whose sizes are not kept is not kept up to date either (bqemulator reports 0
// bytes for every table and moves last_modified_time only when a table is created), so it is no
// identity, and only the relation's existence is checked.
// A view (INFORMATION_SCHEMA.VIEWS): "definition=<hex md5 of VIEW_DEFINITION>": a view replaced
// by another definition. Any other kind (a materialized view, a snapshot) has no identity.
// Pure data; thread-safe.
#include <map>
#include <string>

#include "ods/metadata/identity_read.h"

namespace ods::bigquery {

// Relation kind as the probe lists it ("table", "view") -> the statement.
std::map<std::string, std::string> identity_statements(metadata::IdentityRead read);

}  // namespace ods::bigquery
