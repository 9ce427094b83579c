#pragma once
// Who may do what with the ODS state in PostgreSQL: the state tables this ODS keeps, and the
// SQL that gives a role read access to them and nothing else (the credential of a pull
// request's plan, `ods state grants`; docs/security.md). The check that such a credential
// cannot write is an open option (OpenOptions::refuse_writable_credential, stores.h).
#include <string>
#include <vector>

#include "ods/base/result.h"

namespace ods::state {

// The tables of the ODS state in a PostgreSQL schema: schema_migrations and every table the
// migrations this binary knows create (read from their SQL, so a migration that adds a table
// adds it here), in the order they are created. Never empty; thread-safe.
const std::vector<std::string>& postgres_state_tables();

// The SQL statements (one per line, ending in ';', after two comment lines) that give `role`
// USAGE on the schema holding the ODS state `conninfo` connects to (its current schema) and
// SELECT on each of postgres_state_tables(), identifiers quoted as PostgreSQL quotes them.
// To be run by the tables' owner (psql with the writer's URL). Reads only (a read-only session).
// Errors: "usage" for an empty role; "not_found" when the database holds no ODS state;
// "outdated_schema" when its schema is older than this ODS's (a run migrates it first: a role
// granted now would miss the new tables); open_postgres_store's others (messages never name
// the password).
[[nodiscard]] ods::Result<std::string> postgres_read_only_grants(const std::string& conninfo, const std::string& role);

}  // namespace ods::state
