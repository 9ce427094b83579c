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
// Requires PostgreSQL 14 or newer (pg_stat_wal). Pure data; thread-safe.
#include <map>
#include <string>

namespace ods::postgres {

// Relation kind as the probe lists it ("table", "materialized_view", "view") -> the statement.
std::map<std::string, std::string> identity_statements();

}  // namespace ods::postgres
