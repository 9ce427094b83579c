#pragma once
// A RelationProbe over libpq (issue 41 item 3; not yet used by runs): answers a ProbeRequest on
// PostgreSQL exactly as the dbt show probe does through dbt-postgres (ods/dbt/show_probe.h,
// show_probe_program.cc), without a dbt process. Same relation listing (one query per schema
// over pg_tables, pg_views and pg_matviews, `schemaname ilike` the schema, as dbt-postgres's
// list_relations_without_caching; a node's schema first checked in information_schema.schemata,
// as adapter.check_schema_exists), same kinds ("table", "view", "materialized_view"), same
// branches, only_if gates, skip lists (relation_probe 0.10), max_rows, placeholders ({relation} quoted as dbt-postgres
// quotes, "db"."schema"."identifier" under the project's quoting; {metadata_view} as "db".INFORMATION_SCHEMA.<view>),
// same identity batches, same share arithmetic, same `why` texts. Values: the text PostgreSQL sends, but for booleans
// ("True"/"False", as dbt's agate conversion prints them); the statements ODS sends cast their columns to text. Every
// statement runs in one read-only transaction (dbt's call runs them in one transaction too), without a statement
// timeout of its own (libpq's environment, e.g. PGOPTIONS, applies to both paths alike); `role`, when set, is taken
// with `set role` first, as dbt-postgres does. A relation in another database than the connection's fails the call, as
// it does through dbt (PostgreSQL has no cross-database references). Where it can differ from dbt, knowingly:
// identifiers are lower-cased in ASCII only (dbt's Python lowers any letter); a content_nodes list over 64 KiB is
// answered as given (the dbt program then probes every node, a superset); a relation in another database fails the call
// even where dbt would only have listed it.
// Errors: "probe_failed" quoting PostgreSQL's message (the connection string's password is
// never in it: messages come from the server or name the host); nothing is read then.
// Not thread-safe; one call at a time (the contract's). Connects at each call.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ods/contracts/project_relations.h"
#include "ods/contracts/relation_probe.h"

namespace ods::postgres {

// The project's relations (dbt-postgres quotes every part by default).
using ProjectRelation = contracts::ProjectRelation;
using ProjectRelations = contracts::ProjectRelations;

// How to reach the warehouse: what the profile's output gives (ods/postgres/profile_connection.h).
struct NativeConnection {
  std::string conninfo;  // libpq's key/value connection string (holds the password: never logged)
  std::string role;      // `set role` after connecting; empty: none
  // ProbeReport::target: "schema", "database", "name", "type" as dbt's target says them
  std::map<std::string, std::string> target;
};

std::unique_ptr<contracts::RelationProbe> make_native_postgres_probe(NativeConnection connection,
                                                                     ProjectRelations relations);

}  // namespace ods::postgres
