#pragma once
// PostgresVersions (ADR-0022 §1, docs/warehouses.md "PostgreSQL"): a ChangeProvider for
// PostgreSQL sources and built nodes, in the shape of MetadataVersions.
//
// Each source relation (table or view) gets, in one RelationProbe call:
//   metadata: one row from the catalog and the cumulative statistics: the relation's kind, oid,
//             relfilenode and size (a view's: the tables it reads directly), its insert, update
//             and delete counters (pg_stat_user_tables), the statistics' reset times (the
//             database's, and the cluster's pg_stat_wal one, which a crash's discard sets), the
//             server's start time, its columns' digest, and how many other sessions of the
//             database whose role may write the relation may hold changes not yet counted
//             (busy, or idle for less than kStatisticsSettleSeconds; or hiding their state
//             from the role);
//   content:  count(*), an order-independent sum of 64-bit row hashes and the columns' digest,
//             only when the size is at most the content limit.
// A content answer is an exact version (origin "postgres_content"). The row hash is
// hash_record_extended(row) when every column's type is one whose hash tells all its values
// apart (integers, text and varchar under deterministic collations, bool, date, time, timestamp,
// timestamptz, uuid, bytea, oid, "char"), else hashtextextended(row::text): numeric 1.0 and 1.00,
// float -0 and 0, interval '1 day' and '24 hours' hash alike, and json, xml, point, money, box
// have no 64-bit hash at all. Requires PostgreSQL 14 or newer.
// Above the limit the statistics are semantic evidence "oid=..;relfilenode=..;ins=..;upd=..;
// del=..;database_stats_reset=..;cluster_stats_reset=..;server_started=..;schema=<md5>" (origin
// "postgres_statistics"): every committed insert, update or delete moves a counter once it is
// flushed; TRUNCATE, VACUUM FULL, CLUSTER and table rewrites give a new relfilenode; a table
// dropped, or renamed away and another renamed into its place, a new oid; a reset, a restart or
// a crash's discard of the counters a new reset or start time; ALTER TABLE ADD COLUMN the
// digest. So it can move without a data change (an extra build) but never stays put when rows
// change, provided the counters are settled. Unknown, with the reason: a view, a partitioned,
// foreign or materialized relation, a table with inheritance children (all: no statistics that
// count their rows), a standby (replayed changes aren't counted), track_counts off, and
// unsettled counters (another session whose role may write the table busy or idle for less than
// kStatisticsSettleSeconds, or hiding its state from the role). Sessions of roles that can't
// write the table (readers, dashboards) and ODS's own state-store sessions (application_name
// 'ods') don't count.
// content_request() (early cutoff's built nodes): the same size gate, content alone (a node
// above the limit has no content version, and its readers don't cut off on it).
// Built over any RelationProbe: it says what to run and reads the answers, never how.
#include <memory>

#include "ods/contracts/change_provider.h"

namespace ods::postgres {

inline constexpr const char* kPostgresOrigin = "postgres";
inline constexpr const char* kContentOrigin = "postgres_content";
inline constexpr const char* kStatisticsOrigin = "postgres_statistics";

// How long after a session goes idle its committed changes are surely counted: PostgreSQL 15+
// flushes a session's pending counts when it goes idle, at most once a second, and else by an
// idle timeout of 10 s (PGSTAT_IDLE_INTERVAL); the rest is margin for a flush waiting on a lock.
inline constexpr int kStatisticsSettleSeconds = 20;

struct PostgresOptions {
  // Relations whose size is at most this are fingerprinted by content; above it the statistics
  // answer (0: always the statistics, but for empty tables; the largest value: always content).
  unsigned long long content_max_bytes = 0;
};

std::unique_ptr<contracts::ChangeProvider> make_postgres_versions(const PostgresOptions& options);

}  // namespace ods::postgres
