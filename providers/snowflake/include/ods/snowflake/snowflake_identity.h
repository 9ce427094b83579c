#pragma once
// Snowflake's relation identity (relation_probe 0.11, docs/warehouses.md "Snowflake", "Relation
// identity"): the statements that read a built node's relation's identity in the probe's relation
// check, so a relation written or replaced outside ODS is not reused as ODS's build.
//
// A table (INFORMATION_SCHEMA.TABLES, table_type 'BASE TABLE'): "created=<t>;last_altered=<t>".
// Snowflake moves LAST_ALTERED on every DML (even one that changes no row) and DDL, and on
// background metadata operations (reclustering): a write outside ODS moves it, and at worst a
// background operation moves it without one (an extra build). CREATED is new after CREATE OR
// REPLACE, a table dropped and created again, or another renamed into its place.
// Recording (right after ODS's build): NULL, so no identity is recorded and only the relation's
// existence is checked, unless LAST_ALTERED is within a day of the warehouse's own clock: ODS has
// just written the table, so metadata older than that is not kept up to date (an emulator's
// constant: fakesnow reports 1970-01-01 for every table, whatever is written) and is no identity.
// Checking: the same fields, unconditionally.
// A view (INFORMATION_SCHEMA.VIEWS): "definition=<md5 of VIEW_DEFINITION>": a view replaced by
// another definition; NULL where the role may not see the text (a secure view it doesn't own).
// Any other kind (a materialized or dynamic table, an external table) has no identity.
// Pure data; thread-safe.
#include <map>
#include <string>

#include "ods/metadata/identity_read.h"

namespace ods::snowflake {

// Relation kind as the probe lists it ("table", "view") -> the statement.
std::map<std::string, std::string> identity_statements(metadata::IdentityRead read);

}  // namespace ods::snowflake
