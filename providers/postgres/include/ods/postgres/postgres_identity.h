#pragma once
// PostgreSQL's relation identity (relation_probe 0.9, docs/warehouses.md "PostgreSQL",
// "Relation identity"): the statements that read a built node's relation's identity in the
// probe's relation check, so a relation rewritten outside ODS is not reused as ODS's build.
//
// A table or materialized view: "oid=..;relfilenode=..;ins=..;upd=..;del=..;database_stats_reset=
// ..;cluster_stats_reset=..;server_started=.." (epoch seconds): a new oid when it was dropped and
// created again, or another relation renamed into its place; a new relfilenode after TRUNCATE,
// VACUUM FULL, CLUSTER or any rewrite; a moved counter after an INSERT, UPDATE or DELETE once the
// writing session's counts are flushed (PostgreSQL 15+: at its commit at most once a second, else
// within 10 s of going idle, and at its end); a new reset or start time after a statistics reset,
// a restart or a crash (whose counters are then gone: read as changed, never as the same).
// NULL (no identity: nothing is claimed) for a partitioned table or one with inheritance children
// (their rows' changes are counted on other relations), on a standby, and with track_counts off.
// A view: "oid=..;definition=<md5 of pg_get_viewdef>".
// Checking (the probe's read, compared with the recorded identity): a table's identity is also
// NULL while its counters may be behind, i.e. while another session of the database whose role
// may write that table (has_table_privilege INSERT, UPDATE, DELETE or TRUNCATE; superusers) may
// hold counts not flushed yet (busy, in a transaction, idle for less than
// kStatisticsSettleSeconds, or hiding its state from the role: the sources' settle rule,
// postgres_versions.h), judged per table in the same statement. Sessions of roles that can only
// read it (dashboards) don't stop its identity being read. A write
// committed moments before the probe then can't read as the recorded identity: with none read
// the node builds (relation_unverified). Recording (read right after ODS's build): no such
// condition, since a write it misses only moves the counters later, which reads as changed.
// Requires PostgreSQL 14 or newer (pg_stat_wal). Pure data; thread-safe.
#include <map>
#include <string>

namespace ods::postgres {

// What the identity is read for.
enum class IdentityRead {
  recording,  // right after ODS's build, to record
  checking,   // in the probe, to compare with the recorded one
};

// Relation kind as the probe lists it ("table", "materialized_view", "view") -> the statement.
std::map<std::string, std::string> identity_statements(IdentityRead read);

}  // namespace ods::postgres
